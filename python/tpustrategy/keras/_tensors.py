"""Small conversions the Keras modules share: anything tensor-like (variables included) to a Tensor."""

from __future__ import annotations

from typing import Any

import numpy as np

from tpustrategy import _core
from tpustrategy.ops._args import TensorLike


def tensor(value: TensorLike, dtype: Any = None) -> _core.tensor.Tensor:
    """`value` as a Tensor (a variable is read), cast to `dtype` when given."""
    if hasattr(value, "_as_tensor") and not isinstance(value, _core.tensor.Tensor):
        value = value._as_tensor()
    if not isinstance(value, _core.tensor.Tensor):
        value = _core.tensor.convert_to_tensor(np.asarray(value) if isinstance(value, list | tuple) else value)
    if dtype is not None:
        dtype = as_dtype(dtype)
        if value.dtype != dtype:
            value = _core.ops.cast(value, dtype)
    converted: _core.tensor.Tensor = value
    return converted


def as_dtype(dtype: Any) -> _core.tensor.DType:
    if dtype is None:
        return _core.tensor.float32
    if isinstance(dtype, _core.tensor.DType):
        return dtype
    return _core.tensor.DType(getattr(dtype, "name", dtype))


def shape_of(value: Any) -> tuple[Any, ...]:
    """The static shape of a tensor, variable, numpy array or KerasTensor as a tuple (ints; None where a
    KerasTensor's dimension is unknown: left Any, as the layers calling this know when it is defined)."""
    if isinstance(value, _core.tensor.Tensor):
        return tuple(value._shape_tuple)
    shape = getattr(value, "shape", None)
    if shape is None:
        return tuple(np.shape(value))
    if hasattr(shape, "as_list"):
        return tuple(shape.as_list())
    return tuple(shape)


def scalar(value: Any, dtype: Any) -> _core.tensor.Tensor:
    result: _core.tensor.Tensor = _core.tensor.constant(value, dtype)
    return result
