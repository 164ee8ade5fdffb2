"""Distributed variables: one component Variable per replica (SEMANTICS.md §2.6).

* MirroredVariable (ON_WRITE / AUTO): components are kept equal. Replica-context writes with an
  aggregation go through ``merge_call``: the replicas' values are reduced and every component updated.
* SyncOnReadVariable (ON_READ): each replica reads and writes its own component; a cross-replica
  read aggregates the components.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tpustrategy import _core
from tpustrategy.distribute import distribution_strategy_context as ds_context
from tpustrategy.distribute import values as values_lib
from tpustrategy.distribute.reduce_util import ReduceOp
from tpustrategy.framework import device_scope
from tpustrategy.framework.operators import TensorOperators
from tpustrategy.framework.tensor_shape import TensorShape
from tpustrategy.ops import math_ops
from tpustrategy.variables import Variable, VariableAggregation, VariableSynchronization, _as_enum


class DistributedVariable(TensorOperators, values_lib.DistributedValues):
    """Base of the distributed variables: the components live on the replicas' devices."""

    _is_distributed_variable = True
    _is_variable = True
    # A write: the subclass's rule (mirrored or sync-on-read). Declared only: no attribute here.
    _update: Callable[..., Any]
    _values: tuple[Variable, ...]  # the components, one per replica

    def __init__(self, strategy: Any, components: Sequence[Variable]) -> None:
        if not callable(getattr(strategy, "scope", None)) or not hasattr(strategy, "extended"):
            raise TypeError(
                f"{type(self).__name__}: `strategy` must be a tf.distribute.Strategy, "
                f"got {type(strategy).__name__}: {strategy!r}"
            )
        if not isinstance(components, (list, tuple)) or not components:
            raise TypeError(
                f"{type(self).__name__}: `components` must be a non-empty list of Variables (one per replica), "
                f"got {type(components).__name__}: {components!r}"
            )
        for component in components:
            if not isinstance(component, Variable):
                raise TypeError(
                    f"{type(self).__name__}: every component must be a Variable, got {type(component).__name__}"
                )
        super().__init__(components)
        self._distribute_strategy = strategy
        for component in components:
            component._distributed_container = self
            component._distribute_strategy = strategy

    # ---- which component ----
    def _replica_id(self) -> int | None:
        """The replica whose component reads and writes use, or None in cross-replica context."""
        mode = ds_context.current_mode()
        if mode.replica_context is not None and mode.strategy is self._distribute_strategy:
            return mode.replica_context._position
        return ds_context.update_replica_id.get()

    def _local(self) -> Variable | None:
        replica_id = self._replica_id()
        return self._values[replica_id] if replica_id is not None else None

    def _on_device_or_primary(self) -> Variable:
        current = device_scope.current_device()
        for component in self._values:
            if current is not None and component._device is current:
                return component
        return self._values[0]

    @property
    def _primary(self) -> Variable:
        return self._values[0]

    # ---- properties of the primary ----
    @property
    def name(self) -> str:
        """The first component's name (the others add ``/replica_<i>``)."""
        return self._primary.name

    @property
    def dtype(self) -> _core.tensor.DType:
        """The variable's dtype."""
        return self._primary.dtype

    @property
    def shape(self) -> TensorShape:
        """The variable's shape (every component has it)."""
        return self._primary.shape

    @property
    def trainable(self) -> bool:
        """Whether the variable is trainable."""
        return self._primary.trainable

    @property
    def synchronization(self) -> VariableSynchronization:
        """When the components are synchronized (ON_WRITE or ON_READ)."""
        return self._primary.synchronization

    @property
    def aggregation(self) -> Any:
        """How replica-context writes (mirrored) or cross-replica reads (sync-on-read) combine the replicas."""
        return self._primary.aggregation

    @property
    def device(self) -> str:
        """The device of this replica's component (in replica context), else of the first component."""
        return (self._local() or self._primary).device

    # ---- reading ----
    def _read_cross_replica(self) -> _core.tensor.Tensor:
        return self._on_device_or_primary().value()

    def value(self) -> _core.tensor.Tensor:
        """This replica's component's value in replica context; in cross-replica context the component on the
        current device (else the first) or, for a sync-on-read variable, the components aggregated.

        Raises:
          ValueError: a cross-replica read of a sync-on-read variable whose aggregation is NONE.
        """
        local = self._local()
        return local.value() if local is not None else self._read_cross_replica()

    read_value = value

    def _as_tensor(self) -> _core.tensor.Tensor:
        return self.value()

    def numpy(self) -> Any:
        """``value()`` as a NumPy array."""
        return self.value().numpy()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Any:
        import numpy as np

        array = np.asarray(self.value())
        return array.astype(dtype) if dtype is not None else array

    # ---- writing ----
    def assign(self, value: Any, use_locking: bool | None = None, name: str | None = None,
               read_value: bool = True) -> Any:
        """Writes `value` by the subclass's rule (MirroredVariable or SyncOnReadVariable); runs eagerly.

        `use_locking` and `name` are accepted for compatibility.

        Returns:
          In cross-replica context a Mirrored of the components' new values, or None when `read_value` is
          False; in replica context the written variable or its new value.

        Raises:
          TypeError: a PerReplica value written to an aggregated MirroredVariable in cross-replica context.
          ValueError: a cross-replica ``assign_add`` / ``assign_sub`` on a SUM-aggregated SyncOnReadVariable.
        """
        return self._update("assign", value, read_value)

    def assign_add(self, delta: Any, use_locking: bool | None = None, name: str | None = None,
                   read_value: bool = True) -> Any:
        """Adds `delta`, with ``assign``'s rules, arguments, results and errors."""
        return self._update("assign_add", delta, read_value)

    def assign_sub(self, delta: Any, use_locking: bool | None = None, name: str | None = None,
                   read_value: bool = True) -> Any:
        """Subtracts `delta`, with ``assign``'s rules, arguments, results and errors."""
        return self._update("assign_sub", delta, read_value)

    def _update_each(self, method: str, value: Any) -> None:
        for i, component in enumerate(self._values):
            getattr(component, method)(values_lib.select_replica(i, value))


class MirroredVariable(DistributedVariable):
    """A variable kept equal on every replica (synchronization ON_WRITE)."""

    def _update(self, method: str, value: Any, read_value: bool = True) -> Any:
        local = self._local()
        if local is None:  # cross-replica: every component
            if isinstance(value, values_lib.PerReplica) and self.aggregation != VariableAggregation.NONE:
                raise TypeError(f"Expected value to be mirrored across replicas: {value!r} in {method} of "
                                f"{self.name}")
            self._update_each(method, value)
            return _updated_values(self, read_value)
        context = ds_context.get_replica_context()
        if self.aggregation == VariableAggregation.NONE or context is None:
            # NONE, or inside extended.update (cross-replica, one component at a time): the local component
            getattr(local, method)(value)
            return self
        # Each replica gets its component's new value (TF: the merge_fn's Mirrored, selected per replica).
        return context.merge_call(_aggregate_and_update, args=(self, method, value, read_value))


def _updated_values(variable: DistributedVariable, read_value: bool) -> values_lib.Mirrored | None:
    """What TF's cross-replica update of a mirrored variable returns (distribute_utils.update_regroup): a Mirrored
    of every component's new value as a tensor (the component itself when there is one), None without
    read_value."""
    if not read_value:
        return None
    components = variable.values
    if len(components) == 1:
        return values_lib.Mirrored(tuple(components))
    return values_lib.Mirrored(tuple(c.read_value() for c in components))


def _aggregate_and_update(strategy: Any, variable: DistributedVariable, method: str, value: Any,
                          read_value: bool = True) -> values_lib.Mirrored | None:
    """merge_fn of a replica-context write: reduce the replicas' values, then update every component."""
    if variable.aggregation == VariableAggregation.ONLY_FIRST_REPLICA:
        reduced = value.values[0] if isinstance(value, values_lib.DistributedValues) else value
    else:
        op = ReduceOp.from_variable_aggregation(variable.aggregation)
        devices = [c._device for c in variable.values]
        reduced = strategy.extended._reduce_to(op, value, devices)
    variable._update_each(method, reduced)
    return _updated_values(variable, read_value)


class SyncOnReadVariable(DistributedVariable):
    """A variable each replica updates locally; reading it in cross-replica context aggregates."""

    def _read_cross_replica(self) -> _core.tensor.Tensor:
        if self.aggregation == VariableAggregation.ONLY_FIRST_REPLICA:
            return self._on_device_or_primary().value()
        op = ReduceOp.from_variable_aggregation(self.aggregation)
        components = [c.value() for c in self._values]
        destination = device_scope.current_device() or _core.devices.default_cpu()
        return _core.collectives.all_reduce(components, op.value, devices=[destination])[0]

    def _update(self, method: str, value: Any, read_value: bool = True) -> Any:
        local = self._local()
        if local is not None:
            getattr(local, method)(value)
            return self
        if self.aggregation == VariableAggregation.SUM:
            if method != "assign":
                raise ValueError(f"SyncOnReadVariable does not support `{method}` in cross-replica context when "
                                 "aggregation is set to `tf.VariableAggregation.SUM`.")
            value = _divide(value, len(self._values), self.dtype)
        self._update_each(method, value)
        # TF updates every component, then returns var.read_value(): a cross-replica read (the aggregate; for
        # NONE a ValueError, observed with TF 2.21). read_value=False returns None, skipping the read and the error.
        return self.read_value() if read_value else None


def _divide(value: Any, count: int, dtype: Any) -> Any:
    """TF's ``cast(value / count, dtype)``: each component's share of a cross-replica SUM assign."""
    return math_ops.cast(math_ops.divide(_core.tensor.convert_to_tensor(value), count), dtype)


class TPUMirroredVariable(MirroredVariable):
    """The MirroredVariable a TPU strategy creates (TF's ``tpu_values.TPUMirroredVariable``; named in reprs)."""


class TPUSyncOnReadVariable(SyncOnReadVariable):
    """The SyncOnReadVariable a TPU strategy creates (TF's ``tpu_values.TPUSyncOnReadVariable``)."""


def create_distributed_variable(extended: Any, next_creator: Callable[..., Any], **kwargs: Any) -> Any:
    """Creates one component per replica device and wraps them (strategy-scope variable creation)."""
    synchronization = _as_enum(VariableSynchronization, kwargs.get("synchronization"), "synchronization")
    aggregation = _as_enum(VariableAggregation, kwargs.get("aggregation"), "aggregation")
    if synchronization == VariableSynchronization.NONE:
        raise ValueError("`NONE` variable synchronization mode is not supported with tf.distribute strategy. "
                         "Please change the `synchronization` for variable: " + str(kwargs.get("name")))
    if synchronization == VariableSynchronization.AUTO:
        synchronization = VariableSynchronization.ON_WRITE  # as TF resolves it (the components report it too)
    context = ds_context.get_replica_context()
    if context is not None and context._run is not None:
        # Created inside run: replica 0's initial value is used, every replica gets the same variable.
        return context.merge_call(lambda strategy, per_replica: create_distributed_variable(
            extended, next_creator, **values_lib.select_replica(0, per_replica)), args=(kwargs,))
    initial_value = kwargs["initial_value"]
    if callable(initial_value):
        initial_value = initial_value()
    initial = _core.tensor.convert_to_tensor(initial_value, kwargs.get("dtype"))
    process_slice = getattr(extended, "_process_slice", None)
    if process_slice is not None:  # a multi-process slice: every process starts from process 0's value (TF MWMS)
        initial = process_slice.broadcast_initial_value(initial)
    if aggregation == VariableAggregation.MEAN and not initial.dtype.is_floating:
        raise ValueError(f"Variable aggregation MEAN is not supported for non-floating dtype {initial.dtype.name}: "
                         "the mean of integers cannot be represented exactly")
    colocate_with = ds_context.colocation_variable.get()
    if colocate_with is not None:
        components = colocate_with.values if values_lib.is_distributed_variable(colocate_with) else (colocate_with,)
        devices = [c._device for c in components]
    else:
        devices = extended._replica_devices()
    base_name = kwargs.get("name") or "Variable"
    components = []
    for i, device in enumerate(devices):
        with device_scope.device_scope(device):
            component_kwargs = dict(kwargs, initial_value=initial, name=base_name if i == 0 else
                                    f"{base_name}/replica_{i}", synchronization=synchronization,
                                    aggregation=aggregation)
            components.append(next_creator(**component_kwargs))
    on_read = synchronization == VariableSynchronization.ON_READ
    wrapper: type[DistributedVariable]
    if getattr(extended, "_creates_tpu_variables", False):
        wrapper = TPUSyncOnReadVariable if on_read else TPUMirroredVariable
    else:
        wrapper = SyncOnReadVariable if on_read else MirroredVariable
    return wrapper(extended._container_strategy(), components)
