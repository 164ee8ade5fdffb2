"""How an optimizer's update is routed under a strategy; one path shared by the Keras and compat.v1 optimizers.

TF's optimizers (Keras and the v1 ``tf.compat.v1.train`` ones alike) SUM the gradients across replicas, never
average them: the loss is expected to be scaled by the global batch already. In replica context the gradients
go through one batched ``all_reduce(SUM)`` (unless aggregation is skipped), then ``merge_call`` runs the apply
function once, in cross-replica context, which updates every component of each mirrored variable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tpustrategy import _core
from tpustrategy.distribute import distribution_strategy_context as ds_context
from tpustrategy.distribute.reduce_util import ReduceOp

if TYPE_CHECKING:
    from tpustrategy.distribute.replica_context import ReplicaContext
    from tpustrategy.framework.indexed_slices import IndexedSlices


def dense_gradient(gradient: Any) -> Any:
    """`gradient` as a dense tensor (IndexedSlices densified: their rows' segment sum)."""
    if hasattr(gradient, "_as_tensor") and not isinstance(gradient, _core.tensor.Tensor):
        return gradient._as_tensor()
    return gradient


def _is_indexed_slices(gradient: object) -> bool:
    from tpustrategy.framework.indexed_slices import IndexedSlices

    return isinstance(gradient, IndexedSlices)


def distributed_container(variable: Any) -> Any:
    """The distributed variable `variable` is a component of, else `variable` (optimizers key slots by it)."""
    container = getattr(variable, "_distributed_container", None)
    if callable(container) and not hasattr(container, "_values"):
        container = container()
    return container if container is not None else variable


def in_replica_context() -> bool:
    """True inside ``strategy.run`` (a strategy is active and its replica context is current)."""
    return (ds_context.has_strategy() and ds_context.get_replica_context() is not None
            and not ds_context.in_cross_replica_context())


def _gather_indexed_slices(replica_context: ReplicaContext, gradient: IndexedSlices) -> IndexedSlices:
    """The cross-replica sum of an IndexedSlices gradient as TF's cross-device ops form it: every replica's
    values and indices concatenated in replica order (duplicates kept; the optimizer sums them)."""
    from tpustrategy.framework.indexed_slices import IndexedSlices

    values, indices = replica_context.all_gather([gradient.values, gradient.indices], axis=0)
    return IndexedSlices(values, indices, gradient.dense_shape)


def apply_across_replicas(grads_and_vars: list[tuple[Any, Any]], distributed_apply: Callable[..., Any],
                          aggregate: bool = True, args: Sequence[Any] = (), keep_sparse: bool = False) -> Any:
    """Calls ``distributed_apply(strategy, pairs, *args)`` once, in cross-replica context, and returns its result
    (each replica's share of it when called in replica context).

    In replica context the gradients of ``grads_and_vars`` (no None) are first summed across replicas by one
    batched all-reduce when ``aggregate``. With ``keep_sparse`` IndexedSlices gradients stay sparse: their values
    and indices are all-gathered instead (TF's reduction of IndexedSlices). Must be called under a strategy.
    """
    replica_context = ds_context.get_replica_context() if in_replica_context() else None
    if replica_context is None:
        return distributed_apply(ds_context.get_strategy(), grads_and_vars, *args)
    sparse = [keep_sparse and _is_indexed_slices(g) for g, _ in grads_and_vars]
    grads = [g if s else dense_gradient(g) for (g, _), s in zip(grads_and_vars, sparse, strict=True)]
    if aggregate:
        dense = [g for g, s in zip(grads, sparse, strict=True) if not s]
        summed = iter(replica_context.all_reduce(ReduceOp.SUM, dense) if dense else [])
        grads = [_gather_indexed_slices(replica_context, g) if s else next(summed)
                 for g, s in zip(grads, sparse, strict=True)]
    pairs = list(zip(grads, [v for _, v in grads_and_vars], strict=True))
    return replica_context.merge_call(distributed_apply, args=(pairs, *args))
