"""Small conversions the Keras modules share: anything tensor-like (variables included) to a Tensor."""

from __future__ import annotations

import numpy as np

from tpustrategy import _core


def tensor(value, dtype=None) -> _core.tensor.Tensor:
    """`value` as a Tensor (a variable is read), cast to `dtype` when given."""
    if hasattr(value, "_as_tensor") and not isinstance(value, _core.tensor.Tensor):
        value = value._as_tensor()
    if not isinstance(value, _core.tensor.Tensor):
        value = _core.tensor.convert_to_tensor(np.asarray(value) if isinstance(value, list | tuple) else value)
    if dtype is not None:
        dtype = as_dtype(dtype)
        if value.dtype != dtype:
            value = _core.ops.cast(value, dtype)
    return value


def as_dtype(dtype) -> _core.tensor.DType:
    if dtype is None:
        return _core.tensor.float32
    if isinstance(dtype, _core.tensor.DType):
        return dtype
    return _core.tensor.DType(getattr(dtype, "name", dtype))


def shape_of(value) -> tuple:
    """The static shape of a tensor, variable, numpy array or KerasTensor as a tuple."""
    if isinstance(value, _core.tensor.Tensor):
        return tuple(value._shape_tuple)
    shape = getattr(value, "shape", None)
    if shape is None:
        return tuple(np.shape(value))
    if hasattr(shape, "as_list"):
        return tuple(shape.as_list())
    return tuple(shape)


def scalar(value, dtype) -> _core.tensor.Tensor:
    return _core.tensor.constant(value, dtype)
