#pragma once
// NumPy / TF broadcasting: the broadcast shape of several operands, and an
// iteration plan that walks an output while reading inputs through (possibly
// zero, negative or permuted) element strides. Adjacent dimensions laid out
// compatibly in every input are merged, so a contiguous operand or a scalar
// becomes one long run that kernels hand to Eigen.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tpustrategy/core/shape.h"

namespace tpustrategy {

// TF's shape text in error messages: "[2,3]".
std::string dims_to_string(const Shape& shape);

// Validates a user-supplied output shape: dims non-negative and small enough that no element
// count or stride overflows (each dim <= 2^48, product of the non-zero dims <= 2^48);
// throws InvalidArgumentError naming `where` and the shape.
void check_output_shape(const Shape& shape, const char* where);

// The broadcast of `a` and `b`; throws InvalidArgumentError "Incompatible shapes: [2,3] vs. [4]".
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* where);
// Row-major strides of `in` viewed as broadcast to `out` (0 on broadcast dims), aligned to out's rank.
std::vector<std::int64_t> broadcast_strides(const Shape& in, const Shape& out);

inline constexpr int kMaxPlanInputs = 3;

struct BroadcastPlan {
  Shape out_shape;  // the logical output shape
  Shape dims;       // collapsed dims, never empty
  int num_inputs = 0;
  std::array<std::vector<std::int64_t>, kMaxPlanInputs> strides;  // per input, per collapsed dim
  std::array<std::int64_t, kMaxPlanInputs> base{};                // starting offset per input
  std::int64_t num_elements = 0;
};

// Plan for inputs of `input_shapes` broadcast to `out_shape` (which they must be compatible with).
BroadcastPlan plan_broadcast(const std::vector<Shape>& input_shapes, const Shape& out_shape);
// Plan for one input read at `base + sum(index[d] * strides[d])` for each output index.
BroadcastPlan plan_strided(const Shape& out_shape, const std::vector<std::int64_t>& strides, std::int64_t base);

// Calls run(out_offset, in_offsets, len) for the runs of the innermost collapsed
// dimension that cover output elements [begin, end); in_offsets[k] is the element
// offset of input k at out_offset, and input k advances by inner_stride(plan, k).
template <typename Run>
void for_each_run(const BroadcastPlan& plan, std::int64_t begin, std::int64_t end, Run&& run) {
  if (begin >= end) return;
  const int rank = static_cast<int>(plan.dims.size());
  std::int64_t idx[64];
  std::array<std::int64_t, kMaxPlanInputs> off = plan.base;
  std::int64_t rem = begin;
  for (int d = rank - 1; d >= 0; --d) {
    idx[d] = rem % plan.dims[d];
    rem /= plan.dims[d];
    for (int k = 0; k < plan.num_inputs; ++k) off[k] += idx[d] * plan.strides[k][d];
  }
  std::int64_t pos = begin;
  const std::int64_t inner = plan.dims[rank - 1];
  while (pos < end) {
    std::int64_t len = std::min(inner - idx[rank - 1], end - pos);
    run(pos, off, len);
    pos += len;
    if (pos >= end) break;
    idx[rank - 1] += len;
    for (int k = 0; k < plan.num_inputs; ++k) off[k] += len * plan.strides[k][rank - 1];
    for (int d = rank - 1; d > 0 && idx[d] == plan.dims[d]; --d) {
      idx[d] = 0;
      ++idx[d - 1];
      for (int k = 0; k < plan.num_inputs; ++k) {
        off[k] += plan.strides[k][d - 1] - plan.dims[d] * plan.strides[k][d];
      }
    }
  }
}

inline std::int64_t inner_stride(const BroadcastPlan& plan, int input) { return plan.strides[input].back(); }

// Elements per parallel chunk for elementwise work: large enough that a pool hand-off is noise.
inline constexpr std::int64_t kElementwiseGrain = std::int64_t{1} << 15;

}  // namespace tpustrategy
