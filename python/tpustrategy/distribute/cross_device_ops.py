"""``tf.distribute.CrossDeviceOps`` and its implementations (``ReductionToOneDevice``, ``NcclAllReduce``,
``HierarchicalCopyAllReduce``): TF's algorithms differ in how bytes move between GPUs; here every one runs the
engine's collectives (cross_replica_ops), so they give the same results, as TF's give the same values.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tpustrategy.distribute import cross_replica_ops
from tpustrategy.distribute.reduce_util import ReduceOp
from tpustrategy.distribute.values import DistributedValues


def _check_reduce_op(reduce_op: object) -> None:
    if not isinstance(reduce_op, ReduceOp):
        raise ValueError("`reduce_op` must be Reduce.SUM or Reduce.MEAN.")


class CrossDeviceOps:
    """Reduces and broadcasts values across devices (``MirroredStrategy(cross_device_ops=...)``)."""

    def reduce(self, reduce_op: ReduceOp, per_replica_value: Any, destinations: Any, options: Any = None) -> Any:
        """The reduction of `per_replica_value`'s components onto `destinations` (one Tensor or Mirrored).

        A value that is not distributed counts as one replica's (SUM and MEAN give it back).
        """
        _check_reduce_op(reduce_op)
        devices = cross_replica_ops.destination_devices(destinations)
        if not isinstance(per_replica_value, DistributedValues):
            return cross_replica_ops.broadcast_to(per_replica_value, devices)
        return cross_replica_ops.reduce_to(reduce_op, per_replica_value, devices, len(per_replica_value.values))

    def batch_reduce(
        self, reduce_op: ReduceOp, value_destination_pairs: Sequence[tuple[Any, Any]], options: Any = None
    ) -> list[Any]:
        """``reduce`` over a list of (value, destinations) pairs."""
        _check_reduce_op(reduce_op)
        if not isinstance(value_destination_pairs, (list, tuple)) or not all(
                isinstance(p, tuple) and len(p) == 2 for p in value_destination_pairs):
            raise ValueError("value_destination_pairs should be a list or a tuple of (value, destinations) tuples")
        return [self.reduce(reduce_op, v, d, options) for v, d in value_destination_pairs]

    def broadcast(self, tensor: Any, destinations: Any) -> Any:
        """`tensor` copied onto each of `destinations`."""
        return cross_replica_ops.broadcast_to(tensor, cross_replica_ops.destination_devices(destinations))


class ReductionToOneDevice(CrossDeviceOps):
    """TF copies every value to one device and reduces there (`reduce_to_device`, `accumulation_fn`)."""

    def __init__(self, reduce_to_device: Any = None, accumulation_fn: Callable[..., Any] | None = None) -> None:
        if accumulation_fn is not None and not callable(accumulation_fn):
            raise TypeError(f"accumulation_fn must be callable, got {accumulation_fn!r}")
        self.reduce_to_device = reduce_to_device
        self.accumulation_fn = accumulation_fn


class AllReduceCrossDeviceOps(CrossDeviceOps):
    """TF's all-reduce families ('nccl' or 'hierarchical_copy') over `num_packs` packs."""

    def __init__(self, all_reduce_alg: str = "nccl", num_packs: int = 1) -> None:
        self._all_reduce_alg = all_reduce_alg
        self._num_packs = num_packs


class NcclAllReduce(AllReduceCrossDeviceOps):
    """``tf.distribute.NcclAllReduce``."""

    def __init__(self, num_packs: int = 1) -> None:
        if num_packs < 0:
            raise ValueError(f"NCCL all-reduce requires num_packs >= 0, but {num_packs} is specified")
        super().__init__(all_reduce_alg="nccl", num_packs=num_packs)


class HierarchicalCopyAllReduce(AllReduceCrossDeviceOps):
    """``tf.distribute.HierarchicalCopyAllReduce``."""

    def __init__(self, num_packs: int = 1) -> None:
        if num_packs < 0:
            raise ValueError(f"HierarchicalCopy requires num_packs >= 0, but {num_packs} is specified")
        super().__init__(all_reduce_alg="hierarchical_copy", num_packs=num_packs)


__all__ = ["CrossDeviceOps", "HierarchicalCopyAllReduce", "NcclAllReduce", "ReductionToOneDevice"]
