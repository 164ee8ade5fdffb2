"""``tpustrategy.image`` (mirrors ``tf.image``): dtype conversion of images, TF 2.21's rules
(image/dtype_conversion.py); flips and TF-exact random flips (image/flips.py); resize (bilinear, nearest) and
per-image standardization (image/resize.py); RGB <-> grayscale (image/color.py); crops and pads (image/crops.py);
brightness and contrast (image/adjust.py)."""

from __future__ import annotations

from tpustrategy.image.adjust import adjust_brightness, adjust_contrast, random_brightness, random_contrast
from tpustrategy.image.color import grayscale_to_rgb, rgb_to_grayscale
from tpustrategy.image.crops import (
    central_crop,
    crop_to_bounding_box,
    pad_to_bounding_box,
    random_crop,
    resize_with_crop_or_pad,
)
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
    "adjust_brightness",
    "adjust_contrast",
    "central_crop",
    "crop_to_bounding_box",
    "pad_to_bounding_box",
    "random_brightness",
    "random_contrast",
    "random_crop",
    "resize_with_crop_or_pad",
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
