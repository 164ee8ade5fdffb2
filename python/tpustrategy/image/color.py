"""``tf.image.rgb_to_grayscale`` and ``grayscale_to_rgb``: TF's weights summed over the channels in TF's
order, each product and sum rounded to float32 (what TF's CPU tensordot gives, bit for bit), and the dtype round
trip through float32 (convert_image_dtype)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.image.dtype_conversion import convert_image_dtype
from tpustrategy.ops import math_ops
from tpustrategy.ops._args import TensorLike

_ops = _core.ops
_RGB_WEIGHTS = (0.2989, 0.5870, 0.1140)  # TF's (ITU-R 601-2 luma, rounded)


def rgb_to_grayscale(images: TensorLike, name: str | None = None) -> Any:
    """[..., 3] RGB images as [..., 1] luma, in the images' dtype (tf.image.rgb_to_grayscale)."""
    x = math_ops._tensor(images)
    if x.ndim < 1 or x._shape_tuple[-1] != 3:  # TF's matmul over the channels refuses it
        raise errors.InvalidArgumentError(None, None, f"rgb_to_grayscale needs 3 channels in the last dimension, got "
                                          f"an image of shape {list(x._shape_tuple)}")
    flt = convert_image_dtype(x, _core.tensor.float32)
    gray = None
    for channel, weight in enumerate(_RGB_WEIGHTS):
        term = _ops.multiply(_ops.gather(flt, np.array([channel]), -1), _core.tensor.constant(np.float32(weight)))
        gray = term if gray is None else _ops.add(gray, term)
    return convert_image_dtype(gray, x.dtype)


def grayscale_to_rgb(images: TensorLike, name: str | None = None) -> Any:
    """[..., 1] images repeated into 3 channels (tf.image.grayscale_to_rgb)."""
    x = math_ops._tensor(images)
    if x.ndim < 2 or x._shape_tuple[-1] != 1:
        raise ValueError(f"Dimension must be 1 but is {x._shape_tuple[-1] if x.ndim else 0} for grayscale_to_rgb "
                         f"of an image of shape {list(x._shape_tuple)}")
    return _ops.tile(x, [1] * (x.ndim - 1) + [3])
