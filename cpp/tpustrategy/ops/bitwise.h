#pragma once
// tf.bitwise: and / or / xor / left_shift / right_shift with NumPy broadcasting, and
// invert, for every integer dtype. As TF: shift amounts are clamped to [0, bits - 1]
// (uint8 3 << 9 is 128), right_shift of a signed value is arithmetic.
#include "tpustrategy/core/tensor.h"

namespace tpustrategy {

enum class BitwiseOp { kAnd, kOr, kXor, kLeftShift, kRightShift };

Tensor bitwise(BitwiseOp op, const Tensor& a, const Tensor& b);
Tensor invert(const Tensor& x);

}  // namespace tpustrategy
