#pragma once
// Matrix multiplication (tf.linalg.matmul) on Eigen's GEMM: inputs of rank >= 2
// whose leading (batch) dimensions broadcast. float32 / float64 / int32 / int64
// multiply in their own type; float16 / bfloat16 multiply in float32 and round once.
#include "tpustrategy/core/tensor.h"

namespace tpustrategy {

Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a = false, bool transpose_b = false);

}  // namespace tpustrategy
