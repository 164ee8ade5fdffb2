"""Brightness and contrast (tf.image.adjust_brightness / adjust_contrast and their random forms), as TF 2.21
computes them: integer and float64 images are converted to float32 first and back (saturating) after, float16
and float32 are adjusted as they are; contrast moves each channel of each image away from its mean over height
and width. The random forms draw one ``tf.random.uniform`` under TF's seed rules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tpustrategy import _core
from tpustrategy.image.dtype_conversion import convert_image_dtype
from tpustrategy.ops import math_ops, random_ops
from tpustrategy.ops._args import TensorLike

_ops = _core.ops


def _adjusted(image: TensorLike, adjust: Callable[[Any], Any]) -> Any:
    x = math_ops._tensor(image)
    if not (x.dtype.is_floating or x.dtype.is_integer):
        raise TypeError(f"an image must be of a floating-point or integer dtype, got {x.dtype.name}")
    kept = x.dtype.name in ("float16", "float32")
    flt = x if kept else convert_image_dtype(x, "float32")
    return convert_image_dtype(adjust(flt), x.dtype, saturate=True)


def adjust_brightness(image: TensorLike, delta: Any) -> Any:
    """`image` plus `delta` (in [0, 1) units of the image's range for integer images)."""
    return _adjusted(image, lambda flt: _ops.add(flt, math_ops.cast(delta, flt.dtype)))


def adjust_contrast(images: TensorLike, contrast_factor: Any) -> Any:
    """``(x - mean) * contrast_factor + mean``, the mean of each channel over the last-but-one two dimensions."""
    x = math_ops._tensor(images)
    if x.ndim < 3:
        raise ValueError(f"'images' (shape {list(x._shape_tuple)}) must be at least three-dimensional.")

    def adjust(flt: Any) -> Any:
        values = flt.numpy()
        mean = _folded_mean(values.reshape(-1, values.shape[-3] * values.shape[-2], values.shape[-1]))
        mean = mean.reshape(*values.shape[:-3], 1, 1, values.shape[-1]).astype(values.dtype)
        factor = np.asarray(math_ops._tensor(contrast_factor).numpy(), values.dtype)
        return _core.tensor.constant((values - mean) * factor + mean, flt.dtype)

    return _adjusted(x, adjust)


def _folded_mean(planes: np.ndarray) -> np.ndarray:
    """The per-channel mean of [batch, pixels, channels] the way TF's AdjustContrastv2 kernel sums in float32:
    the pixels folded in halves (the odd middle row kept) until one is left, then times 1 / pixels, so the
    results are TF's to the last bit."""
    total = planes.astype(np.float32)
    remaining = total.shape[1]
    while remaining > 1:
        right = remaining // 2
        left = remaining - right
        total = np.concatenate([total[:, :right] + total[:, left:left + right], total[:, right:left]], axis=1)
        remaining = left
    mean: np.ndarray = total[:, 0] * np.float32(1.0 / planes.shape[1])
    return mean


def random_brightness(image: TensorLike, max_delta: float, seed: int | None = None) -> Any:
    """adjust_brightness by a delta drawn uniformly from [-max_delta, max_delta)."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def random_contrast(image: TensorLike, lower: float, upper: float, seed: int | None = None) -> Any:
    """adjust_contrast by a factor drawn uniformly from [lower, upper)."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    factor = random_ops.uniform([], lower, upper, seed=seed)
    return adjust_contrast(image, factor)
