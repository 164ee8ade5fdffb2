"""The arithmetic Keras 3's optimizers do on gradients, with its TF backend's rules for IndexedSlices.

Keras keeps an IndexedSlices gradient sparse where the result stays sparse, operation by operation:
* unary zero-preserving ops (square, sqrt, cast) act on each occurrence's values, so a row looked up twice
  contributes g1² + g2², not (g1 + g2)²;
* multiply by a scalar or a dense tensor keeps the indices (the dense operand gathered at them);
* add / subtract / maximum with a dense tensor densify the slices (their segment sum, as TF converts them);
* divide of slices by a dense tensor gathers the divisor at the indices (Keras adds the divisor's zero and
  NaN rows to the indices; here such a divisor densifies the dividend instead, which differs only in the
  rounding of duplicate rows);
* a variable updated with slices is scattered into, occurrence by occurrence in order (TF's ResourceScatterAdd /
  Sub / Update on CPU), so rows not looked up are left untouched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tpustrategy import _core
from tpustrategy.framework.indexed_slices import IndexedSlices
from tpustrategy.ops._args import TensorLike
from tpustrategy.ops.gather_scatter_ops import tensor_scatter_nd_update

# an elementwise binary op of _core.ops (add, multiply, maximum ...)
_BinaryOp = Callable[[Any, Any], _core.tensor.Tensor]


def is_sparse(x: Any) -> bool:
    return isinstance(x, IndexedSlices)


def densify(x: Any) -> Any:
    """`x` as a dense tensor (the segment sum of the slices' rows)."""
    return x._as_tensor() if is_sparse(x) else x


def _with_values(x: IndexedSlices, values: TensorLike) -> IndexedSlices:
    return IndexedSlices(values, x.indices, x.dense_shape)


def _is_scalar(x: Any) -> bool:
    return isinstance(x, int | float) or len(getattr(x, "shape", ())) == 0


def constant(value: Any, dtype: Any) -> Any:
    """A Python number as a tensor of `dtype` (Keras converts Python floats to the other operand's dtype)."""
    if isinstance(value, _core.tensor.Tensor):
        return value if value.dtype == dtype else _core.ops.cast(value, dtype)
    if hasattr(value, "_as_tensor"):
        return _core.ops.cast(value._as_tensor(), dtype)
    return _core.tensor.constant(value, dtype)


def _dtype(a: Any, b: Any) -> _core.tensor.DType:
    for x in (a, b):
        if not isinstance(x, int | float):
            dtype: _core.tensor.DType = x.dtype
            return dtype
    raise TypeError(f"sparse_math: one operand must be a tensor, got {a!r} and {b!r}")


def _elementwise(op: _BinaryOp, a: Any, b: Any) -> _core.tensor.Tensor:
    dtype = _dtype(a, b)
    return op(constant(a, dtype), constant(b, dtype))


def cast(x: Any, dtype: Any) -> Any:
    if is_sparse(x):
        return x if x.dtype == dtype else _with_values(x, _core.ops.cast(x.values, dtype))
    return x if x.dtype == dtype else _core.ops.cast(x, dtype)


def square(x: Any) -> Any:
    return _with_values(x, _core.ops.square(x.values)) if is_sparse(x) else _core.ops.square(x)


def sqrt(x: Any) -> Any:
    return _with_values(x, _core.ops.sqrt(x.values)) if is_sparse(x) else _core.ops.sqrt(x)


def multiply(a: Any, b: Any) -> Any:
    """Intersection: slices times a scalar or dense tensor stay slices at the same indices."""
    if is_sparse(a) and is_sparse(b):
        if a.indices is not b.indices:
            a = densify(a)
            b = densify(b)
            return _elementwise(_core.ops.multiply, a, b)
        return _with_values(a, _core.ops.multiply(a.values, b.values))
    if is_sparse(a):
        return _with_values(a, _elementwise(_core.ops.multiply, a.values, b if _is_scalar(b) else
                                            _core.ops.gather(constant(b, a.dtype), a.indices, 0)))
    if is_sparse(b):
        return _with_values(b, _elementwise(_core.ops.multiply, a if _is_scalar(a) else
                                            _core.ops.gather(constant(a, b.dtype), b.indices, 0), b.values))
    return _elementwise(_core.ops.multiply, a, b)


def _union(op: _BinaryOp, a: Any, b: Any) -> _core.tensor.Tensor | IndexedSlices:
    if is_sparse(a) and is_sparse(b) and a.indices is b.indices:
        return _with_values(a, op(a.values, b.values))
    return _elementwise(op, densify(a), densify(b))


def add(a: Any, b: Any) -> Any:
    return _union(_core.ops.add, a, b)


def subtract(a: Any, b: Any) -> Any:
    return _union(_core.ops.subtract, a, b)


def maximum(a: Any, b: Any) -> Any:
    return _elementwise(_core.ops.maximum, densify(a), densify(b))


def divide(a: Any, b: Any) -> Any:
    """Slices divided by a scalar or by a dense tensor without zeros or NaNs stay slices; a sparse divisor is
    densified."""
    b = densify(b)
    if is_sparse(a):
        if _is_scalar(b):
            return _with_values(a, _elementwise(_core.ops.divide, a.values, b))
        b = constant(b, a.dtype)
        bad = _core.ops.logical_or(_core.ops.equal(b, _core.ops.zeros([], b.dtype)), _core.ops.not_equal(b, b))
        if not bool(_core.ops.reduce_any(bad).numpy()):
            return _with_values(a, _core.ops.divide(a.values, _core.ops.gather(b, a.indices, 0)))
        a = densify(a)
    return _elementwise(_core.ops.divide, a, b)


def _scatter(variable: Any, slices: IndexedSlices, combine: Callable[[_core.tensor.Tensor, Any], Any]) -> None:
    """Applies the slices' rows to `variable` one occurrence at a time, in order, as TF's scatter kernels:
    the k-th occurrences of all rows form round k, each a scatter without duplicates."""
    indices = np.asarray(slices.indices.numpy()).reshape(-1).astype(np.int64)
    if indices.size == 0:
        return
    # rounds[i]: how many earlier occurrences of indices[i] there are (a stable sort groups equal rows in order)
    order = np.argsort(indices, kind="stable")
    ordered = indices[order]
    position = np.arange(indices.size)
    group_start = np.maximum.accumulate(np.where(np.r_[True, ordered[1:] != ordered[:-1]], position, 0))
    rounds = np.empty(indices.size, np.int64)
    rounds[order] = position - group_start
    values = cast(slices, variable.dtype).values
    value = variable.value()
    for k in range(int(rounds.max()) + 1):
        positions = np.flatnonzero(rounds == k)
        if positions.size == indices.size:
            rows, updates = slices.indices, values
        else:
            selection = _core.tensor.constant(positions.astype(np.int32), _core.tensor.int32)
            rows, updates = _core.ops.gather(slices.indices, selection, 0), _core.ops.gather(values, selection, 0)
        index = _core.ops.reshape(rows, [-1, 1])
        value = tensor_scatter_nd_update(value, index, combine(_core.ops.gather(value, rows, 0), updates))
    variable.assign(value)


def assign(variable: Any, value: Any) -> None:
    """Keras' ``optimizer.assign``: slices scatter-update (the last occurrence of a row wins)."""
    if is_sparse(value):
        _scatter(variable, value, lambda _, updates: updates)
    else:
        variable.assign(cast(value, variable.dtype))


def assign_add(variable: Any, value: Any) -> None:
    """Keras' ``optimizer.assign_add``: IndexedSlices rows are added where they point (repeated rows add up)."""
    if is_sparse(value):
        _scatter(variable, value, _core.ops.add)
    else:
        variable.assign_add(cast(value, variable.dtype))


def assign_sub(variable: Any, value: Any) -> None:
    """Keras' ``optimizer.assign_sub``: IndexedSlices rows are subtracted where they point (repeated rows too)."""
    if is_sparse(value):
        _scatter(variable, value, _core.ops.subtract)
    else:
        variable.assign_sub(cast(value, variable.dtype))


def clip_by_global_norm(values: list[Any], clip_norm: float) -> list[Any]:
    """Keras 3's ``clip_by_global_norm``: the norm over every gradient's occurrences (a slice's values squared
    one by one), then each gradient times ``clip_norm * min(1 / norm, 1 / clip_norm)`` (NaN when the norm is not
    finite). Keras multiplies with ``*``, which TF's Tensor takes over for slices: they come back dense."""
    squared = [_core.ops.reduce_sum(densify(square(v)), None, keepdims=False) for v in values]
    norm = _core.ops.sqrt(_core.ops.reduce_sum(_core.ops.stack(squared, 0), None, keepdims=False))
    dtype = norm.dtype
    one = constant(1.0, dtype)
    scale = constant(clip_norm, dtype) * _core.ops.minimum(one / norm, constant(1.0 / clip_norm, dtype))
    scale = scale + (norm - norm)
    return [multiply(densify(v), cast(scale, v.dtype)) for v in values]


def clip_by_value(x: Any, low: float, high: float) -> Any:
    """TF's clip_by_value (Keras' ``ops.clip``): min with `high`, then max with `low`, on each occurrence."""
    if is_sparse(x):
        return _with_values(x, clip_by_value(x.values, low, high))
    return _core.ops.maximum(_core.ops.minimum(x, constant(high, x.dtype)), constant(low, x.dtype))


__all__ = ["add", "assign", "assign_add", "assign_sub", "cast", "clip_by_global_norm", "clip_by_value", "densify",
           "divide", "is_sparse", "maximum", "multiply", "sqrt", "square", "subtract"]
