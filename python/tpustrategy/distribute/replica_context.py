"""``tf.distribute.ReplicaContext``: what a replica function sees of its strategy.

Inside ``Strategy.run`` every replica has one, bound to that run's scheduler; ``all_reduce``,
``all_gather`` and ``merge_call`` are synchronisation points (see scheduler.py). Replica ids are
int32 scalar tensors made at each read on the replica's device, as TensorFlow's are; the default context
outside any strategy answers the Python int 0 (TF's ``_DefaultReplicaContext``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tpustrategy import _core, errors, nest
from tpustrategy.distribute import collective_gradients, collective_util, cross_replica_ops
from tpustrategy.distribute import distribution_strategy_context as ds_context
from tpustrategy.distribute import values as values_lib
from tpustrategy.distribute.reduce_util import ReduceOp, as_reduce_op
from tpustrategy.distribute.scheduler import _PARKED

if TYPE_CHECKING:
    from tpustrategy.distribute.distribute_lib import StrategyBase
    from tpustrategy.distribute.scheduler import ReplicaRun


def _validate_replica_id(replica_id: object) -> int | np.integer[Any] | _core.tensor.Tensor | None:
    if replica_id is None or isinstance(replica_id, _core.tensor.Tensor):
        return replica_id
    if isinstance(replica_id, (int, np.integer)) and not isinstance(replica_id, bool):
        return replica_id
    raise ValueError(f"replica_id_in_sync_group can only be an integer, a Tensor or None, got {replica_id!r}")


def _structure_of(value: object, count: int) -> str:
    """What must match between replicas besides the leaves: the nest's structure (keys, lengths, types),
    as TF's ``assert_same_structure`` compares it. Leaves are replaced by ``*``."""
    return repr(nest.pack_sequence_as(value, [_Leaf()] * count))


_OP_NAMES = {op: op.value for op in ReduceOp}  # a dict lookup: an enum's .value is a descriptor call
# all_reduce's fast path: op names looked up by a str key (a ReduceOp key would hash through a Python-level
# Enum.__hash__); other spellings ("Sum") take the general path, through as_reduce_op.
_FAST_OP_NAMES = {name: op.value for op in ReduceOp for name in (op.value, op.value.lower())}
_BY_NAME = {op.value: op for op in ReduceOp}
_Tensor = _core.tensor.Tensor
_recording = _core.autodiff.recording


class _Leaf:
    __slots__ = ()

    def __repr__(self) -> str:
        return "*"


class ReplicaContext:
    """The context of one replica: its id, its strategy, and the cross-replica operations."""

    def __init__(self, strategy: StrategyBase, replica_id_in_sync_group: object) -> None:
        self._strategy = strategy
        self._replica_id_in_sync_group = _validate_replica_id(replica_id_in_sync_group)
        rid = self._replica_id_in_sync_group
        self._replica_id = (0 if rid is None else int(np.asarray(rid)) if isinstance(rid, _core.tensor.Tensor)
                            else int(rid))
        # This replica's place among the replicas run here (the scheduler's index). It is the replica id,
        # except in a multi-process slice, where a process runs a block of the ids.
        self._position = self._replica_id
        self._run: ReplicaRun | None = None  # the scheduler's ReplicaRun inside Strategy.run
        self._mode = ds_context.replica_mode(self)

    def __enter__(self) -> ReplicaContext:
        ds_context.push_mode(self._mode)
        return self

    def __exit__(self, *exc_info: object) -> None:
        ds_context.pop_mode(self._mode)

    @property
    def strategy(self) -> StrategyBase:
        """The strategy running this replica."""
        return self._strategy

    @property
    def num_replicas_in_sync(self) -> int:
        """The strategy's number of replicas."""
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self) -> int | _core.tensor.Tensor | None:
        """This replica's index in [0, num_replicas_in_sync): an int32 scalar tensor, made at each read on the
        current (the replica's) device, as TF makes it (``.numpy()``, arithmetic and ``tf.cast`` work on it).

        An id given as a tensor is returned as is; the default context outside any strategy gives the int 0.
        """
        rid = self._replica_id_in_sync_group
        if rid is None or isinstance(rid, _core.tensor.Tensor):
            return rid
        replica_id: _core.tensor.Tensor = _core.tensor.constant(np.int32(rid))
        return replica_id

    @property
    def devices(self) -> tuple[str, ...]:
        """The device(s) this replica runs on."""
        return self._strategy.extended._devices_of_replica(self._replica_id)

    def _destination_devices(self) -> list[_core.devices.Device]:
        return self._strategy.extended._replica_devices()

    def merge_call(self, merge_fn: Callable[..., Any], args: Sequence[Any] = (),
                   kwargs: dict[str, Any] | None = None) -> Any:
        """Runs ``merge_fn(strategy, *args, **kwargs)`` once, in cross-replica context, with every
        replica's arguments regrouped into distributed values; each replica gets its share of the result.

        Every replica must call merge_call the same number of times (else RuntimeError).
        """
        kwargs = kwargs or {}
        if self._run is None:
            return self._merge_locally(merge_fn, args, kwargs)
        strategy = self._strategy
        n = self._run.num_replicas  # the replicas run here (a multi-process slice's other ones merge there)

        def combine(contributions: list[tuple[tuple[Any, ...], dict[str, Any]]]) -> list[Any]:
            merged_args = values_lib.regroup([c[0] for c in contributions])
            merged_kwargs = values_lib.regroup([c[1] for c in contributions])
            mode = ds_context.cross_replica_mode(strategy)
            ds_context.push_mode(mode)
            try:
                result = merge_fn(strategy, *merged_args, **merged_kwargs)
            finally:
                ds_context.pop_mode(mode)
            return [values_lib.select_replica(i, result) for i in range(n)]

        contribution = (tuple(args), kwargs)
        # Checked in C++ before merge_fn sees anything: every replica's arguments have one structure.
        structure = _structure_of(contribution, len(nest.flatten(contribution))) if args or kwargs else ""
        return self._run.merge(self._position, contribution, combine, structure)

    def _merge_locally(self, merge_fn: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        mode = ds_context.cross_replica_mode(self._strategy)
        ds_context.push_mode(mode)
        try:
            return merge_fn(self._strategy, *args, **kwargs)
        finally:
            ds_context.pop_mode(mode)

    @contextlib.contextmanager
    def _collective_options(self, options: collective_util.CommunicationOptions | None) -> Iterator[None]:
        """In a multi-process slice, the call's options (merged over the strategy's) bound the collective's wait."""
        process_slice = getattr(self._strategy.extended, "_process_slice", None)
        if options is None or process_slice is None:
            yield
            return
        process_slice._apply_options(options)
        try:
            yield
        finally:
            process_slice._apply_options(None)

    def all_reduce(self, reduce_op: ReduceOp | str, value: Any,
                   options: collective_util.CommunicationOptions | None = None) -> Any:
        """Reduces the nest `value` across replicas; every replica gets the result, in `value`'s structure.

        Every replica must call it in the same order with the same dtypes and shapes.
        """
        run = self._run
        if options is None and type(value) is _Tensor and run is not None and run.num_replicas != 1 and \
                run.devices_of is not None:
            # The common case, one tensor (no nest to walk) and the op given as a ReduceOp or "SUM" / "sum" ...: what
            # the general path does, in one call into C++ (every replica of every step comes here: no Python call
            # that is not needed), which declines (None) a dtype the general path rejects and a MEAN it must divide.
            kind = type(reduce_op)
            # (mypy does not narrow on `type(x) is`, which costs less than isinstance here.)
            name = (_FAST_OP_NAMES.get(reduce_op) if kind is str  # type: ignore[arg-type]
                    else reduce_op._value_ if kind is ReduceOp else None)  # type: ignore[union-attr]
            if name is not None:
                result = run._rendezvous.park_all_reduce(  # type: ignore[union-attr]  # set during the run
                    self._position, name, value, run.devices_of(), run._driver, _PARKED)
                if result is not None:
                    if _recording():
                        return collective_gradients.record_all_reduce(self, _BY_NAME[name], [value], [result])[0]
                    return result
        op = as_reduce_op(reduce_op)
        options = collective_util.check_options(options, "ReplicaContext.all_reduce")
        nested = nest.is_nested(value)
        leaves = [_core.tensor.convert_to_tensor(v) for v in nest.flatten(value)] if nested else \
            [_core.tensor.convert_to_tensor(value)]
        if self._run is None:
            if self.num_replicas_in_sync != 1:
                raise RuntimeError("all_reduce needs the ReplicaContext that Strategy.run provides")
            return nest.pack_sequence_as(value, leaves) if nested else leaves[0]
        _check_collective_dtypes(leaves, self)
        structure = _structure_of(value, len(leaves)) if nested else ""
        # TF's MEAN of integers is sum / n with true division (float64): reduce with SUM, divide here.
        integer_mean = op == ReduceOp.MEAN and any(t.dtype.is_integer for t in leaves)
        with self._collective_options(options):
            results = self._run.collective(self._position, "all_reduce", leaves, self._destination_devices(),
                                           op="SUM" if integer_mean else _OP_NAMES[op], structure=structure)
        if integer_mean:
            # float leaves of the nest: TF too sums, then divides
            results = _divide_each(results, self.num_replicas_in_sync)
        results = collective_gradients.record_all_reduce(self, op, leaves, results)
        return nest.pack_sequence_as(value, results) if nested else results[0]

    def all_gather(self, value: Any, axis: int, options: collective_util.CommunicationOptions | None = None) -> Any:
        """Concatenates the nest `value` across replicas along `axis`, in replica order, on every replica."""
        cross_replica_ops.reject_indexed_slices(value, "all_gather")
        options = collective_util.check_options(options, "ReplicaContext.all_gather")
        leaves = [_core.tensor.convert_to_tensor(v) for v in nest.flatten(value)]
        for t in leaves:
            if t.ndim == 0:
                raise ValueError("all_gather cannot gather rank-0 (scalar) values; expand them to rank 1 first")
        if self._run is None:
            if self.num_replicas_in_sync != 1:
                raise RuntimeError("all_gather needs the ReplicaContext that Strategy.run provides")
            return nest.pack_sequence_as(value, leaves)
        self._strategy.extended._check_gather_components(leaves, axis)
        structure = _structure_of(value, len(leaves)) if nest.is_nested(value) else ""
        # Sizes along the axis may differ between replicas: TF's collectives pad to the longest and slice. (On a
        # TPU, TF traces one program, so its replicas cannot differ; the simulator gathers them as Mirrored does.)
        with self._collective_options(options):
            results = self._run.collective(self._position, "all_gather", leaves, self._destination_devices(),
                                           axis=axis, structure=structure, ragged=True)
        results = collective_gradients.record_all_gather(self, axis, leaves, results)
        return nest.pack_sequence_as(value, results)


# The dtypes TF 2.21's cross-replica all_reduce (CollectiveReduceV2) accepts, and bool; Strategy.reduce takes every
# dtype.
_ALL_REDUCE_ACCEPTS = frozenset(("bfloat16", "float32", "float16", "float64", "int32", "int64", "bool"))


def _divide_each(tensors: list[_core.tensor.Tensor], n: int) -> list[_core.tensor.Tensor]:
    """`tensors` divided by `n` (a MEAN of integers). A function of its own: a comprehension over `n` in all_reduce
    would make `n` a cell, created at every call of all_reduce, on every replica of every step (issue #11)."""
    from tpustrategy.ops import math_ops

    return [math_ops.divide(t, n) for t in tensors]


def _check_collective_dtypes(leaves: list[_core.tensor.Tensor], context: ReplicaContext) -> None:
    for t in leaves:
        name = t.dtype.name
        # TF runs no collective for one replica (asked only for a dtype the collective would reject).
        if name not in _ALL_REDUCE_ACCEPTS and context.num_replicas_in_sync != 1:
            raise errors.InvalidArgumentError(
                None, None, f"Value for attr 'T' of {name} is not in the list of allowed values: bfloat16, "
                "float, half, double, int32, int64 (all_reduce in replica context; cast first, or use "
                "Strategy.reduce, which takes every dtype)")


class DefaultReplicaContext(ReplicaContext):
    """The replica context outside every strategy: its replica id is the Python int 0 (TF makes no tensor there)."""

    @property
    def replica_id_in_sync_group(self) -> int:
        return 0


__all__ = ["ReduceOp", "ReplicaContext"]
