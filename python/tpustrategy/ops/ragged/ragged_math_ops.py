"""``tf.ragged.range``: one row of ``range(start, limit, delta)`` per (broadcast) start / limit / delta."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.ops._args import TensorLike
from tpustrategy.ops.ragged.ragged_tensor import RaggedTensor

_Tensor = _core.tensor.Tensor


def _dtype_of(values: Sequence[TensorLike], dtype: Any) -> _core.tensor.DType:
    if dtype is not None:
        return _core.tensor.DType(dtype)
    tensors = [v.dtype for v in values if isinstance(v, _Tensor)]
    if tensors:  # TF's inference: the widest of the given tensors' dtypes
        order = [_core.tensor.int32, _core.tensor.int64, _core.tensor.float32, _core.tensor.float64]
        return builtins.max(tensors, key=lambda d: order.index(d) if d in order else -1)
    floats = any(np.asarray(v).dtype.kind == "f" for v in values)
    return _core.tensor.float32 if floats else _core.tensor.int32


def range(starts: TensorLike, limits: TensorLike = None, deltas: TensorLike = 1, dtype: Any = None,  # noqa: A001
          name: str | None = None, row_splits_dtype: Any = _core.tensor.int64) -> RaggedTensor:
    """Row i holds ``starts[i], starts[i] + deltas[i], ...`` below ``limits[i]`` (scalars broadcast; with one
    argument, it is the limit and starts are 0), as ``tf.ragged.range``."""
    if limits is None:
        starts, limits = 0, starts
    out_dtype = _dtype_of([starts, limits, deltas], dtype)
    arrays = [np.asarray(v.numpy() if isinstance(v, _Tensor) else v) for v in (starts, limits, deltas)]
    for array, what in zip(arrays, ("starts", "limits", "deltas"), strict=True):
        if array.ndim > 1:
            raise ValueError(f"tf.ragged.range: {what} must be a scalar or a vector, got shape {list(array.shape)}")
    try:
        s, lim, d = np.broadcast_arrays(*[np.atleast_1d(a) for a in arrays])
    except ValueError:
        raise errors.InvalidArgumentError(None, None, "starts, limits, and deltas must have the same shape: "
                                          f"{[list(a.shape) for a in arrays]}") from None
    if np.any(d == 0):
        raise errors.InvalidArgumentError(None, None, "Requires delta != 0")
    numpy_dtype = out_dtype.as_numpy_dtype
    rows = [np.arange(a, b, c, dtype=numpy_dtype) for a, b, c in zip(s.astype(numpy_dtype), lim.astype(numpy_dtype),
                                                                    d.astype(numpy_dtype), strict=True)]
    flat = np.concatenate(rows) if rows else np.zeros((0,), numpy_dtype)
    values = _core.tensor.constant(flat.astype(numpy_dtype), out_dtype)
    return RaggedTensor.from_row_lengths(values, np.asarray([len(r) for r in rows], np.int64), validate=False)
