"""``tf.string`` tensors: variable-length byte strings, kept on the host as a numpy object array of ``bytes``.

The C++ core has no string dtype: strings never reach a kernel, HBM or a collective (TF keeps them on the
host CPU too), so a Python class holding an immutable object array is all they need. It behaves as TF's
EagerTensor of dtype string: ``.numpy()`` gives ``bytes`` (scalar) or an object array, ``shape``/``dtype``,
indexing, ``==`` / ``!=`` element-wise (bool Tensor), ``+`` concatenates, and a string tensor given to a
numeric op raises InvalidArgumentError as TF does (through ``_as_tensor``, the hook every C++ conversion
consults).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.framework.tensor_shape import TensorShape


class StringDType:
    """``tf.string``: compares equal to itself and to the name "string"."""

    name = "string"
    is_floating = False
    is_integer = False
    is_bool = False
    is_complex = False
    is_numeric = False
    as_numpy_dtype = object
    size = 0

    def __eq__(self, other: object) -> bool:
        return other == "string" if isinstance(other, str) else other is self

    def __hash__(self) -> int:
        return hash("string")

    def __repr__(self) -> str:
        return "tf.string"

    def __str__(self) -> str:
        return "<dtype: 'string'>"


string = StringDType()


def is_string_dtype(dtype: object) -> bool:
    return dtype is string or (isinstance(dtype, str) and dtype in ("string", "tf.string")) or dtype is bytes


def to_bytes(value: object) -> bytes:
    """One string value (bytes, str, numpy bytes, a scalar string tensor) as bytes; TypeError otherwise."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, np.bytes_):
        return bytes(value)
    if isinstance(value, StringTensor) and value.ndim == 0:
        item: bytes = value._array.item()
        return item
    raise TypeError(f"Failed to convert elements of {value!r} to Tensor: expected a string (bytes or str), "
                    f"got {type(value).__name__}")


def to_bytes_array(value: Any) -> np.ndarray[Any, Any]:
    """Any string value (bytes, str, nested lists, object / bytes / str arrays) as an object array of bytes."""
    if isinstance(value, StringTensor):
        return value._array
    if isinstance(value, _core.tensor.Tensor):
        raise TypeError(f"expected a string tensor, got a {value.dtype.name} tensor")
    if isinstance(value, (list, tuple)) and any(isinstance(v, StringTensor) for v in value):
        value = [np.asarray(v._array) if isinstance(v, StringTensor) else v for v in value]
    array = np.asarray(value, dtype=object)
    out = np.empty(array.shape, dtype=object)
    for index in np.ndindex(array.shape):
        out[index] = to_bytes(array[index])
    return out


def _frozen(array: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    array.flags.writeable = False
    return array


class StringTensor:
    """An immutable tensor of dtype ``tf.string`` (see the module docstring)."""

    __slots__ = ("_array", "_device", "__weakref__")
    __array_priority__ = 100

    def __init__(self, value: object) -> None:
        if isinstance(value, np.ndarray) and value.dtype == object and _all_bytes(value):
            array = value.copy() if value.flags.writeable else value
        else:
            array = to_bytes_array(value)
        self._array = _frozen(array)
        self._device = _host_device_name()

    # ---- what a tensor reports ----
    @property
    def dtype(self) -> StringDType:
        return string

    @property
    def shape(self) -> TensorShape:
        return TensorShape(self._array.shape)

    @property
    def _shape_tuple(self) -> tuple[int, ...]:
        return tuple(self._array.shape)

    @property
    def ndim(self) -> int:
        return self._array.ndim

    @property
    def device(self) -> str:
        return self._device

    backing_device = device
    _is_string_tensor = True

    def get_shape(self) -> TensorShape:
        return self.shape

    def numpy(self) -> Any:
        """``bytes`` for a scalar, otherwise a (writable) object array of bytes, as TF's ``.numpy()``."""
        return self._array.item() if self._array.ndim == 0 else self._array.copy()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray[Any, Any]:
        array = self._array.copy() if copy is not False else self._array
        return array if dtype is None else array.astype(dtype)

    def _as_tensor(self) -> _core.tensor.Tensor:
        raise errors.InvalidArgumentError(
            None, None, f"cannot compute this op: an input was expected to be a numeric tensor but is a string "
            f"tensor of shape {list(self._array.shape)}")

    # ---- Python protocols ----
    def __len__(self) -> int:
        if self._array.ndim == 0:
            raise TypeError("len() of unsized object")
        return len(self._array)

    def __iter__(self) -> Iterator[StringTensor]:
        if self._array.ndim == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (StringTensor(self._array[i]) for i in range(len(self._array)))

    def __getitem__(self, key: Any) -> StringTensor:
        if isinstance(key, _core.tensor.Tensor):
            key = np.asarray(key)
        try:
            picked = self._array[key]
        except IndexError as e:
            raise errors.InvalidArgumentError(None, None, f"index {key!r} is out of bounds for a string tensor of "
                                              f"shape {list(self._array.shape)}: {e}") from None
        return StringTensor(np.asarray(picked, dtype=object) if not isinstance(picked, np.ndarray) else picked)

    def __int__(self) -> int:  # as TF's EagerTensor: int(self.numpy()), so int(tf.constant(b"3")) == 3
        return int(self.numpy())

    def __float__(self) -> float:
        return float(self.numpy())

    def __bool__(self) -> bool:
        raise TypeError("Using a string tensor as a Python bool is not allowed (tf.string has no truth value).")

    def __hash__(self) -> int:
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    def _compare(self, other: object, op: Callable[[Any, Any], Any]) -> _core.tensor.Tensor:
        try:
            other_array = to_bytes_array(other)
        except TypeError:
            mismatch: _core.tensor.Tensor = _core.tensor.constant(
                np.zeros(self._array.shape, bool) if op is np.equal else np.ones(self._array.shape, bool))
            return mismatch
        try:
            left, right = np.broadcast_arrays(self._array, other_array)
        except ValueError:
            raise errors.InvalidArgumentError(None, None, f"Incompatible shapes: {list(self._array.shape)} vs. "
                                              f"{list(other_array.shape)}") from None
        out = np.empty(left.shape, bool)
        for index in np.ndindex(left.shape):
            out[index] = op(left[index] == right[index], True)
        compared: _core.tensor.Tensor = _core.tensor.constant(out)
        return compared

    # Element-wise, as a Tensor's: a bool tensor, not a bool.
    def __eq__(self, other: object) -> _core.tensor.Tensor:  # type: ignore[override]
        return self._compare(other, np.equal)

    def __ne__(self, other: object) -> _core.tensor.Tensor:  # type: ignore[override]
        return self._compare(other, np.not_equal)

    def __add__(self, other: object) -> StringTensor:
        return add(self, other)

    def __radd__(self, other: object) -> StringTensor:
        return add(other, self)

    def __repr__(self) -> str:
        text = repr(self.numpy())
        return f"<tf.Tensor: shape={self.shape}, dtype=string, numpy={chr(10) if chr(10) in text else ''}{text}>"

    def __str__(self) -> str:
        text = repr(self.numpy()) if self._array.ndim == 0 else str(self._array)
        return f"tf.Tensor({text}, shape={self.shape}, dtype=string)"


def _all_bytes(array: np.ndarray[Any, Any]) -> bool:
    return all(isinstance(v, bytes) for v in array.flat)


def _host_device_name() -> str:
    """Where a new string tensor lives: the current CPU device, else the host CPU of the current core's task
    (TF keeps strings on the host CPU, also inside a TPU replica), else the default CPU."""
    current = _core.devices.current_device()
    if current is None:
        return _core.devices.default_cpu().name
    if current.device_type == "CPU":
        return current.name
    return _core.devices.host_cpu(current.task).name


def add(x: object, y: object) -> StringTensor:
    """String ``+``: element-wise concatenation (broadcast); a numeric operand is TF's InvalidArgumentError."""
    for operand in (x, y):
        if isinstance(operand, (_core.tensor.Tensor, int, float, np.number)) or (
                isinstance(operand, np.ndarray) and operand.dtype.kind in "biuf"):
            kind = operand.dtype.name if hasattr(operand, "dtype") else \
                {int: "int32", float: "float32", bool: "bool"}.get(type(operand), type(operand).__name__)
            raise errors.InvalidArgumentError(None, None, f"cannot compute Add as an input was expected to be a "
                                              f"string tensor but is a {kind} tensor")
    left, right = np.broadcast_arrays(to_bytes_array(x), to_bytes_array(y))
    out = np.empty(left.shape, dtype=object)
    for index in np.ndindex(left.shape):
        out[index] = left[index] + right[index]
    return StringTensor(out)


def is_string_value(value: object) -> bool:
    """True for values tf.constant turns into a string tensor: bytes/str, string arrays, lists of them."""
    if isinstance(value, (bytes, str, np.bytes_, np.str_, StringTensor)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "SU" or (value.dtype == object and value.size > 0 and
                                            isinstance(value.flat[0], (bytes, str)))
    if isinstance(value, (list, tuple)) and value:
        return is_string_value(value[0])
    return False
