"""``constant`` and ``convert_to_tensor`` (mirrors ``tf.constant``)."""

from __future__ import annotations

import numpy as np

from tpustrategy import _core


def constant(value, dtype=None, shape=None, name=None):
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
    tensor = _core.tensor.constant(value, dtype)
    if shape is None:
        return tensor
    shape = tuple(int(d) for d in shape)
    if tuple(tensor._shape_tuple) == shape:
        return tensor
    array = np.asarray(tensor)
    count = int(np.prod(shape, dtype=np.int64))
    if array.size == count:
        return _core.tensor.constant(array.reshape(shape), tensor.dtype)
    if array.size == 1:
        return _core.tensor.constant(np.broadcast_to(array.reshape(()), shape), tensor.dtype)
    raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {value!r} (converted from "
                    f"{array.size} elements) cannot take shape {list(shape)} ({count} elements)")


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """Converts `value` to a Tensor without copying a Tensor (mirrors ``tf.convert_to_tensor``).

    ``dtype_hint`` is used when `value` has no dtype of its own (Python values).
    """
    if dtype is None and dtype_hint is not None and not isinstance(value,
                                                                   (_core.tensor.Tensor, np.ndarray, np.generic)):
        try:
            return _core.tensor.convert_to_tensor(value, dtype_hint)
        except (TypeError, ValueError):
            pass
    return _core.tensor.convert_to_tensor(value, dtype)
