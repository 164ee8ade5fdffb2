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

// Whether input `i` of the call being differentiated needs a gradient (TF's skip_input_indices):
// the tape drops the others, so a gradient function may skip their work and return nullopt for
// them. Read it first thing in the gradient function (before running any op). True outside a
// tape's backward pass.
bool gradient_input_needed(std::size_t i);

// Sets what gradient_input_needed reports while a tape runs one gradient function.
class NeededInputsScope {
 public:
  explicit NeededInputsScope(const std::vector<bool>& needed);
  ~NeededInputsScope();
  NeededInputsScope(const NeededInputsScope&) = delete;
  NeededInputsScope& operator=(const NeededInputsScope&) = delete;
};

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
