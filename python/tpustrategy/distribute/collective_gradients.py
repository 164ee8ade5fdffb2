"""Gradients of the replica-context collectives, recorded on the replica's tapes at the collective call.

As in TF, ``ReplicaContext.all_reduce`` with SUM or MEAN is differentiable: the gradient of an all-sum
is the all-sum of the output gradients (an all-mean: the all-mean). ``all_gather``'s gradient is this
replica's slice, along the gather axis, of the all-summed output gradients (the slice's start is the
sum of the sizes of the replicas before it, gathered, so ragged MirroredStrategy gathers work). The
backward collectives are collectives like any other: every replica's ``tape.gradient`` must reach them,
in the same order, as for the forward ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tpustrategy import _core
from tpustrategy.distribute.reduce_util import ReduceOp

if TYPE_CHECKING:
    from tpustrategy.distribute.replica_context import ReplicaContext

Tensor = _core.tensor.Tensor

_autodiff = _core.autodiff


def _floating(tensors: list[Tensor]) -> list[int]:
    return [i for i, t in enumerate(tensors) if t.dtype.is_floating]


def record_all_reduce(context: ReplicaContext, op: ReduceOp, leaves: list[Tensor], results: list[Tensor],
                      ) -> list[Tensor]:
    """Records ``results = all_reduce(op, leaves)`` on the active tapes (SUM / MEAN of floating leaves)."""
    if not _autodiff.recording() or op not in (ReduceOp.SUM, ReduceOp.MEAN):
        return results
    idx = _floating(leaves)
    if not idx:
        return results
    outputs = [_core.ops.stop_gradient(results[i]) for i in idx]

    def grad(*dys: Tensor) -> list[Any]:
        return list(context.all_reduce(op, list(dys)))

    recorded = _autodiff.record_custom_gradient([leaves[i] for i in idx], outputs, grad)
    results = list(results)
    for i, out in zip(idx, recorded, strict=True):
        results[i] = out
    return results


def record_all_gather(context: ReplicaContext, axis: int, leaves: list[Tensor], results: list[Tensor],
                      ) -> list[Tensor]:
    """Records ``results = all_gather(leaves, axis)`` on the active tapes (floating leaves)."""
    if not _autodiff.recording():
        return results
    idx = _floating(leaves)
    if not idx:
        return results
    inputs = [leaves[i] for i in idx]
    outputs = [_core.ops.stop_gradient(results[i]) for i in idx]

    def grad(*dys: Tensor) -> list[Tensor]:
        summed = context.all_reduce(ReduceOp.SUM, list(dys))
        grads = []
        for x, g in zip(inputs, summed, strict=True):
            ax = axis % x.ndim
            shape = x._shape_tuple  # a tensor's dims are all known
            size = int(shape[ax])
            sizes = context.all_gather(_core.tensor.constant([size], _core.tensor.int64), axis=0)
            begin = int(sum(int(s) for s in sizes.numpy()[: context._replica_id]))
            begin_vec = [0] * x.ndim
            begin_vec[ax] = begin
            grads.append(_core.ops.slice(g, begin_vec, list(shape)))
        return grads

    recorded = _autodiff.record_custom_gradient(inputs, outputs, grad)
    results = list(results)
    for i, out in zip(idx, recorded, strict=True):
        results[i] = out
    return results
