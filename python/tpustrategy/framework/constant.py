"""``constant`` and ``convert_to_tensor`` (mirrors ``tf.constant``)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from tpustrategy import _core
from tpustrategy.framework import string_tensor

Tensor = _core.tensor.Tensor


def constant(value: object, dtype: object = None, shape: Iterable[int] | None = None,
             name: str | None = None) -> Tensor | string_tensor.StringTensor:
    """Creates a tensor holding a copy of `value` (mirrors ``tf.constant``).

    Args:
      value: a Python scalar, a (nested) list, a numpy array or a Tensor.
      dtype: optional element type; Python floats default to float32, ints to int32.
      shape: optional shape; a scalar (or one-element) value is broadcast to it, a value
        with the same number of elements is reshaped.
      name: ignored (TF graph name).

    Raises:
      TypeError: `value` has an unsupported type, or cannot be represented in `dtype`.
      ValueError: `value` cannot take `shape`.
    """
    if string_tensor.is_string_dtype(dtype) or (dtype is None and string_tensor.is_string_value(value)):
        return _string_constant(value, dtype, shape)
    tensor: Tensor = _core.tensor.constant(value, dtype)
    if shape is None:
        return tensor
    dims = tuple(int(d) for d in shape)
    if tuple(tensor._shape_tuple) == dims:
        return tensor
    array = np.asarray(tensor)
    count = int(np.prod(dims, dtype=np.int64))
    if array.size == count:
        reshaped: Tensor = _core.tensor.constant(array.reshape(dims), tensor.dtype)
        return reshaped
    if array.size == 1:
        broadcast: Tensor = _core.tensor.constant(np.broadcast_to(array.reshape(()), dims), tensor.dtype)
        return broadcast
    raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {value!r} (converted from "
                    f"{array.size} elements) cannot take shape {list(dims)} ({count} elements)")


def _string_constant(value: object, dtype: object, shape: Iterable[int] | None) -> string_tensor.StringTensor:
    """A tf.string tensor; a numeric value with dtype=tf.string is TF's TypeError."""
    if dtype is not None and not string_tensor.is_string_value(value):
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype string")
    if dtype is None and not string_tensor.is_string_dtype(dtype) and isinstance(value, (list, tuple)):
        kinds = {type(v) for v in np.asarray(value, dtype=object).reshape(-1)}
        if not kinds <= {bytes, str, np.bytes_, np.str_}:
            raise TypeError(f"Failed to convert elements of {value!r} to Tensor: mixed string and non-string values")
    tensor = string_tensor.StringTensor(value)
    if shape is None:
        return tensor
    dims = tuple(int(d) for d in shape)
    array = tensor._array
    count = int(np.prod(dims, dtype=np.int64))
    if array.size == count:
        return string_tensor.StringTensor(array.reshape(dims))
    if array.size == 1:
        return string_tensor.StringTensor(np.broadcast_to(array.reshape(()), dims).copy())
    raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {value!r} (converted from "
                    f"{array.size} elements) cannot take shape {list(dims)} ({count} elements)")


def convert_to_tensor(value: object, dtype: object = None, dtype_hint: object = None,
                      name: str | None = None) -> Tensor | string_tensor.StringTensor:
    """Converts `value` to a Tensor without copying a Tensor (mirrors ``tf.convert_to_tensor``).

    ``dtype_hint`` is used when `value` has no dtype of its own (Python values).
    """
    if isinstance(value, string_tensor.StringTensor):
        if dtype is None or string_tensor.is_string_dtype(dtype):
            return value
        raise ValueError(f"Tensor conversion requested dtype {_core.tensor.DType(dtype).name} for Tensor with dtype "
                         f"string: {value!r}")
    if string_tensor.is_string_dtype(dtype) or (dtype is None and string_tensor.is_string_value(value)):
        return _string_constant(value, dtype, None)
    if dtype is None and dtype_hint is not None and not isinstance(value,
                                                                   (_core.tensor.Tensor, np.ndarray, np.generic)):
        try:
            hinted: Tensor = _core.tensor.convert_to_tensor(value, dtype_hint)
            return hinted
        except (TypeError, ValueError):
            pass
    converted: Tensor = _core.tensor.convert_to_tensor(value, dtype)
    return converted
