"""Norm clipping (tf.clip_by_norm, tf.clip_by_global_norm, tf.linalg.global_norm) and tf.linalg.norm,
written with the core ops so they are differentiable. IndexedSlices keep their sparsity (values scaled)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tpustrategy import _core
from tpustrategy.framework.indexed_slices import IndexedSlices
from tpustrategy.ops._args import Tensor, TensorLike
from tpustrategy.ops.array_ops import ones_like, zeros_like


def _tensor(value: TensorLike) -> Tensor:
    if isinstance(value, Tensor):
        return value
    if hasattr(value, "_as_tensor") and not isinstance(value, IndexedSlices):
        converted: Tensor = value._as_tensor()  # a variable's current value
    else:
        converted = _core.tensor.convert_to_tensor(value)
    return converted


def _values(t: TensorLike) -> Tensor:
    return t.values if isinstance(t, IndexedSlices) else _tensor(t)


def _scaled(t: TensorLike, scale: Tensor) -> Tensor | IndexedSlices | None:
    if t is None:
        return None
    if isinstance(t, IndexedSlices):
        return IndexedSlices(t.values * _core.ops.cast(scale, t.values.dtype), t.indices, t.dense_shape)
    t = _tensor(t)
    scaled: Tensor = t * _core.ops.cast(scale, t.dtype)
    return scaled


def global_norm(t_list: Sequence[Any], name: str | None = None) -> Any:
    """sqrt(sum of squares of every element of every tensor in `t_list`) (None entries are skipped).

    Raises:
      TypeError: `t_list` is not a sequence.
    """
    if not isinstance(t_list, list | tuple):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    values = [_values(t) for t in t_list if t is not None]
    if not values:
        return _core.tensor.constant(0.0, _core.tensor.float32)
    dtype = values[0].dtype
    squares = [_core.ops.reduce_sum(_core.ops.square(_core.ops.cast(v, dtype))) for v in values]
    return _core.ops.sqrt(_core.ops.reduce_sum(_core.ops.stack(squares, 0)))


def clip_by_global_norm(t_list: Sequence[Any], clip_norm: TensorLike, use_norm: TensorLike = None,
                        name: str | None = None) -> tuple[list[Any], Any]:
    """Scales every tensor by clip_norm / max(global_norm, clip_norm); returns (clipped list, global norm).

    A non-finite global norm makes every value NaN, as in TF.
    """
    if not isinstance(t_list, list | tuple):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    norm = global_norm(t_list) if use_norm is None else _tensor(use_norm)
    clip = _core.ops.cast(_tensor(clip_norm), norm.dtype)
    one = _core.tensor.constant(1.0, norm.dtype)
    scale = clip * _core.ops.minimum(one / norm, one / clip) + (norm - norm)  # NaN when the norm is inf
    return [_scaled(t, scale) for t in t_list], norm


def clip_by_norm(t: TensorLike, clip_norm: TensorLike, axes: Any = None, name: str | None = None) -> Any:
    """t * clip_norm / max(l2norm(t over axes), clip_norm) (the norm is taken with keepdims)."""
    if isinstance(t, IndexedSlices):
        return IndexedSlices(clip_by_norm(t.values, clip_norm, axes), t.indices, t.dense_shape)
    ops = _core.ops
    t = _tensor(t)
    axis = None if axes is None else ([axes] if isinstance(axes, int) else list(axes))
    l2sum = ops.reduce_sum(t * t, axis, keepdims=True)
    positive = ops.greater(l2sum, zeros_like(l2sum))
    l2norm = ops.where(positive, ops.sqrt(ops.where(positive, l2sum, ones_like(l2sum))), l2sum)
    clip = ops.cast(_tensor(clip_norm), t.dtype)
    return t * clip / ops.maximum(l2norm, clip)


def norm(tensor: TensorLike, ord: str | int | float = "euclidean", axis: Any = None, keepdims: bool | None = None,  # noqa: A002 - TF's name
         name: str | None = None) -> Any:
    """Vector norms ('euclidean'/2, 1, inf) over `axis` (None: all elements), and 'fro'/'euclidean' over two axes.

    Raises:
      ValueError: an unsupported `ord` for the given axis.
    """
    ops = _core.ops
    t = _tensor(tensor)
    keep = bool(keepdims)
    axes = None if axis is None else ([axis] if isinstance(axis, int) else list(axis))
    if axes is not None and len(axes) == 2 and ord not in ("euclidean", "fro"):
        raise NotImplementedError(f"tf.linalg.norm: matrix norm ord={ord!r} is not implemented")
    if ord in ("euclidean", "fro", 2, 2.0):
        if ord == "fro" and (axes is None or len(axes) != 2) and not (axes is None and t.ndim == 2):
            raise ValueError(f"'ord' must be a supported vector norm, got {ord!r}.")
        return ops.sqrt(ops.reduce_sum(t * t, axes, keepdims=keep))
    if ord in (1, 1.0):
        return ops.reduce_sum(ops.abs(t), axes, keepdims=keep)
    if ord == float("inf"):
        return ops.reduce_max(ops.abs(t), axes, keepdims=keep)
    raise ValueError(f"'ord' must be a supported vector norm, got {ord!r}.")
