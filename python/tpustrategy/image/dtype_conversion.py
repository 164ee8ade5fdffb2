"""``tf.image.convert_image_dtype`` as TF 2.21 does it: integer images hold [0, MAX] of their dtype, floating
images [0, 1]; integer -> integer shifts bits (uint8 1 -> uint16 256), integer -> float divides by MAX,
float -> integer multiplies by MAX + 0.5 and truncates (``saturate`` clips first)."""

from __future__ import annotations

from typing import Any

from tpustrategy import _core
from tpustrategy.ops import math_ops
from tpustrategy.ops._args import TensorLike

_ops = _core.ops


def _bits(dtype: _core.tensor.DType) -> int:
    """Value bits of an integer dtype (7 for int8, 8 for uint8, …)."""
    return dtype.size * 8 - (0 if dtype.is_unsigned else 1)


def convert_image_dtype(image: TensorLike, dtype: Any, saturate: bool = False, name: str | None = None) -> Any:
    """Converts `image` to `dtype`, rescaling the values (tf.image.convert_image_dtype).

    Raises:
      AttributeError / TypeError: `dtype` or the image's dtype is neither integer nor floating.
    """
    image = math_ops._tensor(image)
    dtype = _core.tensor.DType(dtype)
    for d in (image.dtype, dtype):
        if not (d.is_integer or d.is_floating):
            raise AttributeError(f"{d!r} is not a floating-point or integer type for convert_image_dtype")
    src = image.dtype
    if src == dtype:
        return image
    if src.is_integer and dtype.is_integer:
        shift = _bits(src) - _bits(dtype)
        if shift > 0:  # narrowing: drop low bits before the cast
            return _ops.cast(_ops.floordiv(image, 2**shift), dtype)
        return _ops.multiply(_ops.cast(image, dtype), _core.tensor.constant(2**-shift, dtype))
    if src.is_floating and dtype.is_floating:
        return _ops.cast(image, dtype)
    if src.is_integer:  # integer -> float: x * (1 / MAX) computed in float
        return _ops.multiply(_ops.cast(image, dtype), _core.tensor.constant(1.0 / src.max, dtype))
    scale = _core.tensor.constant(dtype.max + 0.5, src)  # float -> integer
    scaled = _ops.multiply(image, scale)
    if saturate:
        scaled = _ops.minimum(_ops.maximum(scaled, _core.tensor.constant(float(dtype.min), src)),
                              _core.tensor.constant(float(dtype.max), src))
    return _ops.cast(scaled, dtype)
