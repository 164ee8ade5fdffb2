"""``tf.raw_ops``: the TPU collective ops by their op names (keyword arguments only, as in TF)."""

from __future__ import annotations

from typing import Any

from tpustrategy.tpu import tpu_ops


def CrossReplicaSum(*, input: Any, group_assignment: Any, name: str | None = None) -> Any:  # noqa: A002, N802 - TF's
    """Sums `input` within each group of `group_assignment` (2-D: [num_groups, replicas_per_group])."""
    return tpu_ops.cross_replica_sum(input, group_assignment, name=name)


def AllToAll(*, input: Any, group_assignment: Any, concat_dimension: int, split_dimension: int,  # noqa: A002, N802
             split_count: int, name: str | None = None) -> Any:
    """XLA AllToAll within each group of `group_assignment` (see ``tpu.all_to_all``)."""
    return tpu_ops.all_to_all(input, concat_dimension, split_dimension, split_count, group_assignment, name=name)


def CollectivePermute(*, input: Any, source_target_pairs: Any, name: str | None = None) -> Any:  # noqa: A002, N802
    """XLA CollectivePermute over replica ids (see ``tpu.collective_permute``)."""
    return tpu_ops.collective_permute(input, source_target_pairs, name=name)


__all__ = ["AllToAll", "CollectivePermute", "CrossReplicaSum"]
