"""``tf.image.resize`` with TF 2's sampling (half-pixel centers, no corner alignment) for the BILINEAR (default)
and NEAREST_NEIGHBOR methods, and ``tf.image.per_image_standardization``.

Resizing is gathers of the source rows and columns the TF kernel reads, blended with its float32 weights in its
order (top = top_left + (top_right - top_left) * x_lerp, then the same between top and bottom), so the values
are TF's and a dataset function's static shape follows ([new_height, new_width, channels]).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tpustrategy import _core
from tpustrategy.framework import static_shape
from tpustrategy.ops import math_ops
from tpustrategy.ops._args import TensorLike, int_list

_ops = _core.ops
Tensor = _core.tensor.Tensor


class ResizeMethod:
    """The resize methods' names (tf.image.ResizeMethod); BILINEAR and NEAREST_NEIGHBOR are built."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


def _checked_image(images: TensorLike) -> Tensor:
    x = math_ops._tensor(images)
    static = static_shape.lookup(x)
    if static is not None and static.rank is None:
        raise ValueError("'images' contains no shape.")
    if x.ndim not in (3, 4):
        raise ValueError(f"'images' must have either 3 or 4 dimensions, got shape {list(x._shape_tuple)}.")
    return x


def _source_positions(in_size: int, out_size: int) -> np.ndarray:
    """Where output pixel i samples the input, in float32 as TF's kernel computes it."""
    scale = np.float32(in_size) / np.float32(out_size)
    positions: np.ndarray = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale - np.float32(0.5)
    return positions


def _bilinear_axis(x: Tensor, axis: int, in_size: int, out_size: int) -> tuple[Tensor, Tensor, Tensor]:
    position = _source_positions(in_size, out_size)
    floor = np.floor(position)
    lower = np.maximum(floor, 0).astype(np.int64)
    upper = np.minimum(np.ceil(position), in_size - 1).astype(np.int64)
    lerp = (position - floor).astype(np.float32)
    shape = [out_size] + [1] * (-axis - 1)  # broadcast along the axes after `axis`
    low, high = _ops.gather(x, lower, axis), _ops.gather(x, upper, axis)
    return low, high, _core.tensor.constant(lerp.reshape(shape))


def _nearest_indices(in_size: int, out_size: int) -> np.ndarray:
    scale = np.float32(in_size) / np.float32(out_size)
    index = np.floor((np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale).astype(np.int64)
    clamped: np.ndarray = np.minimum(index, in_size - 1)
    return clamped


def resize(images: TensorLike, size: Sequence[int] | TensorLike, method: str = ResizeMethod.BILINEAR,
           preserve_aspect_ratio: bool = False, antialias: bool = False, name: str | None = None) -> Any:
    """`images` ([height, width, channels] or a batch) resized to `size` = [new_height, new_width]
    (tf.image.resize). BILINEAR gives float32; NEAREST_NEIGHBOR keeps the dtype.

    Raises:
      ValueError: an image that is not 3-D or 4-D, a `size` that is not two positive sizes, or an unknown method.
      NotImplementedError: another method, antialias or preserve_aspect_ratio (not built here).
    """
    x = _checked_image(images)
    new_size = int_list(size, "size")
    if len(new_size) != 2 or min(new_size) <= 0:
        raise ValueError(f"'size' must be a 1-D Tensor of 2 positive elements: new_height, new_width; got {size!r}")
    method = str(method).lower()
    if method not in vars(ResizeMethod).values():
        raise ValueError(f"Resize method is not implemented: [{method}]")
    if method not in (ResizeMethod.BILINEAR, ResizeMethod.NEAREST_NEIGHBOR) or antialias or preserve_aspect_ratio:
        raise NotImplementedError(f"tf.image.resize: method={method!r}, antialias={antialias}, preserve_aspect_ratio="
                                  f"{preserve_aspect_ratio} is not built (BILINEAR and NEAREST_NEIGHBOR are)")
    height, width = x._shape_tuple[-3], x._shape_tuple[-2]
    if method == ResizeMethod.NEAREST_NEIGHBOR:
        rows = _ops.gather(x, _nearest_indices(height, new_size[0]), -3)
        return _ops.gather(rows, _nearest_indices(width, new_size[1]), -2)
    x = _ops.cast(x, _core.tensor.float32)
    top, bottom, y_lerp = _bilinear_axis(x, -3, height, new_size[0])

    def across(rows: Any) -> Any:
        left, right, x_lerp = _bilinear_axis(rows, -2, width, new_size[1])
        return _ops.add(left, _ops.multiply(_ops.subtract(right, left), x_lerp))

    top, bottom = across(top), across(bottom)
    return _ops.add(top, _ops.multiply(_ops.subtract(bottom, top), y_lerp))


def per_image_standardization(image: TensorLike, name: str | None = None) -> Any:
    """(image - mean) / max(stddev, 1 / sqrt(pixels * channels)) over each image's last three axes, in float32
    unless the image is floating (tf.image.per_image_standardization)."""
    x = _checked_image(image)
    if not x.dtype.is_floating:
        x = _ops.cast(x, _core.tensor.float32)
    axes = [-1, -2, -3]
    count = int(np.prod(x._shape_tuple[-3:]))
    mean = _ops.reduce_mean(x, axes, keepdims=True)
    stddev = math_ops.reduce_std(x, axes, keepdims=True)
    floor = _core.tensor.constant(np.array(1.0 / np.sqrt(count), x.dtype.as_numpy_dtype))
    return _ops.divide(_ops.subtract(x, mean), _ops.maximum(stddev, floor))
