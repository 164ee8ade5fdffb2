"""``tf.distribute.ReplicaContext``: what a replica function sees of its strategy.

Inside ``Strategy.run`` every replica has one, bound to that run's scheduler; ``all_reduce``,
``all_gather`` and ``merge_call`` are synchronisation points (see scheduler.py). Replica ids are
Python ints here (TensorFlow hands out int32 tensors inside ``run``); they convert to tensors wherever
a tensor is expected.
"""

from __future__ import annotations

import numpy as np

from tpustrategy import _core, nest
from tpustrategy.distribute import cross_replica_ops
from tpustrategy.distribute import distribution_strategy_context as ds_context
from tpustrategy.distribute import values as values_lib
from tpustrategy.distribute.reduce_util import ReduceOp, as_reduce_op


def _validate_replica_id(replica_id):
    if replica_id is None or isinstance(replica_id, _core.Tensor):
        return replica_id
    if isinstance(replica_id, (int, np.integer)) and not isinstance(replica_id, bool):
        return replica_id
    raise ValueError(f"replica_id_in_sync_group can only be an integer, a Tensor or None, got {replica_id!r}")


def _signature_of(tensors, axis=None) -> tuple:
    """What must match between replicas: dtype and shape of every leaf (any size along a gather axis)."""
    items = []
    for t in tensors:
        shape = list(t._shape_tuple)
        if axis is not None and shape:
            shape[axis % len(shape)] = "?"
        items.append(f"{t.dtype.name}{shape}")
    return tuple(items)


class ReplicaContext:
    """The context of one replica: its id, its strategy, and the cross-replica operations."""

    def __init__(self, strategy, replica_id_in_sync_group):
        self._strategy = strategy
        self._replica_id_in_sync_group = _validate_replica_id(replica_id_in_sync_group)
        rid = replica_id_in_sync_group
        self._replica_id = 0 if rid is None else int(np.asarray(rid)) if isinstance(rid, _core.Tensor) else int(rid)
        self._run = None  # the scheduler's ReplicaRun inside Strategy.run
        self._mode = ds_context.replica_mode(self)

    def __enter__(self):
        ds_context.push_mode(self._mode)
        return self

    def __exit__(self, *exc_info):
        ds_context.pop_mode(self._mode)

    @property
    def strategy(self):
        return self._strategy

    @property
    def num_replicas_in_sync(self) -> int:
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        """This replica's index in [0, num_replicas_in_sync).

        A Python int, here and in the default context (SEMANTICS.md §1.4/§2.1 fix the default context's int 0
        and nothing else). TF hands out an int32 tensor inside Mirrored/TPU replicas; the int converts to the
        same int32 tensor (``tf.identity(i)``, ``all_reduce``), and indexing / arithmetic give equal values.
        """
        return self._replica_id_in_sync_group

    @property
    def devices(self) -> tuple[str, ...]:
        """The device(s) this replica runs on."""
        return self._strategy.extended._devices_of_replica(self._replica_id)

    def _destination_devices(self):
        return self._strategy.extended._replica_devices()

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """Runs ``merge_fn(strategy, *args, **kwargs)`` once, in cross-replica context, with every
        replica's arguments regrouped into distributed values; each replica gets its share of the result.

        Every replica must call merge_call the same number of times (else RuntimeError).
        """
        kwargs = kwargs or {}
        if self._run is None:
            return self._merge_locally(merge_fn, args, kwargs)
        strategy = self._strategy
        n = self.num_replicas_in_sync

        def combine(contributions):
            merged_args = values_lib.regroup([c[0] for c in contributions])
            merged_kwargs = values_lib.regroup([c[1] for c in contributions])
            mode = ds_context.cross_replica_mode(strategy)
            ds_context.push_mode(mode)
            try:
                result = merge_fn(strategy, *merged_args, **merged_kwargs)
            finally:
                ds_context.pop_mode(mode)
            return [values_lib.select_replica(i, result) for i in range(n)]

        return self._run.synchronize(self._replica_id, ("merge_call",), (tuple(args), kwargs), combine)

    def _merge_locally(self, merge_fn, args, kwargs):
        mode = ds_context.cross_replica_mode(self._strategy)
        ds_context.push_mode(mode)
        try:
            return merge_fn(self._strategy, *args, **kwargs)
        finally:
            ds_context.pop_mode(mode)

    def all_reduce(self, reduce_op, value, options=None):
        """Reduces the nest `value` across replicas; every replica gets the result, in `value`'s structure.

        Every replica must call it in the same order with the same dtypes and shapes.
        """
        op = as_reduce_op(reduce_op)
        nested = nest.is_nested(value)
        leaves = [_core.convert_to_tensor(v) for v in nest.flatten(value)] if nested else \
            [_core.convert_to_tensor(value)]
        if self._run is None:
            if self.num_replicas_in_sync != 1:
                raise RuntimeError("all_reduce needs the ReplicaContext that Strategy.run provides")
            return nest.pack_sequence_as(value, leaves) if nested else leaves[0]
        n = self.num_replicas_in_sync

        def combine(contributions):
            devices = self._destination_devices()
            if not nested:  # the common case, kept cheap: one leaf
                return cross_replica_ops.all_reduce([c[0] for c in contributions], op, devices)
            per_leaf = [cross_replica_ops.all_reduce([c[k] for c in contributions], op, devices)
                        for k in range(len(leaves))]
            return [nest.pack_sequence_as(value, [results[i] for results in per_leaf]) for i in range(n)]

        signature = ("all_reduce", op.value, *_signature_of(leaves))
        return self._run.synchronize(self._replica_id, signature, leaves, combine)

    def all_gather(self, value, axis, options=None):
        """Concatenates the nest `value` across replicas along `axis`, in replica order, on every replica."""
        leaves = [_core.convert_to_tensor(v) for v in nest.flatten(value)]
        for t in leaves:
            if t.ndim == 0:
                raise ValueError("all_gather cannot gather rank-0 (scalar) values; expand them to rank 1 first")
        if self._run is None:
            if self.num_replicas_in_sync != 1:
                raise RuntimeError("all_gather needs the ReplicaContext that Strategy.run provides")
            return nest.pack_sequence_as(value, leaves)
        n = self.num_replicas_in_sync
        devices = self._destination_devices()
        self._strategy.extended._check_gather_components(leaves, axis)

        def combine(contributions):
            for k in range(len(leaves)):
                self._strategy.extended._check_gather_participants([c[k] for c in contributions])
            per_leaf = [_core.all_gather([c[k] for c in contributions], axis, devices) for k in range(len(leaves))]
            return [nest.pack_sequence_as(value, [results[i] for results in per_leaf]) for i in range(n)]

        signature = ("all_gather", f"axis={axis}", *_signature_of(leaves, axis))
        return self._run.synchronize(self._replica_id, signature, leaves, combine)


__all__ = ["ReduceOp", "ReplicaContext"]
