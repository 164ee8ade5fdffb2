#pragma once
// tf.math.top_k: the k largest entries of each row of the last axis, in descending order, ties broken by
// the lower index (TF's order), with their int32 / int64 indices. NaN ranks above every number.
#include <cstdint>
#include <utility>

#include "tpustrategy/core/tensor.h"

namespace tpustrategy {

// (values, indices), both of shape x.shape[:-1] + [k]. InvalidArgumentError for a scalar, k < 0 or
// k > the last dimension; TypeError for bool.
std::pair<Tensor, Tensor> top_k(const Tensor& x, std::int64_t k, DType index_type = DType::kInt32);

}  // namespace tpustrategy
