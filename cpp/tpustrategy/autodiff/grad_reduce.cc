// Gradients of the reductions: the output gradient broadcast back over the reduced
// axes (Sum), divided by the count (Mean), shared among the tied extremes (Max /
// Min, as TF), and the product of the other elements (Prod, exact with zeros).
#include <set>

#include "tpustrategy/autodiff/gradient_registry.h"
#include "tpustrategy/autodiff/recorded_ops.h"

namespace tpustrategy::detail {

namespace {

using Grads = std::vector<std::optional<Grad>>;

// The reduced axes (sorted, non-negative) of a recorded reduction.
std::vector<std::int64_t> reduced_axes(const OpCall& c) {
  const int rank = c.inputs[0].rank();
  const auto& axes = c.attrs.get<op::Axes>("axes");
  std::set<std::int64_t> out;
  if (!axes) {
    for (int d = 0; d < rank; ++d) out.insert(d);
  } else {
    for (std::int64_t a : *axes) out.insert(normalize_axis(a, rank, "ReduceGrad"));
  }
  return {out.begin(), out.end()};
}

// x's shape with 1 on the reduced axes.
std::vector<std::int64_t> keepdims_shape(const Shape& shape, const std::vector<std::int64_t>& axes) {
  std::vector<std::int64_t> kd(shape.begin(), shape.end());
  for (std::int64_t a : axes) kd[a] = 1;
  return kd;
}

Tensor broadcast_back(const OpCall& c, const Tensor& g) {
  const Tensor& x = c.inputs[0];
  return op::broadcast_to(op::reshape(g, keepdims_shape(x.shape(), reduced_axes(c))), x.shape());
}

Grads prod_grad(const OpCall& c, const Tensor& g) {
  // Move the reduced axes first and flatten them: xr is [R, rest]; the gradient of
  // element i is g * prod_{j<i} x_j * prod_{j>i} x_j, built from running products.
  const Tensor& x = c.inputs[0];
  const auto axes = reduced_axes(c);
  std::vector<std::int64_t> perm(axes), kept;
  for (int d = 0; d < x.rank(); ++d) {
    if (!std::binary_search(axes.begin(), axes.end(), d)) kept.push_back(d);
  }
  perm.insert(perm.end(), kept.begin(), kept.end());
  std::int64_t reduced = 1, rest = 1;
  for (std::int64_t a : axes) reduced *= x.shape()[a];
  for (std::int64_t d : kept) rest *= x.shape()[d];
  Tensor xr = op::reshape(op::transpose(x, perm), {reduced, rest});
  std::vector<Tensor> rows = reduced > 0 ? op::unstack(xr, 0) : std::vector<Tensor>{};
  std::vector<Tensor> left(rows.size()), right(rows.size());
  Tensor one = op::ones({rest}, x.dtype());
  for (std::size_t i = 0; i < rows.size(); ++i) left[i] = i == 0 ? one : op::mul(left[i - 1], rows[i - 1]);
  for (std::size_t i = rows.size(); i-- > 0;) {
    right[i] = i + 1 == rows.size() ? one : op::mul(right[i + 1], rows[i + 1]);
  }
  Tensor gr = op::reshape(g, {1, rest});
  std::vector<Tensor> parts;
  for (std::size_t i = 0; i < rows.size(); ++i) parts.push_back(op::mul(left[i], right[i]));
  Tensor others = rows.empty() ? op::zeros({0, rest}, x.dtype()) : op::stack(parts, 0);
  Tensor dxr = op::mul(others, gr);
  // Back to x's layout: un-flatten to the permuted shape, then invert the permutation.
  std::vector<std::int64_t> permuted_shape;
  permuted_shape.reserve(perm.size());
  for (std::int64_t d : perm) permuted_shape.push_back(x.shape()[d]);
  std::vector<std::int64_t> inverse(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<std::int64_t>(i);
  return {Grad(op::transpose(op::reshape(dxr, permuted_shape), inverse))};
}

}  // namespace

void register_reduce_gradients(GradRegistry& r) {
  r.emplace_back(
      "Sum", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads { return {Grad(broadcast_back(c, g[0]))}; });
  r.emplace_back("Mean", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    std::int64_t count = 1;
    for (std::int64_t a : reduced_axes(c)) count *= c.inputs[0].shape()[a];
    // Divided before the broadcast: the same quotient in every element, one pass over the input's size fewer.
    return {Grad(broadcast_back(c, op::div(g[0], op::scalar_like(g[0], static_cast<double>(count)))))};
  });
  for (const char* name : {"Max", "Min"}) {
    r.emplace_back(name, [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
      const Tensor& x = c.inputs[0];
      const auto axes = reduced_axes(c);
      const auto kd = keepdims_shape(x.shape(), axes);
      Tensor hits = op::cast(op::binary(BinaryOp::kEqual, x, op::reshape(c.outputs[0], kd)), x.dtype());
      Tensor count = op::reduce_sum(hits, axes, true);
      return {Grad(op::mul(op::div(hits, count), op::reshape(g[0], kd)))};
    });
  }
  r.emplace_back("Prod", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads { return prod_grad(c, g[0]); });
}

}  // namespace tpustrategy::detail
