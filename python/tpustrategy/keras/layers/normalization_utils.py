"""What BatchNormalization and LayerNormalization share: axes handling and TF's normalisation formulas.

As ``tf.nn.moments``: mean over the axes, variance = mean((x - stop_gradient(mean))^2).
As ``tf.nn.batch_normalization``: inv = rsqrt(variance + epsilon) * scale; x * inv + (offset - mean * inv).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tpustrategy import _core
from tpustrategy.keras._tensors import scalar

if TYPE_CHECKING:
    from tpustrategy.ops._args import Tensor, TensorLike


def normalize_axes(axis: int | Sequence[int], rank: int, layer_name: str) -> list[int]:
    axes = list(axis) if isinstance(axis, list | tuple) else [axis]
    out = []
    for a in axes:
        if not isinstance(a, int) or not -rank <= a < rank:
            raise ValueError(f"Invalid axis {a!r} for input of rank {rank} in layer {layer_name!r}")
        out.append(a % rank)
    return sorted(set(out))


def moments(x: TensorLike, axes: Sequence[int]) -> tuple[Tensor, Tensor]:
    mean = _core.ops.reduce_mean(x, axes, keepdims=True)
    variance = _core.ops.reduce_mean(_core.ops.square(x - _core.ops.stop_gradient(mean)), axes, keepdims=True)
    return mean, variance


def batch_normalization(x: Tensor, mean: TensorLike, variance: TensorLike, offset: TensorLike | None,
                        scale: TensorLike | None, epsilon: float) -> Tensor:
    inv = _core.ops.rsqrt(variance + scalar(epsilon, x.dtype))
    if scale is not None:
        inv = inv * scale
    shift = (offset - mean * inv) if offset is not None else _core.ops.negative(mean * inv)
    normalized: Tensor = x * inv + shift  # Tensor arithmetic is typed Any in the stubs
    return normalized


def broadcast_param(param: TensorLike, rank: int, axes: list[int], full_shape: Sequence[int]) -> Tensor:
    """A parameter of shape [dims at `axes`] reshaped to broadcast against a rank-`rank` input."""
    shape = [full_shape[i] if i in axes else 1 for i in range(rank)]
    return _core.ops.reshape(param, shape)
