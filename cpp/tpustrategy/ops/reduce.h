#pragma once
// Reductions over an axis list (tf.reduce_sum / mean / max / min / prod / any /
// all) and argmax / argmin. float16 / bfloat16 accumulate in float32; the mean
// of integers uses integer division like TF; max / min propagate NaN; reducing
// an empty set gives the identity (0, 1, -inf / lowest, +inf / max, NaN for a float mean).
#include <cstdint>
#include <optional>
#include <vector>

#include "tpustrategy/core/tensor.h"

namespace tpustrategy {

enum class ReduceKind { kSum, kMean, kMax, kMin, kProd, kAny, kAll };

// `axes` = nullopt reduces every axis; an empty list reduces none (as TF's axis=[]).
// Axes may be negative; duplicates are ignored.
Tensor reduce(ReduceKind kind, const Tensor& x, const std::optional<std::vector<std::int64_t>>& axes = std::nullopt,
              bool keepdims = false);

inline Tensor reduce_sum(const Tensor& x, const std::optional<std::vector<std::int64_t>>& axes = std::nullopt,
                         bool keepdims = false) {
  return reduce(ReduceKind::kSum, x, axes, keepdims);
}
inline Tensor reduce_mean(const Tensor& x, const std::optional<std::vector<std::int64_t>>& axes = std::nullopt,
                          bool keepdims = false) {
  return reduce(ReduceKind::kMean, x, axes, keepdims);
}
inline Tensor reduce_max(const Tensor& x, const std::optional<std::vector<std::int64_t>>& axes = std::nullopt,
                         bool keepdims = false) {
  return reduce(ReduceKind::kMax, x, axes, keepdims);
}

// Index of the first maximum (minimum) along `axis`, as int64 (or int32).
Tensor argmax(const Tensor& x, std::int64_t axis = 0, DType output_type = DType::kInt64);
Tensor argmin(const Tensor& x, std::int64_t axis = 0, DType output_type = DType::kInt64);

namespace detail {
// A tensor viewed as [outer, reduced, inner] around a contiguous block of axes [first, last).
struct AxisBlockView {
  std::int64_t outer = 1, reduced = 1, inner = 1;
};
AxisBlockView axis_block_view(const Shape& shape, int first, int last);
}  // namespace detail

}  // namespace tpustrategy
