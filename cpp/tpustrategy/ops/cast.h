#pragma once
// dtype conversion (tf.cast). Float to integer truncates toward zero and
// saturates (NaN becomes 0); anything to bool is `x != 0`; conversions to
// float16 / bfloat16 round to nearest even.
#include "tpustrategy/core/tensor.h"

namespace tpustrategy {

// Returns `x` itself when it already has `dtype` (as tf.cast does).
Tensor cast(const Tensor& x, DType dtype);

}  // namespace tpustrategy
