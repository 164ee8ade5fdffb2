"""TF's TPU collectives inside ``Strategy.run``: ``cross_replica_sum``, ``all_to_all`` and
``collective_permute`` (``tf.compat.v1.tpu.*``; the raw ops are ``tpustrategy.raw_ops``).

Each is a synchronisation point of the run, validated by the C++ Rendezvous against every replica's
call (same op, dtype, shape, group_assignment, ...) and run through the Communicator, within each
group of ``group_assignment`` (its subgroups). Arguments are checked as TF checks them, before any
data moves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from tpustrategy import _core

if TYPE_CHECKING:
    from tpustrategy.distribute.replica_context import ReplicaContext
    from tpustrategy.errors import OpError


def _replica_context(op: str) -> ReplicaContext:
    # lazy: tpustrategy.tpu loads before tpustrategy.distribute (config -> tpu), and these ops need the
    # replica context only when called inside Strategy.run.
    from tpustrategy.distribute import distribution_strategy_context as ds_context

    context = ds_context.get_replica_context()
    if context is None:
        raise RuntimeError(f"{op} is a cross-replica collective: call it inside Strategy.run (replica context)")
    return context


def _int_matrix(value: Any, name: str, op: str, columns: int | None = None) -> list[list[int]]:
    try:
        array = np.asarray(value.numpy() if isinstance(value, _core.tensor.Tensor) else value)
    except ValueError:  # ragged: as TF, which cannot convert a non-rectangular list to a tensor
        raise ValueError(f"{op}: {name} must be rectangular (groups of one size), got {value!r}") from None
    if array.size == 0 and columns is not None:
        return []
    if array.ndim != 2 or (columns is not None and array.shape[1] != columns):
        want = f"[n, {columns}]" if columns is not None else "[num_groups, num_replicas_per_group]"
        raise ValueError(f"{op}: {name} must be a 2-D list of shape {want}, got shape {list(array.shape)}")
    if not np.issubdtype(array.dtype, np.integer):
        raise TypeError(f"{op}: {name} must hold integers, got {array.dtype}")
    matrix: list[list[int]] = array.astype(np.int64).tolist()
    return matrix


def _groups(group_assignment: Any, op: str) -> list[list[int]]:
    return [] if group_assignment is None else _int_matrix(group_assignment, "group_assignment", op)


def _run_collective(op_name: str, x: Any, kind: str, **kwargs: Any) -> Any:
    context = _replica_context(op_name)
    tensor = _core.tensor.convert_to_tensor(x)
    run = context._run
    if run is None:
        if context.num_replicas_in_sync != 1:
            raise RuntimeError(f"{op_name} needs the ReplicaContext that Strategy.run provides")
        from tpustrategy.distribute.scheduler import ReplicaRun

        run = ReplicaRun(1)  # one replica: the collective over a group of one
        try:
            return run.collective(0, kind, [tensor], [], **kwargs)[0]  # result on the input's device
        finally:
            run._return_rendezvous()
    return run.collective(context._position, kind, [tensor], context._destination_devices(), **kwargs)[0]


def cross_replica_sum(x: Any, group_assignment: Any = None, name: str | None = None) -> Any:
    """Sums `x` across the replicas of each group of `group_assignment` (default: one group of all).

    Args:
      x: the local tensor.
      group_assignment: optional 2-D int list [num_groups, num_replicas_per_group]; group i lists the
        replica ids of subgroup i. The groups must partition the replicas into groups of one size.
      name: ignored (TF's op name).
    """
    del name
    return _run_collective("cross_replica_sum", x, "all_reduce", op="SUM",
                           groups=_groups(group_assignment, "cross_replica_sum"))


def all_to_all(x: Any, concat_dimension: int, split_dimension: int, split_count: int, group_assignment: Any = None,
               name: str | None = None) -> Any:
    """Exchanges data across replicas: `x` is split along `split_dimension` into `split_count` pieces,
    piece j goes to the j-th replica of this replica's group, and the pieces received are concatenated
    along `concat_dimension` in group order. `split_count` must equal the group size."""
    del name
    op = "all_to_all"
    for arg, value in (("concat_dimension", concat_dimension), ("split_dimension", split_dimension),
                       ("split_count", split_count)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{op}: {arg} must be an int, got {type(value).__name__}: {value!r}")
    context = _replica_context(op)
    tensor = _core.tensor.convert_to_tensor(x)
    groups = _groups(group_assignment, op)
    group_size = len(groups[0]) if groups else context.num_replicas_in_sync
    if split_count != group_size:
        raise _core_error("InvalidArgumentError", f"{op}: split_count {split_count} must equal the group size "
                          f"{group_size}")
    rank = len(tensor._shape_tuple)
    for arg, value in (("concat_dimension", concat_dimension), ("split_dimension", split_dimension)):
        if not 0 <= value < rank:
            raise _core_error("InvalidArgumentError", f"{op}: {arg} {value} is out of range for a rank-{rank} input")
    if tensor._shape_tuple[split_dimension] % split_count:
        raise _core_error("InvalidArgumentError", f"{op}: input dimension {split_dimension} "
                          f"({tensor._shape_tuple[split_dimension]}) must be divisible by split_count {split_count}")
    return _run_collective(op, tensor, "all_to_all", axis=int(concat_dimension), groups=groups,
                           split_axis=int(split_dimension))


def collective_permute(x: Any, source_target_pairs: Any, name: str | None = None) -> Any:
    """Sends replica a's `x` to replica b for each pair [a, b]; a replica no pair targets gets zeros.
    Each replica id may appear at most once as a source and once as a target."""
    del name
    pairs = _int_matrix(source_target_pairs, "source_target_pairs", "collective_permute", columns=2)
    return _run_collective("collective_permute", x, "collective_permute", pairs=[tuple(p) for p in pairs])


def _core_error(name: str, message: str) -> OpError:
    from tpustrategy import errors

    error: OpError = getattr(errors, name)(None, None, message)
    return error


__all__ = ["all_to_all", "collective_permute", "cross_replica_sum"]
