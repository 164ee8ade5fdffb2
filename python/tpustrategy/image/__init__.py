"""``tpustrategy.image`` (mirrors ``tf.image``): dtype conversion of images, TF 2.21's rules
(image/dtype_conversion.py); flips and TF-exact random flips (image/flips.py); resize (bilinear, nearest) and
per-image standardization (image/resize.py); RGB <-> grayscale (image/color.py)."""

from __future__ import annotations

from tpustrategy.image.color import grayscale_to_rgb, rgb_to_grayscale
from tpustrategy.image.dtype_conversion import convert_image_dtype
from tpustrategy.image.flips import (
    flip_left_right,
    flip_up_down,
    random_flip_left_right,
    random_flip_up_down,
    stateless_random_flip_left_right,
    stateless_random_flip_up_down,
)
from tpustrategy.image.resize import ResizeMethod, per_image_standardization, resize

__all__ = [
    "ResizeMethod",
    "convert_image_dtype",
    "flip_left_right",
    "flip_up_down",
    "grayscale_to_rgb",
    "per_image_standardization",
    "random_flip_left_right",
    "random_flip_up_down",
    "resize",
    "rgb_to_grayscale",
    "stateless_random_flip_left_right",
    "stateless_random_flip_up_down",
]
