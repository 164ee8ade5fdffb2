"""The little tensor arithmetic that reductions need, done with numpy on the host.

Kept in one place so that it can move to the C++ ops (branch ``ops``) without touching the callers.
Results are new tensors on the current device.
"""

from __future__ import annotations

import numpy as np

from tpustrategy import _core


def as_numpy(value) -> np.ndarray:
    return np.asarray(_core.convert_to_tensor(value))


def reduce_sum(value, axes: tuple[int, ...]):
    """Sum over `axes` keeping the dtype (numpy would widen int32 to int64)."""
    array = as_numpy(value)
    # np.asarray: a numpy float64 scalar is a Python float and would convert as float32.
    return _core.constant(np.asarray(np.sum(array, axis=axes, dtype=array.dtype)))


def normalize_axes(axis, rank: int) -> tuple[int, ...]:
    """An int or a list/tuple of ints → non-negative axes; out of range → ValueError; other types → TypeError."""
    items = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    normalized = []
    for a in items:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"axis must be an int or a list/tuple of ints, got {axis!r}")
        if not -rank <= a < rank:
            raise ValueError(f"axis {a} is out of range for a value of rank {rank}")
        normalized.append(int(a) % rank)
    return tuple(normalized)


def count_along(value, axes: tuple[int, ...]):
    """The number of elements a reduction over `axes` averages (int64 scalar)."""
    shape = as_numpy(value).shape
    return _core.constant(np.int64(np.prod([shape[a] for a in axes], dtype=np.int64)))


def true_divide(numerator, denominator):
    """numerator / denominator in floating point: float inputs keep their dtype, integers give float64."""
    numer = as_numpy(numerator)
    denom = as_numpy(denominator)
    dtype = numer.dtype if np.issubdtype(numer.dtype, np.floating) or str(numer.dtype) == "bfloat16" else np.float64
    with np.errstate(divide="ignore", invalid="ignore"):
        result = numer.astype(np.float64) / denom.astype(np.float64)
    return _core.constant(np.asarray(result, dtype=dtype))
