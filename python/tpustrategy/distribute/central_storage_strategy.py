"""``tf.distribute.experimental.CentralStorageStrategy``: replicas compute on the compute devices as in
MirroredStrategy, but each variable lives once, on the parameter device, wrapped in an ``AggregatingVariable``:
a replica-context write goes through ``merge_call``, reduces the replicas' values with the variable's aggregation
and updates the one variable once (TF's ``ps_values.AggregatingVariable``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tpustrategy import _core, nest
from tpustrategy.distribute import distribute_lib
from tpustrategy.distribute import distribution_strategy_context as ds_context
from tpustrategy.distribute import values as values_lib
from tpustrategy.distribute.extended import require_cross_replica
from tpustrategy.distribute.mirrored_strategy import MirroredExtended
from tpustrategy.distribute.reduce_util import ReduceOp
from tpustrategy.framework import device_scope
from tpustrategy.framework.operators import TensorOperators
from tpustrategy.framework.tensor_shape import TensorShape
from tpustrategy.ops import array_ops
from tpustrategy.variables import Variable, VariableAggregation, VariableSynchronization, _as_enum

_NO_AGGREGATION = (
    "You must specify an aggregation method to update a AggregatingVariable in Replica Context. You can do so by "
    "passing an explicit value for argument `aggregation` to tf.Variable(..).e.g. `tf.Variable(..., "
    "aggregation=tf.VariableAggregation.SUM)``tf.VariableAggregation` lists the possible aggregation methods.This "
    "is required because AggregatingVariable are updated in replica context and the replicas' updates must be "
    "combined."
)


class AggregatingVariable(TensorOperators):
    """One variable on the parameter device that aggregates the replicas' writes."""

    _is_variable = True

    def __init__(self, strategy: Any, variable: Variable, aggregation: Any) -> None:
        self._distribute_strategy = strategy
        self._v = variable
        self._aggregation = aggregation
        variable._distributed_container = self
        variable._distribute_strategy = strategy

    def get(self) -> Variable:
        return self._v

    @property
    def name(self) -> str:
        return self._v.name

    @property
    def dtype(self) -> _core.tensor.DType:
        return self._v.dtype

    @property
    def shape(self) -> TensorShape:
        return self._v.shape

    @property
    def device(self) -> str:
        return self._v.device

    @property
    def trainable(self) -> bool:
        return self._v.trainable

    @property
    def synchronization(self) -> VariableSynchronization:
        return self._v.synchronization

    @property
    def aggregation(self) -> Any:
        return self._aggregation

    def value(self) -> Any:
        return array_ops.identity(self._v.value())  # a new tensor per read (per replica), as TF's reads are

    read_value = value

    def _as_tensor(self) -> _core.tensor.Tensor:
        return self._v.value()

    def numpy(self) -> Any:
        return self._v.numpy()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Any:
        import numpy as np

        array = np.asarray(self._v.value())
        return array.astype(dtype) if dtype is not None else array

    def __repr__(self) -> str:
        return repr(self._v)

    def assign(self, value: Any, use_locking: bool | None = None, name: str | None = None,
               read_value: bool = True) -> AggregatingVariable:
        return self._update("assign", value)

    def assign_add(self, delta: Any, use_locking: bool | None = None, name: str | None = None,
                   read_value: bool = True) -> AggregatingVariable:
        return self._update("assign_add", delta)

    def assign_sub(self, delta: Any, use_locking: bool | None = None, name: str | None = None,
                   read_value: bool = True) -> AggregatingVariable:
        return self._update("assign_sub", delta)

    def _update(self, method: str, value: Any) -> AggregatingVariable:
        mode = ds_context.current_mode()
        context = mode.replica_context
        if context is None or mode.strategy is not self._distribute_strategy \
                or ds_context.update_replica_id.get() is not None:  # not in this strategy's replica context
            getattr(self._v, method)(value)
            return self
        if self._aggregation == VariableAggregation.NONE:
            raise ValueError(_NO_AGGREGATION)
        context.merge_call(_aggregate_and_update, args=(self, method, value))
        return self


def _aggregate_and_update(strategy: Any, variable: AggregatingVariable, method: str, value: Any) -> None:
    if variable.aggregation == VariableAggregation.ONLY_FIRST_REPLICA:
        reduced = value.values[0] if isinstance(value, values_lib.DistributedValues) else value
    else:
        op = ReduceOp.from_variable_aggregation(variable.aggregation)
        reduced = strategy.extended._reduce_to(op, value, [variable._v._device])
    getattr(variable._v, method)(reduced)


class CentralStorageExtended(MirroredExtended):
    def __init__(self, container_strategy: Any, compute_devices: Sequence[str] | None,
                 parameter_device: str | None) -> None:
        super().__init__(container_strategy, compute_devices)
        if parameter_device is None:
            parameter_device = self._devices[0].name if len(self._devices) == 1 else "/device:CPU:0"
        self._parameter_device_name = parameter_device
        self._parameter_device = device_scope.resolve_device(parameter_device)

    @property
    def parameter_devices(self) -> tuple[str, ...]:
        """The one device that holds the variables (the parameter device)."""
        return (self._parameter_device_name,)

    def non_slot_devices(self, var_list: Sequence[Any]) -> Any:
        """TF's parameter-server rule: state is colocated with the first variable by name."""
        return min(var_list, key=lambda v: v.name)

    def update_non_slot(self, colocate_with: Any, fn: Callable[..., Any], args: Sequence[Any] = (),
                        kwargs: dict[str, Any] | None = None, group: bool = True) -> Any:
        """``fn(*args, **kwargs)`` once, on `colocate_with`'s device in its update context; the result as is
        (group) or as a tuple of local results per leaf."""
        require_cross_replica(self)
        if not callable(fn):
            raise TypeError(f"update_non_slot: `fn` must be callable, got {type(fn).__name__}: {fn!r}")
        token = ds_context.update_replica_id.set(0)
        try:
            with device_scope.device(getattr(colocate_with, "device", None) or None):
                result = fn(*args, **(kwargs or {}))
        finally:
            ds_context.update_replica_id.reset(token)
        return result if group else nest.map_structure(self._local_results, result)

    def _create_variable(self, next_creator: Callable[..., Any], **kwargs: Any) -> Any:
        synchronization = _as_enum(VariableSynchronization, kwargs.get("synchronization"), "synchronization")
        aggregation = _as_enum(VariableAggregation, kwargs.get("aggregation"), "aggregation")
        if synchronization == VariableSynchronization.NONE:
            raise ValueError("`NONE` variable synchronization mode is not supported with tf.distribute strategy. "
                             "Please change the `synchronization` for variable: " + str(kwargs.get("name")))
        context = ds_context.get_replica_context()
        if context is not None and context._run is not None:
            return context.merge_call(lambda strategy, per_replica: self._create_variable(
                next_creator, **values_lib.select_replica(0, per_replica)), args=(kwargs,))
        with device_scope.device_scope(self._parameter_device):
            variable = next_creator(**dict(kwargs, synchronization=synchronization, aggregation=aggregation))
        return AggregatingVariable(self._container_strategy(), variable, aggregation)


class CentralStorageStrategy(distribute_lib.Strategy):
    """Variables on one parameter device, computation replicated on the compute devices.

    Args:
      compute_devices: device names (default: as MirroredStrategy picks them).
      parameter_device: where variables live (default: the compute device when there is one, else CPU:0).
    """

    def __init__(self, compute_devices: Sequence[str] | None = None, parameter_device: str | None = None) -> None:
        super().__init__(CentralStorageExtended(self, compute_devices, parameter_device))


__all__ = ["AggregatingVariable", "CentralStorageStrategy"]
