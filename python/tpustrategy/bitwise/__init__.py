"""``tpustrategy.bitwise`` (mirrors ``tf.bitwise``)."""

from __future__ import annotations

from tpustrategy._core.ops import (  # C++ kernels for every integer dtype
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    invert,
    left_shift,
    right_shift,
)

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]
