"""Normalisation of TF-style arguments (axes, shapes, tensor lists) before they reach the C++ kernels."""

from __future__ import annotations

import operator
from typing import Any, TypeAlias

import numpy as np

from tpustrategy import _core

Tensor = _core.tensor.Tensor
# An op's input: a Tensor or anything convertible to one (Python numbers, nested lists, numpy arrays, variables).
TensorLike: TypeAlias = Any


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool | np.bool_):
        raise TypeError(f"{what} must be an integer, got bool {value!r}")
    if isinstance(value, Tensor):
        if value.ndim != 0 or not value.dtype.is_integer:
            raise TypeError(
                f"{what} must be a scalar integer, got a {value.dtype.name} tensor of shape {value._shape_tuple}"
            )
        return int(value)
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, got {value!r}") from None


def int_list(value: Any, what: str) -> list[int]:
    """A list of ints from an int, a list/tuple, a TensorShape, a numpy array or an integer tensor."""
    if isinstance(value, Tensor | np.ndarray):
        array = np.asarray(value)
        if array.ndim > 1:
            raise ValueError(f"{what} must be a scalar or a vector, got shape {array.shape}")
        if array.dtype.kind not in "iu":
            raise TypeError(f"{what} must hold integers, got dtype {array.dtype}")
        return [int(v) for v in array.reshape(-1)]
    if hasattr(value, "as_list"):  # TensorShape
        dims = value.as_list()
        if any(d is None for d in dims):
            raise ValueError(f"{what} must be fully defined, got {value}")
        return [int(d) for d in dims]
    if isinstance(value, list | tuple):
        return [_int(v, what) for v in value]
    return [_int(value, what)]


def axis_list(axis: Any) -> list[int] | None:
    """None (all axes) or a list of axes."""
    if axis is None:
        return None
    return int_list(axis, "axis")


def axis_int(axis: Any, what: str = "axis") -> int:
    values = int_list(axis, what)
    if len(values) != 1:
        raise TypeError(f"{what} must be a single integer, got {axis!r}")
    return values[0]


def dtype_or_none(dtype: Any) -> _core.tensor.DType | None:
    return None if dtype is None else _core.tensor.DType(dtype)


def tensor_list(values: Any, what: str = "values") -> list[Tensor]:
    """Tensors from a list of tensors / Python values; Python values take the first tensor's dtype."""
    if isinstance(values, Tensor):
        return list(values)
    if not isinstance(values, list | tuple):
        raise TypeError(f"{what} must be a list of tensors, got {type(values).__name__}")
    dtype = next((v.dtype for v in values if isinstance(v, Tensor)), None)
    out: list[Tensor] = []
    for v in values:
        if isinstance(v, Tensor):
            out.append(v)
        elif dtype is not None and not isinstance(v, np.ndarray | np.generic):
            out.append(_core.tensor.convert_to_tensor(v, dtype))
        else:
            out.append(_core.tensor.convert_to_tensor(v))
    return out


def mentions_ragged(value: Any) -> bool:
    """Whether `value` is a RaggedTensor or a list / tuple holding one: the ops then take the ragged path
    (ops/ragged/ragged_array_ops.py), as TF's dispatch does. RaggedTensor marks itself with ``_is_ragged``."""
    if isinstance(value, list | tuple):
        return any(getattr(v, "_is_ragged", False) for v in value)
    return getattr(value, "_is_ragged", False) is True
