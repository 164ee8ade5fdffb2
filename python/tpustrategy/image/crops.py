"""Crops and pads of images (tf.image.crop_to_bounding_box, pad_to_bounding_box, resize_with_crop_or_pad,
central_crop, and tf.image.random_crop), with TF 2.21's offsets, its zero padding and its checks of static
sizes (ValueError with TF's wording). Built from slice and pad, so they are differentiable."""

from __future__ import annotations

from typing import Any

from tpustrategy import errors
from tpustrategy.image.flips import _image
from tpustrategy.ops import array_ops, math_ops, random_ops
from tpustrategy.ops._args import TensorLike


def _height_width(x: Any) -> tuple[int, int]:
    shape = x._shape_tuple
    return shape[-3], shape[-2]


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


def crop_to_bounding_box(image: TensorLike, offset_height: int, offset_width: int, target_height: int,
                         target_width: int) -> Any:
    """The `target_height` x `target_width` window of `image` whose top-left corner is at the offsets."""
    x = _image(image)
    height, width = _height_width(x)
    _require(offset_width >= 0, "offset_width must be >= 0.")
    _require(offset_height >= 0, "offset_height must be >= 0.")
    _require(target_width > 0, "target_width must be > 0.")
    _require(target_height > 0, "target_height must be > 0.")
    _require(width >= target_width + offset_width, "width must be >= target + offset.")
    _require(height >= target_height + offset_height, "height must be >= target + offset.")
    lead = [0] * (x.ndim - 3)
    return array_ops.slice(x, [*lead, offset_height, offset_width, 0],
                           [*(-1 for _ in lead), target_height, target_width, -1])


def pad_to_bounding_box(image: TensorLike, offset_height: int, offset_width: int, target_height: int,
                        target_width: int) -> Any:
    """`image` placed at the offsets in a zero `target_height` x `target_width` canvas."""
    x = _image(image)
    height, width = _height_width(x)
    after_width = target_width - offset_width - width
    after_height = target_height - offset_height - height
    _require(offset_height >= 0, "offset_height must be >= 0")
    _require(offset_width >= 0, "offset_width must be >= 0")
    _require(after_width >= 0, "width must be <= target - offset")
    _require(after_height >= 0, "height must be <= target - offset")
    paddings = [[0, 0]] * (x.ndim - 3) + [[offset_height, after_height], [offset_width, after_width], [0, 0]]
    return array_ops.pad(x, paddings)


def resize_with_crop_or_pad(image: TensorLike, target_height: int, target_width: int) -> Any:
    """`image` centrally cropped and/or zero-padded to `target_height` x `target_width` (TF's offsets: the
    extra row or column of an odd difference is cut at the bottom / right and padded there)."""
    x = _image(image)
    _require(target_width > 0, "target_width must be > 0.")
    _require(target_height > 0, "target_height must be > 0.")
    height, width = _height_width(x)
    cropped = crop_to_bounding_box(x, max((height - target_height) // 2, 0), max((width - target_width) // 2, 0),
                                   min(target_height, height), min(target_width, width))
    return pad_to_bounding_box(cropped, max((target_height - height) // 2, 0), max((target_width - width) // 2, 0),
                               target_height, target_width)


def central_crop(image: TensorLike, central_fraction: float) -> Any:
    """The central `central_fraction` of `image`'s height and width, with TF's offsets:
    ``int((size - size * fraction) / 2)`` cut on each side."""
    x = _image(image)
    if central_fraction <= 0.0 or central_fraction > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if central_fraction == 1.0:
        return x
    height, width = _height_width(x)
    top, left = (int((size - size * float(central_fraction)) / 2) for size in (height, width))  # TF: in float64
    return crop_to_bounding_box(x, top, left, height - 2 * top, width - 2 * left)


def random_crop(value: TensorLike, size: Any, seed: int | None = None, name: str | None = None) -> Any:
    """A window of shape `size` at a random offset: TF's draw (an int32 uniform per dimension, modulo the
    number of offsets), so the same seeds crop the same windows as TF 2.21."""
    x = math_ops._tensor(value)
    shape = list(x._shape_tuple)
    size = [int(s) for s in (size.numpy().tolist() if hasattr(size, "numpy") else size)]
    if len(size) != len(shape):
        raise ValueError(f"random_crop: size {size} must have one entry per dimension of the value's shape {shape}")
    if any(s > d for s, d in zip(size, shape, strict=True)):
        raise errors.InvalidArgumentError(  # TF's check is an assert op: an InvalidArgumentError
            None, None, f"Need value.shape >= size, got value.shape = {shape} and size = {size}")
    draws = random_ops.uniform([len(shape)], maxval=2**31 - 1, dtype="int32", seed=seed).numpy().tolist()
    offsets = [int(d) % (dim - s + 1) for d, dim, s in zip(draws, shape, size, strict=True)]
    return array_ops.slice(x, offsets, size)
