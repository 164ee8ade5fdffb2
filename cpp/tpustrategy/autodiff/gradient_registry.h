#pragma once
// Gradient functions by op type. Each takes the recorded call and the gradients of
// its outputs (dense; zeros for outputs that got none) and returns one gradient per
// input (nullopt: none, e.g. integer inputs or non-differentiable ops). They are
// written with the dispatched ops (recorded_ops.h), so outer tapes record them.
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "tpustrategy/autodiff/indexed_slices.h"
#include "tpustrategy/autodiff/op_call.h"

namespace tpustrategy {

// The function for `op`, or null when the op has no gradient registered.
const GradFn* find_gradient(std::string_view op);
// Op types with a gradient function (sorted), for documentation and tests.
std::vector<std::string_view> ops_with_gradients();

namespace detail {
using GradRegistry = std::vector<std::pair<std::string_view, GradFn>>;
void register_elementwise_gradients(GradRegistry& r);
void register_reduce_gradients(GradRegistry& r);
void register_shape_gradients(GradRegistry& r);
void register_nn_gradients(GradRegistry& r);
void register_matmul_gradients(GradRegistry& r);
void register_conv_gradients(GradRegistry& r);
void register_top_k_gradients(GradRegistry& r);
void register_complex_gradients(GradRegistry& r);
// A gradient list of the given size, all none.
inline std::vector<std::optional<Grad>> no_grads(std::size_t n) { return std::vector<std::optional<Grad>>(n); }
// `grad` summed over the axes along which `shape` was broadcast, reshaped to `shape`.
Tensor reduce_to_shape(const Tensor& grad, const Shape& shape);
}  // namespace detail

}  // namespace tpustrategy
