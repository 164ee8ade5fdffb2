"""TPU strategies: ``tf.distribute.TPUStrategy``, the r1.15 ``experimental.TPUStrategy`` and compat.v1's.

Simulator deviation (SEMANTICS.md §2.2): TensorFlow traces `fn` once with XLA; here `run` accepts any callable and
executes it once per replica on that replica's simulated core, in replica order, so Python side effects happen once
per replica. Outputs are converted to tensors, so with more than one replica `run` always returns PerReplica.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable, Sequence
from typing import Any

from tpustrategy import _core, nest
from tpustrategy.distribute import distribute_lib
from tpustrategy.distribute import distribution_strategy_context as ds_context
from tpustrategy.distribute import values as values_lib
from tpustrategy.distribute.cluster_resolver import ClusterResolver
from tpustrategy.distribute.distribute_options import RunOptions
from tpustrategy.distribute.tpu_extended import TPUExtended
from tpustrategy.tpu.device_assignment import DeviceAssignment
from tpustrategy.tpu.sharded_tensor import ShardedTensor

_logger = logging.getLogger("tpustrategy")


def sharding_of(tensor: object) -> _core.spmd.Sharding | None:
    """The sharding an annotation gave `tensor` (a ShardedTensor), None for any other value."""
    return tensor.sharding if isinstance(tensor, ShardedTensor) else None


def _is_distributed_variable_arg(value: object) -> bool:
    """TF's test: the first leaf of the (possibly nested) argument is a distributed variable."""
    flat = nest.flatten(value)
    return bool(flat) and values_lib.is_distributed_variable(flat[0])


def _bind_variable_args(fn: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any] | None,
                        ) -> tuple[Callable[..., Any], Sequence[Any], dict[str, Any]]:
    """Moves distributed variables passed to ``TPUStrategy.run`` into keyword arguments bound to `fn`.

    TF does this so that a variable reaches `fn` as the variable rather than as a tensor of its value; to
    move a positional variable it names every positional argument after the parameters of `fn`, which
    rules out variables passed through ``*args`` (or mixed with them) and positional-only parameters.
    Returns `(fn, args, kwargs)` unchanged when no variable is passed.

    Raises:
      ValueError: the cases TF rejects (variables with positional-only parameters, variables in ``*args``,
        variables mixed with ``*args``, more positional arguments than `fn` names).
    """
    kwargs = dict(kwargs or {})
    variable_kwargs = {k: v for k, v in kwargs.items() if _is_distributed_variable_arg(v)}
    variable_args = [a for a in args if _is_distributed_variable_arg(a)]
    if not variable_kwargs and not variable_args:
        return fn, args, kwargs
    other_kwargs = {k: v for k, v in kwargs.items() if k not in variable_kwargs}

    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature: variables stay positional
        return fn, args, kwargs
    positional_names: list[str] = []
    star_args_index = None
    for index, parameter in enumerate(parameters):
        if index == 0 and parameter.name == "self":
            continue
        if parameter.kind == inspect.Parameter.POSITIONAL_OR_KEYWORD:
            positional_names.append(parameter.name)
        elif parameter.kind == inspect.Parameter.VAR_POSITIONAL:
            star_args_index = index
        elif parameter.kind == inspect.Parameter.POSITIONAL_ONLY:
            raise ValueError(
                "Mixing Variables and positional-only parameters not supported by TPUStrategy. Received "
                f"{len(variable_kwargs)} DistributedVariables in **kwargs and {len(variable_args)} in *args, "
                "expected zero for both."
            )

    star_args: list[Any] = []
    seen_variable = False
    for index, arg in enumerate(args):
        in_star_args = star_args_index is not None and index >= star_args_index
        if _is_distributed_variable_arg(arg):
            if in_star_args:
                raise ValueError("TPUStrategy.run() cannot handle Variables passed to *args. Either name the "
                                 "function argument, or capture the Variable implicitly.")
            seen_variable = True
        elif in_star_args:
            if seen_variable:
                raise ValueError("TPUStrategy.run() cannot handle both Variables and a mix of positional args "
                                 "and *args. Either remove the *args, or capture the Variable implicitly.")
            star_args.append(arg)
            continue
        if index >= len(positional_names):
            raise ValueError("Too many positional arguments passed to call to TPUStrategy.run().")
        target = variable_kwargs if _is_distributed_variable_arg(arg) else other_kwargs
        target[positional_names[index]] = arg
    return functools.partial(fn, **variable_kwargs), star_args, other_kwargs


class _TPUStrategyMethods(distribute_lib.StrategyBase):
    """What every TPU strategy adds to its base: the resolver and the logical-device API (SEMANTICS.md §4).
    (Comes first in a TPU strategy's bases; the StrategyBase base lets it name what it uses.)"""

    _extended: TPUExtended

    def run(self, fn: Callable[..., Any], args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None,
            options: RunOptions | None = None) -> Any:
        """Runs `fn` on every TPU replica (see ``Strategy.run``); outputs are tensors, so with more than one
        replica the result is PerReplica. Distributed variables in `args` are passed to `fn` by keyword."""
        if not isinstance(args, (list, tuple)):
            raise ValueError(f"positional args must be a list or tuple, got {type(args)}")
        fn, args, kwargs = _bind_variable_args(fn, args, kwargs)
        mode = ds_context.current_mode()
        if mode.replica_context is None and mode.strategy is not self and ds_context.has_strategy():
            # Inside another strategy's scope (cross-replica): TF's tpu_run enters no scope of its own, so a
            # TPUStrategy on a subset of the cores runs there (TF's TPU tests do this); its replicas see it.
            own = ds_context.cross_replica_mode(self)
            ds_context.push_mode(own)
            try:
                return self._extended._call_for_each_replica(fn, args, kwargs or {})
            finally:
                ds_context.pop_mode(own)
        return super().run(fn, args=args, kwargs=kwargs, options=options)

    @property
    def extended(self) -> TPUExtended:
        """The strategy's TPUExtended (what ``Strategy.extended`` is on a TPU strategy)."""
        return self._extended

    @property
    def cluster_resolver(self) -> Any:
        """The resolver passed to the constructor; a new local-slice TPUClusterResolver when none was."""
        return self._extended._tpu_cluster_resolver

    def experimental_assign_to_logical_device(self, tensor: Any, logical_device_id: int) -> ShardedTensor:
        """Places `tensor` on logical core `logical_device_id` of the replica (a maximal sharding)."""
        extended = self._extended
        if extended._spmd:
            raise ValueError(
                "Cannot assign a tensor to a logical device in SPMD mode. To disable SPMD, please "
                "construct the TPUStrategy with `experimental_spmd_xla_partitioning=False`"
            )
        count = extended._num_logical_devices
        if not 0 <= logical_device_id < count:
            raise ValueError(
                "`logical_core_id` to assign must be lower than the number of logical devices per replica "
                f"(got {logical_device_id}, there are {count})."
            )
        return self._extended._annotate(tensor, _core.spmd.Sharding.maximal(logical_device_id))

    def experimental_split_to_logical_devices(self, tensor: Any, partition_dimensions: Sequence[int]) -> ShardedTensor:
        """Splits `tensor` into tiles over the logical cores: ``partition_dimensions[i]`` pieces along axis i."""
        if not (getattr(tensor, "_spmd_partitioned", False) or values_lib.is_distributed_variable(tensor)):
            tensor = _core.tensor.convert_to_tensor(tensor)  # partitioned values and variables are resharded in place
        # Validated in TF's order (rank, divisibility, product) by the C++ sharding math.
        sharding = _core.spmd.Sharding.split(
            list(tensor.shape.as_list()), [int(p) for p in partition_dimensions], self._extended._num_logical_devices
        )
        return self._extended._annotate(tensor, sharding)

    def experimental_replicate_to_logical_devices(self, tensor: Any) -> ShardedTensor:
        """A full copy of `tensor` on every logical core of the replica."""
        return self._extended._annotate(tensor, _core.spmd.Sharding.replicated())


class TPUStrategyV2(_TPUStrategyMethods, distribute_lib.Strategy):
    """``tf.distribute.TPUStrategy``: synchronous training on the cores of a (simulated) TPU slice.

    Args:
      tpu_cluster_resolver: a TPUClusterResolver naming the slice (default: the local slice).
      experimental_device_assignment: a DeviceAssignment; one replica per assignment replica, with
        ``num_cores_per_replica`` logical devices each. Default: one replica per TPU core.
      experimental_spmd_xla_partitioning: partition each replica's program over its logical devices from the
        sharding annotations (``assign_to_logical_device`` becomes an error).
    """

    def __init__(
        self,
        tpu_cluster_resolver: ClusterResolver | None = None,
        experimental_device_assignment: DeviceAssignment | None = None,
        experimental_spmd_xla_partitioning: bool = False,
    ) -> None:
        super().__init__(
            TPUExtended(
                self, tpu_cluster_resolver, experimental_device_assignment, spmd=experimental_spmd_xla_partitioning
            )
        )


class TPUStrategy(_TPUStrategyMethods, distribute_lib.Strategy):
    """``tf.distribute.experimental.TPUStrategy`` (r1.15 / TF 2.0); deprecated in favour of TPUStrategy."""

    def __init__(self, tpu_cluster_resolver: ClusterResolver | None = None,
                 device_assignment: DeviceAssignment | None = None) -> None:
        _logger.warning(
            "`tf.distribute.experimental.TPUStrategy` is deprecated, please use the non-experimental "
            "symbol `tf.distribute.TPUStrategy` instead."
        )
        super().__init__(TPUExtended(self, tpu_cluster_resolver, device_assignment))


class TPUStrategyV1(_TPUStrategyMethods, distribute_lib.StrategyV1):
    """``tf.compat.v1.distribute.experimental.TPUStrategy``: adds ``steps_per_run`` (None → 1)."""

    def __init__(self, tpu_cluster_resolver: ClusterResolver | None = None, steps_per_run: int | None = None,
                 device_assignment: DeviceAssignment | None = None) -> None:
        super().__init__(TPUExtended(self, tpu_cluster_resolver, device_assignment, steps_per_run=steps_per_run))

    @property
    def steps_per_run(self) -> int:
        """Deprecated alias of ``extended.steps_per_run``."""
        return self._extended.steps_per_run
