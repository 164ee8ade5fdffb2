"""What BatchNormalization and LayerNormalization share: axes handling and TF's normalisation formulas.

As ``tf.nn.moments``: mean over the axes, variance = mean((x - stop_gradient(mean))^2).
As ``tf.nn.batch_normalization``: inv = rsqrt(variance + epsilon) * scale; x * inv + (offset - mean * inv).
"""

from __future__ import annotations

from tpustrategy import _core
from tpustrategy.keras._tensors import scalar


def normalize_axes(axis, rank: int, layer_name: str) -> list[int]:
    axes = list(axis) if isinstance(axis, list | tuple) else [axis]
    out = []
    for a in axes:
        if not isinstance(a, int) or not -rank <= a < rank:
            raise ValueError(f"Invalid axis {a!r} for input of rank {rank} in layer {layer_name!r}")
        out.append(a % rank)
    return sorted(set(out))


def moments(x, axes):
    mean = _core.ops.reduce_mean(x, axes, keepdims=True)
    variance = _core.ops.reduce_mean(_core.ops.square(x - _core.ops.stop_gradient(mean)), axes, keepdims=True)
    return mean, variance


def batch_normalization(x, mean, variance, offset, scale, epsilon):
    inv = _core.ops.rsqrt(variance + scalar(epsilon, x.dtype))
    if scale is not None:
        inv = inv * scale
    shift = (offset - mean * inv) if offset is not None else _core.ops.negative(mean * inv)
    return x * inv + shift


def broadcast_param(param, rank: int, axes: list[int], full_shape):
    """A parameter of shape [dims at `axes`] reshaped to broadcast against a rank-`rank` input."""
    shape = [full_shape[i] if i in axes else 1 for i in range(rank)]
    return _core.ops.reshape(param, shape)
