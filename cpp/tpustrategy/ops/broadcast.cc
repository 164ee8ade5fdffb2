#include "tpustrategy/ops/broadcast.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "tpustrategy/core/errors.h"

namespace tpustrategy {

std::string dims_to_string(const Shape& shape) { return fmt::format("[{}]", fmt::join(shape, ",")); }

void check_output_shape(const Shape& shape, const char* where) {
  constexpr std::int64_t kMax = std::int64_t{1} << 48;
  std::int64_t product = 1;
  for (auto d : shape) {
    if (d < 0)
      fail<InvalidArgumentError>(where, "dimensions must be non-negative, got shape {}", dims_to_string(shape));
    if (d > kMax || (d > 0 && product > kMax / d)) {
      fail<InvalidArgumentError>(where, "shape {} is too large", dims_to_string(shape));
    }
    if (d > 0) product *= d;
  }
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* where) {
  const std::size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      fail<InvalidArgumentError>(where, "Incompatible shapes: {} vs. {}", dims_to_string(a), dims_to_string(b));
    }
  }
  return out;
}

std::vector<std::int64_t> broadcast_strides(const Shape& in, const Shape& out) {
  std::vector<std::int64_t> strides(out.size(), 0);
  const std::size_t lead = out.size() - in.size();
  std::int64_t s = 1;
  for (int i = static_cast<int>(in.size()) - 1; i >= 0; --i) {
    strides[lead + i] = in[i] == 1 ? 0 : s;
    s *= in[i];
  }
  return strides;
}

namespace {

// Drops size-1 output dims and merges adjacent dims that are contiguous in every input.
void collapse(BroadcastPlan& plan, const Shape& out, std::array<std::vector<std::int64_t>, kMaxPlanInputs> strides) {
  plan.out_shape = out;
  plan.num_elements = num_elements(out);
  plan.dims.clear();
  for (int k = 0; k < plan.num_inputs; ++k) plan.strides[k].clear();
  for (std::size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 1) continue;
    bool merge = !plan.dims.empty();
    for (int k = 0; k < plan.num_inputs && merge; ++k) {
      merge = plan.strides[k].back() == strides[k][d] * out[d];
    }
    if (merge) {
      plan.dims.back() *= out[d];
      for (int k = 0; k < plan.num_inputs; ++k) plan.strides[k].back() = strides[k][d];
    } else {
      plan.dims.push_back(out[d]);
      for (int k = 0; k < plan.num_inputs; ++k) plan.strides[k].push_back(strides[k][d]);
    }
  }
  if (plan.dims.empty()) {
    plan.dims.push_back(1);
    for (int k = 0; k < plan.num_inputs; ++k) plan.strides[k].push_back(0);
  }
  if (plan.dims.size() > 64) fail<InvalidArgumentError>("broadcast", "tensors of rank > 64 are not supported");
}

}  // namespace

BroadcastPlan plan_broadcast(const std::vector<Shape>& input_shapes, const Shape& out_shape) {
  BroadcastPlan plan;
  plan.num_inputs = static_cast<int>(input_shapes.size());
  if (plan.num_inputs > kMaxPlanInputs) fail<InternalError>("plan_broadcast", "too many inputs");
  std::array<std::vector<std::int64_t>, kMaxPlanInputs> strides;
  for (int k = 0; k < plan.num_inputs; ++k) strides[k] = broadcast_strides(input_shapes[k], out_shape);
  collapse(plan, out_shape, std::move(strides));
  return plan;
}

BroadcastPlan plan_strided(const Shape& out_shape, const std::vector<std::int64_t>& strides, std::int64_t base) {
  BroadcastPlan plan;
  plan.num_inputs = 1;
  plan.base[0] = base;
  std::array<std::vector<std::int64_t>, kMaxPlanInputs> s;
  s[0] = strides;
  collapse(plan, out_shape, std::move(s));
  return plan;
}

}  // namespace tpustrategy
