"""``tf.distribute.Strategy`` and ``StrategyExtended``: the base classes, scopes and the default strategy.

Subclasses (MirroredStrategy, OneDeviceStrategy, the TPU strategies) provide the replica devices and may
override the hooks marked "hook" (how a replica runs, how results regroup, how variables are created).
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from tpustrategy import _core
from tpustrategy._pictures import distribute_pictures
from tpustrategy.distribute import cross_replica_ops, input_lib
from tpustrategy.distribute import distribution_strategy_context as ds_context
from tpustrategy.distribute.distribute_options import (  # noqa: F401 - re-exported as in TF
    InputContext,
    InputOptions,
    InputReplicationMode,
    RunOptions,
    ValueContext,
)
from tpustrategy.distribute.extended import StrategyExtendedV1, StrategyExtendedV2, require_cross_replica
from tpustrategy.distribute.reduce_util import ReduceOp, as_reduce_op
from tpustrategy.distribute.replica_context import DefaultReplicaContext, ReplicaContext

if TYPE_CHECKING:
    from tpustrategy.data.dataset_ops import Dataset

StrategyExtended = StrategyExtendedV2


class _StrategyScope:
    """``with strategy.scope()``: pushes cross-replica mode; re-entering the same strategy is allowed."""

    def __init__(self, strategy: StrategyBase) -> None:
        self._strategy = strategy
        self._mode = ds_context.cross_replica_mode(strategy)
        self._reentries = 0

    def __enter__(self) -> StrategyBase:
        top = _top_mode()  # ds_context.has_strategy(), inlined: None (no scope) is the default strategy's mode
        if top is not None and top.strategy is not ds_context.default_strategy():
            require_cross_replica(self._strategy.extended)
            self._reentries += 1
        else:
            ds_context.push_mode(self._mode)
        return self._strategy

    def __exit__(self, *exc_info: object) -> Literal[False]:
        if self._reentries:
            self._reentries -= 1
        else:
            ds_context.pop_mode(self._mode)
        return False


class StrategyBase:
    """What every strategy version shares."""

    def __init__(self, extended: StrategyExtendedV2) -> None:
        self._extended = extended

    @property
    def extended(self) -> StrategyExtendedV2:
        """The strategy's ``StrategyExtended``: the lower-level, cross-replica API."""
        return self._extended

    @property
    def num_replicas_in_sync(self) -> int:
        """How many replicas run each step in lockstep (and so combine in a reduce)."""
        return self._extended._num_replicas_in_sync

    @property
    def cluster_resolver(self) -> Any:
        """The ClusterResolver the strategy was built with; None for strategies that take none."""
        return None

    def scope(self) -> contextlib.AbstractContextManager[StrategyBase]:
        """A context manager that makes this strategy current (cross-replica context) and distributes the
        variables created in it. Nesting rules: see SEMANTICS.md §2.1."""
        return _StrategyScope(self)

    def run(self, fn: Callable[..., Any], args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None,
            options: RunOptions | None = None) -> Any:
        """Runs `fn` once per replica, in replica order, each with its components of `args` / `kwargs`.

        Simulator note: `fn` may be any callable (a ``tpustrategy.function`` or not); it is executed eagerly
        once per replica, cooperatively (ARCHITECTURE.md "Execution model"), so Python side effects
        happen once per replica, in replica order, between synchronisation points.

        Returns:
          `fn`'s result regrouped: PerReplica where replicas differ, the value itself where every replica
          returned the same object, a distributed variable where replicas returned its components.
        """
        if not isinstance(args, (list, tuple)):
            raise ValueError(f"positional args must be a list or tuple, got {type(args)}")
        # ``with self.scope():`` inlined (this runs every step): re-entering checks the context, else a push.
        top = _top_mode()  # ds_context.has_strategy(), inlined: None (no scope) is the default strategy's mode
        if top is not None and top.strategy is not ds_context.default_strategy():
            require_cross_replica(self._extended)
            return self._extended._call_for_each_replica(fn, args, kwargs or {})
        mode = ds_context.cross_replica_mode(self)
        ds_context.push_mode(mode)
        try:
            return self._extended._call_for_each_replica(fn, args, kwargs or {})
        finally:
            ds_context.pop_mode(mode)

    def experimental_run_v2(self, fn: Callable[..., Any], args: Sequence[Any] = (),
                            kwargs: dict[str, Any] | None = None, options: RunOptions | None = None) -> Any:
        """The r1.15 / TF 2.0 name of ``run``."""
        return self.run(fn, args=args, kwargs=kwargs, options=options)

    def reduce(self, reduce_op: ReduceOp | str, value: Any, axis: Any = None) -> Any:
        """Reduces `value` across replicas (and along `axis` if given) onto the current device."""
        require_cross_replica(self._extended)
        # Strings are upper-cased; anything that is not a ReduceOp is a TypeError (TF fails later, obscurely).
        op = as_reduce_op(reduce_op)
        if isinstance(value, (tuple, list, dict)):  # a nest: each of its values reduced, as TF maps over it
            from tpustrategy import nest

            return nest.map_structure(lambda v: self.reduce(op, v, axis), value)
        if axis is None:
            return self._extended._reduce(op, value)
        return self._extended._reduce_with_axis(op, value, axis)

    def experimental_local_results(self, value: Any) -> tuple[Any, ...]:
        """The per-replica components of `value` (a tuple in replica order); `(value,)` for plain values."""
        return self._extended._local_results(value)

    def experimental_distribute_dataset(self, dataset: Dataset, options: InputOptions | None = None) -> Any:
        """Splits each global batch of `dataset` over the replicas (SEMANTICS.md §2.5).

        One input worker per simulated host; each worker's pipeline is auto-sharded by the dataset's
        ``experimental_distribute.auto_shard_policy`` and rebatched so that every replica gets its share of
        each global batch, copied into its device's memory.

        Returns:
          A DistributedDataset (the dataset itself on the default strategy).
        """
        input_lib.validate_options(options, from_function=False)
        return self._extended._experimental_distribute_dataset(dataset, options)

    def distribute_datasets_from_function(self, dataset_fn: Callable[[InputContext], Dataset],
                                          options: InputOptions | None = None) -> Any:
        """Calls ``dataset_fn(InputContext(W, i, N))`` once per host i; each replica of a host dequeues the next
        element of that host's dataset in turn (no rebatching, no sharding)."""
        input_lib.validate_options(options, from_function=True)
        return self._extended._distribute_datasets_from_function(dataset_fn, options)

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    def experimental_make_numpy_dataset(self, numpy_input: Any, session: object = None) -> Dataset:
        """A dataset of the rows of `numpy_input` (a nest of arrays, copied to the host; lists are stacked)."""
        return input_lib.make_numpy_dataset(numpy_input)

    def __copy__(self) -> StrategyBase:
        raise RuntimeError("Must only deepcopy DistributionStrategy.")

    def __deepcopy__(self, memo: dict[int, Any]) -> StrategyBase:
        result = type(self).__new__(type(self))
        memo[id(self)] = result
        result.__dict__.update(self.__dict__)
        extended = copy.copy(self._extended)  # devices are shared, like TF's device strings
        extended.__dict__.pop("_replica_contexts_by_thread", None)  # they belong to the original strategy
        extended._container_strategy_ref = result
        result._extended = extended
        return result

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} object at {id(self):#x}>"

    def _repr_html_(self) -> str:
        """Jupyter: replicas → the cores they run on → hosts."""
        return distribute_pictures.strategy_html(self)


class Strategy(StrategyBase):
    """``tf.distribute.Strategy`` (TF 2.x)."""

    def gather(self, value: Any, axis: int) -> Any:
        """Concatenates the components of `value` along `axis` onto the current device (cross-replica only)."""
        require_cross_replica(self._extended, "tf.distribute.Strategy.gather method requires cross-replica "
                              "context, use get_replica_context().all_gather() instead")
        cross_replica_ops.reject_indexed_slices(value, "gather")
        return self._extended._gather_to(value, axis, [cross_replica_ops.current_device()])

    def group(self, value: object, name: str | None = None) -> None:
        """``Strategy.group``: groups the ops of `value` into one op; eager ops have already run, so None, as
        TF's eager group gives."""
        return None

    def experimental_distribute_values_from_function(self, value_fn: Callable[[ValueContext], Any]) -> Any:
        """``value_fn(ValueContext(i, N))`` on each replica's device, always wrapped in PerReplica."""
        return self._extended._distribute_values_from_function(value_fn)


class StrategyV1(StrategyBase):
    """``tf.compat.v1.distribute.Strategy``: no gather, ``reduce`` axis optional, iterator-based input."""

    def experimental_run(self, fn: Callable[..., Any], input_iterator: Any = None) -> Any:
        """``run(fn, args=(input_iterator.get_next(),))``; ``run(fn)`` when no iterator is given."""
        inputs = input_iterator.get_next() if input_iterator is not None else None
        return self.run(fn, args=(inputs,) if input_iterator is not None else ())

    def make_dataset_iterator(self, dataset: Dataset) -> input_lib.DistributedIteratorV1:
        """An iterator (with ``initialize``) over ``experimental_distribute_dataset(dataset)``."""
        return input_lib.DistributedIteratorV1(self.experimental_distribute_dataset(dataset))

    def make_input_fn_iterator(self, input_fn: Callable[[InputContext], Dataset],
                               replication_mode: InputReplicationMode = InputReplicationMode.PER_WORKER,
                               ) -> input_lib.DistributedIteratorV1:
        """An iterator (with ``initialize``) over the datasets ``input_fn(InputContext)`` returns per host."""
        if replication_mode != InputReplicationMode.PER_WORKER:
            raise ValueError(f"Input replication mode not supported: {replication_mode!r}")
        return input_lib.DistributedIteratorV1(self.distribute_datasets_from_function(input_fn))


# ---------------------------------------------------------------------------------------------------------
# The default strategy: one replica, no distribution; current whenever no other strategy is.


class _DefaultDistributionExtended(StrategyExtendedV1):
    def _replica_devices(self) -> list[_core.devices.Device]:
        return [cross_replica_ops.current_device()]

    def _call_for_each_replica(self, fn: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        with ReplicaContext(self._container_strategy(), replica_id_in_sync_group=0):
            return fn(*args, **kwargs)

    def _reduce_to(self, reduce_op: Any, value: Any, destinations: Any, options: Any = None) -> Any:
        return value

    @property
    def worker_devices(self) -> tuple[str, ...]:
        """Unsupported by the default strategy: raises RuntimeError."""
        raise RuntimeError("worker_devices() method unsupported by default tf.distribute.Strategy.")

    @property
    def parameter_devices(self) -> tuple[str, ...]:
        """Unsupported by the default strategy: raises RuntimeError."""
        raise RuntimeError("parameter_devices() method unsupported by default tf.distribute.Strategy.")

    def _create_variable(self, next_creator: Callable[..., Any], **kwargs: Any) -> Any:
        return next_creator(**kwargs)

    def variable_created_in_scope(self, v: object) -> bool:
        """Whether `v` belongs to no distribution strategy (so was created in the default one)."""
        return getattr(v, "_distribute_strategy", None) is None

    def _distribute_values_from_function(self, value_fn: Callable[[ValueContext], Any]) -> Any:
        return value_fn(ValueContext())

    def _experimental_distribute_dataset(self, dataset: Any, options: Any) -> Any:
        return dataset

    def _distribute_datasets_from_function(self, dataset_fn: Callable[..., Any], options: Any) -> Any:
        return dataset_fn(InputContext())


class _DefaultScope:
    """The default strategy's scope: only checks that no other strategy is current."""

    def __init__(self, strategy: StrategyBase) -> None:
        self._strategy = strategy

    def __enter__(self) -> StrategyBase:
        top = _top_mode()  # ds_context.has_strategy(), inlined: None (no scope) is the default strategy's mode
        if top is not None and top.strategy is not ds_context.default_strategy():
            raise RuntimeError("Must not nest tf.distribute.Strategy scopes.")
        return self._strategy

    def __exit__(self, *exc_info: object) -> Literal[False]:
        return False


class _DefaultDistributionStrategy(StrategyV1, Strategy):
    def __init__(self) -> None:
        super().__init__(_DefaultDistributionExtended(self))

    def scope(self) -> _DefaultScope:
        return _DefaultScope(self)

    def run(self, fn: Callable[..., Any], args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None,
            options: RunOptions | None = None) -> Any:
        if not isinstance(args, (list, tuple)):
            raise ValueError(f"positional args must be a list or tuple, got {type(args)}")
        return self._extended._call_for_each_replica(fn, args, kwargs or {})

    def __deepcopy__(self, memo: dict[int, Any]) -> StrategyBase:
        raise NotImplementedError("Should never use the default strategy in deepcopy")


_top_mode = _core.runtime.current_mode  # the top of the current context's mode stack, or None
_default_strategy = _DefaultDistributionStrategy()
_default_replica_context = DefaultReplicaContext(_default_strategy, replica_id_in_sync_group=0)
ds_context.set_default_mode(_default_strategy, _default_replica_context)


def _get_default_strategy() -> _DefaultDistributionStrategy:
    return _default_strategy


def _get_default_replica_context() -> DefaultReplicaContext:
    return _default_replica_context


__all__ = ["ReplicaContext", "Strategy", "StrategyExtended", "StrategyV1"]
