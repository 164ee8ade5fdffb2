"""``tpustrategy.Variable``: a mutable value on a simulated device (mirrors ``tf.Variable``).

Calling ``Variable(...)`` while a strategy is current hands creation to that strategy, which returns a
distributed variable (MirroredVariable / SyncOnReadVariable, distribute/distributed_variables.py).
A variable holds an immutable Tensor and replaces it on every assignment.
"""

from __future__ import annotations

import contextlib
import contextvars
import enum
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import numpy as np

from tpustrategy import _core
from tpustrategy.eager import backprop as _backprop
from tpustrategy.framework import device_scope
from tpustrategy.framework import name_scope as _name_scope
from tpustrategy.framework.operators import TensorOperators
from tpustrategy.framework.tensor_shape import TensorShape

_tapes_active = _backprop._active
Tensor = _core.tensor.Tensor
_Enum = TypeVar("_Enum", bound=enum.Enum)

# Keras' mixed precision: inside a layer whose compute dtype differs from its variable dtype, float variables
# read as the compute dtype. The cast is an op like any other, so a tape takes the gradient back to the
# variable's own dtype. Per greenlet (a contextvar), so replicas never see each other's scope.
_read_dtype: contextvars.ContextVar[Any] = contextvars.ContextVar("variable_read_dtype", default=None)


@contextlib.contextmanager
def autocast_reads(dtype: Any) -> Iterator[None]:
    """Float variables read in the block (with ``_autocast`` set, the default) come back cast to `dtype`;
    None turns the casting off inside the block."""
    token = _read_dtype.set(dtype)
    try:
        yield
    finally:
        _read_dtype.reset(token)


def autocast_dtype() -> Any:
    """The dtype float variables are read as here, or None."""
    return _read_dtype.get()


class VariableSynchronization(enum.Enum):
    """When a distributed variable's replicas agree: AUTO (resolved to ON_WRITE), NONE (rejected by strategies),
    ON_WRITE (every write updates all replicas) or ON_READ (replicas write locally, reads aggregate)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class _AggregationEnum(enum.Enum):
    """TF's two aggregation enums compare equal (and hash alike) member for member, by value."""

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _AggregationEnum):
            return bool(self.value == other.value)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.value)


class VariableAggregationV1(_AggregationEnum):
    """TF's v1 enum (``tf.compat.v1.VariableAggregation``), named ``VariableAggregation`` as in TF: what a variable
    created without an aggregation reports (``str(v.aggregation) == "VariableAggregation.NONE"``, as TF)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
    ONLY_FIRST_TOWER = 3  # TF's old name, an alias


VariableAggregationV1.__name__ = VariableAggregationV1.__qualname__ = "VariableAggregation"


class VariableAggregationV2(_AggregationEnum):
    """``tf.VariableAggregation`` in TF 2 (``str(tf.VariableAggregation.SUM) == "VariableAggregationV2.SUM"``)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


VariableAggregation = VariableAggregationV2  # TF 2 exports the V2 enum as tf.VariableAggregation


class _VariableMetaclass(type):
    """Routes ``Variable(...)`` through the current strategy, as TF's variable creator scopes do."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls is not Variable:
            return super().__call__(*args, **kwargs)
        # lazy: Variable sits below tpustrategy.distribute (whose __init__ imports the distributed
        # variables built on it); which strategy is current is only known at call time.
        from tpustrategy.distribute import distribution_strategy_context as ds_context

        kwargs = _bind_arguments(*args, **kwargs)
        strategy = ds_context.get_strategy()
        if not ds_context.has_strategy():
            return super().__call__(**kwargs)
        return strategy.extended._create_variable(lambda **kw: type.__call__(Variable, **kw), **kwargs)


def _bind_arguments(initial_value: Any = None, trainable: bool | None = None, validate_shape: bool = True,
                    caching_device: object = None, name: str | None = None, variable_def: object = None,
                    dtype: Any = None, import_scope: object = None, constraint: object = None,
                    synchronization: Any = VariableSynchronization.AUTO, aggregation: Any = VariableAggregationV1.NONE,
                    shape: Any = None, experimental_enable_variable_lifting: bool = True) -> dict[str, Any]:
    return dict(initial_value=initial_value, trainable=trainable, name=name, dtype=dtype,
                synchronization=synchronization, aggregation=aggregation, shape=shape)


def _as_enum(enum_type: type[_Enum], value: object, what: str) -> _Enum:
    if enum_type is VariableAggregation and isinstance(value, _AggregationEnum):
        return value  # type: ignore[return-value]  # either of TF's aggregation enums, kept as given (it prints as given)
    try:
        return value if isinstance(value, enum_type) else enum_type(value)
    except ValueError:
        raise ValueError(f"Invalid variable {what}: {value!r}; expected one of "
                         f"{[m.name for m in enum_type]}") from None


class Variable(TensorOperators, metaclass=_VariableMetaclass):
    """A mutable tensor on the device current at creation (mirrors ``tf.Variable``).

    Args:
      initial_value: a tensor-convertible value, or a callable returning one.
      trainable, name, dtype, synchronization, aggregation, shape: as in ``tf.Variable``.
    """

    _is_variable = True
    _autocast = True  # read as the autocast dtype inside `autocast_reads` (Keras' add_weight(autocast=))
    # Keras 3's attributes, set on the variables its layers and optimizers create (not by this constructor):
    # the scoped name ("dense/kernel") and the constraint the optimizer applies after each update.
    path: str
    constraint: Callable[..., Any] | None

    def __init__(self, initial_value: Any = None, trainable: bool | None = None, name: str | None = None,
                 dtype: Any = None, synchronization: Any = VariableSynchronization.AUTO,
                 aggregation: Any = VariableAggregationV1.NONE, shape: Any = None, **unused_kwargs: Any) -> None:
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        if callable(initial_value):
            initial_value = initial_value()
        self._synchronization = _as_enum(VariableSynchronization, synchronization, "synchronization")
        self._aggregation = _as_enum(VariableAggregation, aggregation, "aggregation")
        self._device = device_scope.current_device() or _core.devices.default_cpu()
        self._value: Tensor = self._placed(_core.tensor.convert_to_tensor(initial_value, dtype))
        self._name = f"{_name_scope.current_scope()}{name or 'Variable'}:0"
        if trainable is None:
            trainable = self._synchronization != VariableSynchronization.ON_READ
        self._trainable = bool(trainable)
        self._distribute_strategy: Any = None
        self._distributed_container: Any = None

    def _placed(self, tensor: Tensor) -> Tensor:
        if tensor.device != self._device.name:
            tensor = _core.tensor.copy_to_device(tensor, self._device.name)
        return tensor

    # ---- properties ----
    @property
    def name(self) -> str:
        """The name scope at creation, then the given name ("Variable" if none), then ":0"."""
        return self._name

    @property
    def dtype(self) -> _core.tensor.DType:
        """The variable's dtype."""
        return self._value.dtype

    @property
    def shape(self) -> TensorShape:
        """The variable's shape (fixed at creation)."""
        return TensorShape(self._value._shape_tuple)

    @property
    def device(self) -> str:
        """The name of the device that holds the value (the device current at creation)."""
        return self._device.name

    @property
    def trainable(self) -> bool:
        """Whether the variable is trainable (by default True unless its synchronization is ON_READ)."""
        return self._trainable

    @property
    def synchronization(self) -> VariableSynchronization:
        """The VariableSynchronization given at creation."""
        return self._synchronization

    @property
    def aggregation(self) -> _AggregationEnum:
        """The aggregation given at creation (VariableAggregation.NONE by default)."""
        return self._aggregation

    # ---- reading ----
    def value(self) -> Tensor:
        """The current value as a tensor; a later assign replaces the variable's tensor, not this one.

        A trainable variable read while a GradientTape records is watched by it; inside ``autocast_reads``
        (Keras' mixed precision) a floating variable reads as that scope's dtype.
        """
        value = self._value
        if _tapes_active[0]:  # trainable variables read inside a tape are watched
            _backprop._variable_accessed(self, value)
        cast_to = _read_dtype.get()
        if cast_to is not None and self._autocast and value.dtype != cast_to and value.dtype.is_floating:
            value = _core.ops.cast(value, cast_to)
        return value

    read_value = value
    _as_tensor = value

    def numpy(self) -> Any:
        """The current value as a NumPy array (never autocast)."""
        return self._value.numpy()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Any:
        array = np.asarray(self._value)
        return array.astype(dtype) if dtype is not None else (array.copy() if copy else array)

    # ---- writing ----
    def _new_value(self, value: Any) -> Tensor:
        tensor: Tensor
        if isinstance(value, _core.tensor.Tensor):
            tensor = _core.tensor.convert_to_tensor(value, self.dtype)
        else:
            tensor = _core.tensor.constant(value, self.dtype)
        if tensor._shape_tuple != self._value._shape_tuple:
            raise ValueError(f"Cannot assign value of shape {tensor._shape_tuple} to variable {self._name!r} of "
                             f"shape {self._value._shape_tuple}")
        return self._placed(tensor)

    def assign(self, value: Any, use_locking: bool | None = None, name: str | None = None,
               read_value: bool = True) -> Variable:
        """Replaces the value with `value`, converted to the variable's dtype; runs eagerly.

        `use_locking`, `name` and `read_value` are accepted for compatibility.

        Returns:
          The variable itself.

        Raises:
          ValueError: `value` has another shape, or is a tensor of another dtype.
          TypeError: `value` cannot be converted to a tensor.
        """
        self._value = self._new_value(value)
        return self

    def assign_add(self, delta: Any, use_locking: bool | None = None, name: str | None = None,
                   read_value: bool = True) -> Variable:
        """Adds `delta` in place, with ``assign``'s conversion, arguments, result and errors."""
        return self._apply(np.add, delta)

    def assign_sub(self, delta: Any, use_locking: bool | None = None, name: str | None = None,
                   read_value: bool = True) -> Variable:
        """Subtracts `delta` in place, with ``assign``'s conversion, arguments, result and errors."""
        return self._apply(np.subtract, delta)

    def _assign_gradient_descent(self, gradient: object, learning_rate: object) -> bool:
        """``self.assign_sub(gradient * learning_rate)`` in one C++ pass when both are floating tensors of the
        variable's dtype and shape (bit-identical); False (nothing done) otherwise."""
        value = self._value
        if not (isinstance(gradient, _core.tensor.Tensor) and isinstance(learning_rate, _core.tensor.Tensor)
                and value.dtype.is_floating and gradient.dtype == value.dtype == learning_rate.dtype
                and gradient._shape_tuple == value._shape_tuple and learning_rate._shape_tuple == ()):
            return False
        with device_scope.device_scope(self._device):
            self._value = self._placed(_core.ops._apply_gradient_descent(value, self._placed(gradient), learning_rate))
        return True

    def _apply(self, ufunc: Callable[..., Any], delta: Any) -> Variable:
        delta_tensor = self._new_value(delta)
        if delta_tensor.dtype.is_floating:  # one C++ pass (optimizer updates); other dtypes keep numpy's wrapping
            with device_scope.device_scope(self._device):
                new = _core.ops._assign_update(self._value, delta_tensor, ufunc is np.subtract)
            self._value = self._placed(new)
            return self
        delta_array = np.asarray(delta_tensor)
        with device_scope.device_scope(self._device):
            updated = np.asarray(ufunc(np.asarray(self._value), delta_array), delta_array.dtype)
            self._value = _core.tensor.constant(updated)
        return self

    def __repr__(self) -> str:
        text = repr(self._value)  # "<tf.Tensor: shape=S, dtype=D, numpy=V>"
        numpy_text = text[text.index("numpy=") + len("numpy="):-1]
        return (f"<tf.Variable '{self._name}' shape={_shape_text(self._value)} dtype={self.dtype.name}, "
                f"numpy={numpy_text}>")


def _shape_text(tensor: Tensor) -> str:
    dims = tensor._shape_tuple
    return f"({dims[0]},)" if len(dims) == 1 else f"({', '.join(str(d) for d in dims)})"
