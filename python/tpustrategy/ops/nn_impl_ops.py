"""``tf.nn.dropout``, ``moments``, ``batch_normalization`` and ``embedding_lookup``, written with the
dispatched C++ ops so GradientTape differentiates them (TF's nn_impl.py / nn_ops.py formulas)."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.ops import random_ops
from tpustrategy.ops._args import Tensor, TensorLike, axis_list, int_list

_ops = _core.ops


def _tensor(value: TensorLike, dtype: Any = None) -> Tensor:
    if isinstance(value, Tensor):
        return value
    converted: Tensor = _core.tensor.convert_to_tensor(value, dtype)
    return converted


def dropout(x: TensorLike, rate: TensorLike, noise_shape: TensorLike = None, seed: int | None = None,
            name: str | None = None) -> Any:
    """Zeros each element with probability `rate` and scales the rest by 1 / (1 - rate) (tf.nn.dropout).
    `noise_shape` (None entries: x's size) broadcasts one keep/drop decision; `seed` follows tf.random's
    rules. The gradient is the same mask and scale.

    Raises:
      ValueError: a numeric rate outside [0, 1), a non-floating `x`.
    """
    is_number = isinstance(rate, numbers.Real) and not isinstance(rate, bool)
    if is_number and (rate < 0 or rate >= 1):
        raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}")
    x = _tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. Received: "
                         f"x_dtype={x.dtype!r}")
    if is_number and rate == 0:
        random_ops.get_seed(seed)  # as TF: the fast path still takes its op seed
        return x
    if is_number:
        scaled = _ops.multiply(x, _core.tensor.convert_to_tensor(1 / (1 - rate), x.dtype))
        threshold = _core.tensor.convert_to_tensor(rate, x.dtype)
    elif isinstance(rate, _core.tensor.Tensor):
        if rate.ndim != 0:
            raise ValueError(f"Shape must be rank 0 but is rank {rate.ndim} for `rate`")
        threshold = _ops.cast(rate, x.dtype)
        scaled = _ops.divide(x, _ops.subtract(_core.tensor.convert_to_tensor(1, x.dtype), threshold))
    else:
        raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate}")
    shape = list(x._shape_tuple)
    if noise_shape is not None:
        given = list(noise_shape.as_list() if hasattr(noise_shape, "as_list") else
                     (int_list(noise_shape, "noise_shape") if isinstance(noise_shape, _core.tensor.Tensor)
                      else noise_shape))
        if len(given) == len(shape):
            shape = [s if d is None else int(d) for d, s in zip(given, shape, strict=True)]
        else:
            shape = [int(d) for d in given]
    keep = _ops.greater_equal(random_ops.uniform(shape, dtype=x.dtype, seed=seed), threshold)
    return _ops.where(keep, scaled, _core.tensor.convert_to_tensor(0, x.dtype))


def moments(x: TensorLike, axes: Any, shift: Any = None, keepdims: bool = False,
            name: str | None = None) -> tuple[Any, Any]:
    """(mean, variance) of `x` over `axes` (tf.nn.moments); float16 computes in float32, as TF."""
    y = _tensor(x)
    half = y.dtype == _core.tensor.float16
    if half:
        y = _ops.cast(y, _core.tensor.float32)
    axes = axis_list(axes)
    mean = _ops.reduce_mean(y, axes, keepdims=True)
    variance = _ops.reduce_mean(_ops.square(_ops.subtract(y, _ops.stop_gradient(mean))), axes, keepdims=True)
    if not keepdims:
        rank = y.ndim
        squeeze = sorted({a % rank for a in axes}) if axes is not None else list(range(rank))
        mean = _ops.squeeze(mean, squeeze) if squeeze else mean
        variance = _ops.squeeze(variance, squeeze) if squeeze else variance
    if half:
        return _ops.cast(mean, _core.tensor.float16), _ops.cast(variance, _core.tensor.float16)
    return mean, variance


def batch_normalization(x: TensorLike, mean: TensorLike, variance: TensorLike, offset: TensorLike, scale: TensorLike,
                        variance_epsilon: float, name: str | None = None) -> Any:
    """(x - mean) * scale / sqrt(variance + epsilon) + offset, computed as TF does (tf.nn.batch_normalization):
    inv = rsqrt(variance + epsilon) * scale; x * inv + (offset - mean * inv)."""
    x = _tensor(x)
    mean = _tensor(mean, x.dtype)
    variance = _tensor(variance, x.dtype)
    inv = _ops.rsqrt(_ops.add(variance, _core.tensor.convert_to_tensor(variance_epsilon, variance.dtype)))
    if scale is not None:
        inv = _ops.multiply(inv, _tensor(scale, x.dtype))
    shift = _ops.negative(_ops.multiply(mean, inv))
    if offset is not None:
        shift = _ops.subtract(_tensor(offset, x.dtype), _ops.multiply(mean, inv))
    return _ops.add(_ops.multiply(x, _ops.cast(inv, x.dtype)), _ops.cast(shift, x.dtype))


def _div_rows(ids: Tensor, sizes: Sequence[int]) -> Tensor:
    """Rows of the concatenated shards that TF2's "div" strategy reads for `ids` (the shard from the total row
    count, then the row inside it), so uneven shards behave as in TF."""
    idx = np.asarray(ids).astype(np.int64)
    total, n = sum(sizes), len(sizes)
    per, extras = total // n, total % n
    if per == 0:
        shard, row = idx, np.zeros_like(idx)
    else:
        shard = np.maximum(idx // (per + 1), (idx - extras) // per)
        row = np.where(shard < extras, idx % (per + 1), (idx - extras) % per)
    if idx.size and (idx.min() < 0 or shard.max() >= n or (row >= np.asarray(sizes)[np.minimum(shard, n - 1)]).any()):
        bad = idx.reshape(-1)[0] if idx.min() >= 0 else idx.min()
        raise errors.InvalidArgumentError(None, None, f"embedding_lookup: id {bad} is outside the {total} rows of "
                                          f"the shards {sizes}")
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    rows: Tensor = _core.tensor.constant(offsets[shard] + row, _core.tensor.int64)
    return rows


def embedding_lookup(params: TensorLike, ids: TensorLike, max_norm: float | None = None,
                     name: str | None = None) -> Any:
    """Rows `ids` of `params` (tf.nn.embedding_lookup): a tensor, a variable, or a list of shards split as
    TF2's "div" strategy does (contiguous blocks, the first shards one row longer). The gradient with
    respect to a single `params` is an IndexedSlices. `max_norm` clips each embedding's l2 norm.
    """
    ids_t = _tensor(ids)
    if not ids_t.dtype.is_integer:
        raise TypeError(f"ids must be int32 or int64, got {ids_t.dtype.name}")
    if isinstance(params, (list, tuple)):
        if not params:
            raise ValueError("Received an empty list of params; need at least one")
        shards = [_tensor(p) for p in params]
        table = shards[0] if len(shards) == 1 else _ops.concat(shards, 0)
        if len(shards) > 1:
            ids_t = _div_rows(ids_t, [p._shape_tuple[0] for p in shards])
    else:
        table = params
    out = _ops.gather(table, ids_t, 0)
    if max_norm is not None:
        from tpustrategy.ops.clip_ops import clip_by_norm

        axes = list(range(ids_t.ndim, out.ndim))
        out = clip_by_norm(out, max_norm, axes=axes or None)
    return out


def l2_normalize(x: TensorLike, axis: int | Sequence[int] | None = None, epsilon: float = 1e-12,
                 name: str | None = None, dim: int | Sequence[int] | None = None) -> Any:
    """x / sqrt(max(sum(x ** 2, axis), epsilon)) (tf.math.l2_normalize / tf.nn.l2_normalize); `dim` is TF's old
    name of `axis`. Written with the dispatched ops, as TF's nn_impl.py: differentiable, static shapes follow."""
    t = _tensor(x)
    axes = axis_list(dim if axis is None else axis)
    square_sum = _ops.reduce_sum(_ops.square(t), axes, keepdims=True)
    floor = _core.tensor.constant(np.array(epsilon, t.dtype.as_numpy_dtype))
    return _ops.multiply(t, _ops.rsqrt(_ops.maximum(square_sum, floor)))
