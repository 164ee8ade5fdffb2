// Gradients of the layout ops: reshape-like ops reshape back, transpose inverts
// its permutation, concat / stack / split / unstack invert each other, tile sums
// the copies, slices scatter into zeros, and gather gives IndexedSlices (axis 0, as
// TF) or a dense segment sum (other axes).
#include "tpustrategy/autodiff/gradient_registry.h"
#include "tpustrategy/autodiff/recorded_ops.h"

namespace tpustrategy::detail {

namespace {

using Grads = std::vector<std::optional<Grad>>;

std::vector<std::int64_t> dims(const Shape& s) { return {s.begin(), s.end()}; }

Grads reshape_back(const OpCall& c, const std::vector<Tensor>& g) {
  Grads out(c.inputs.size());
  out[0] = op::reshape(g[0], dims(c.inputs[0].shape()));
  return out;
}

Grads gather_grad(const OpCall& c, const std::vector<Tensor>& g) {
  const Tensor &x = c.inputs[0], &indices = c.inputs[1];
  const int axis = normalize_axis(c.attrs.get<std::int64_t>("axis"), x.rank(), "GatherGrad");
  const std::int64_t n = indices.num_elements();
  Tensor flat_indices = op::reshape(indices, {n});
  if (axis == 0) {
    std::vector<std::int64_t> values_shape = dims(x.shape());
    values_shape[0] = n;
    return {Grad(IndexedSlices{op::reshape(g[0], values_shape), flat_indices, x.shape()}), std::nullopt};
  }
  // g is x.shape[:axis] + indices.shape + x.shape[axis+1:]: flatten the index dims, bring
  // them first, sum rows per index, and move the axis back.
  std::vector<std::int64_t> grouped(x.shape().begin(), x.shape().end());
  grouped[axis] = n;
  std::vector<std::int64_t> perm{axis}, inverse(x.rank());
  for (int d = 0; d < x.rank(); ++d) {
    if (d != axis) perm.push_back(d);
  }
  for (int i = 0; i < x.rank(); ++i) inverse[perm[i]] = i;
  Tensor values = op::transpose(op::reshape(g[0], grouped), perm);
  Tensor summed = op::unsorted_segment_sum(values, flat_indices, x.shape()[axis]);
  return {Grad(op::transpose(summed, inverse)), std::nullopt};
}

}  // namespace

void register_shape_gradients(GradRegistry& r) {
  for (const char* name : {"Reshape", "ExpandDims", "Squeeze"}) r.emplace_back(name, reshape_back);
  r.emplace_back("Transpose", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    const int rank = c.inputs[0].rank();
    auto perm = c.attrs.get<std::vector<std::int64_t>>("perm");
    if (perm.empty()) {
      for (int i = rank - 1; i >= 0; --i) perm.push_back(i);
    }
    std::vector<std::int64_t> inverse(rank);
    for (int i = 0; i < rank; ++i) inverse[normalize_axis(perm[i], rank, "TransposeGrad")] = i;
    return {Grad(op::transpose(g[0], inverse))};
  });
  r.emplace_back("ConcatV2", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    const int axis = normalize_axis(c.attrs.get<std::int64_t>("axis"), c.inputs[0].rank(), "ConcatGrad");
    std::vector<std::int64_t> sizes;
    for (const Tensor& in : c.inputs) sizes.push_back(in.shape()[axis]);
    Grads out;
    for (Tensor& part : op::split_sizes(g[0], sizes, axis)) out.emplace_back(std::move(part));
    return out;
  });
  r.emplace_back("Pack", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    Grads out;
    for (Tensor& part : op::unstack(g[0], c.attrs.get<std::int64_t>("axis"))) out.emplace_back(std::move(part));
    return out;
  });
  r.emplace_back("Unpack", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    return {Grad(op::stack(g, c.attrs.get<std::int64_t>("axis")))};
  });
  for (const char* name : {"Split", "SplitV"}) {
    r.emplace_back(name, [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
      return {Grad(op::concat(g, c.attrs.get<std::int64_t>("axis")))};
    });
  }
  r.emplace_back("Tile", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    const Tensor& x = c.inputs[0];
    const auto& multiples = c.attrs.get<std::vector<std::int64_t>>("multiples");
    std::vector<std::int64_t> split_shape, copy_axes;
    for (int d = 0; d < x.rank(); ++d) {
      copy_axes.push_back(static_cast<std::int64_t>(split_shape.size()));
      split_shape.push_back(multiples[d]);
      split_shape.push_back(x.shape()[d]);
    }
    return {Grad(op::reduce_sum(op::reshape(g[0], split_shape), copy_axes, false))};
  });
  r.emplace_back("BroadcastTo", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    return {Grad(reduce_to_shape(g[0], c.inputs[0].shape()))};
  });
  r.emplace_back("Slice", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    const Shape& shape = c.inputs[0].shape();
    const auto& begin = c.attrs.get<std::vector<std::int64_t>>("begin");
    std::vector<std::int64_t> paddings;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      paddings.push_back(begin[d]);
      paddings.push_back(shape[d] - begin[d] - g[0].shape()[d]);
    }
    return {Grad(op::pad(g[0], paddings))};
  });
  r.emplace_back("Pad", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    const auto& paddings = c.attrs.get<std::vector<std::int64_t>>("paddings");
    std::vector<std::int64_t> begin;
    for (std::size_t d = 0; d < paddings.size() / 2; ++d) begin.push_back(paddings[2 * d]);
    return {Grad(op::slice(g[0], begin, dims(c.inputs[0].shape())))};
  });
  r.emplace_back("StridedSlice", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    return {Grad(op::strided_slice_grad(g[0], c.inputs[0].shape(), c.attrs.get<std::vector<IndexItem>>("items")))};
  });
  r.emplace_back("StridedSliceGrad", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    return {Grad(op::get_item(g[0], c.attrs.get<std::vector<IndexItem>>("items")))};
  });
  r.emplace_back("GatherV2", gather_grad);
  r.emplace_back("UnsortedSegmentSum", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    // Rows of g picked by segment id; dropped (negative) ids get zeros.
    const Tensor& ids = c.inputs[1];
    Tensor safe = op::binary(BinaryOp::kMaximum, ids, op::zeros_like(ids));
    Tensor picked = op::gather(g[0], safe, 0);
    std::vector<std::int64_t> mask_shape(picked.rank(), 1);
    mask_shape[0] = ids.num_elements();
    Tensor keep = op::reshape(op::binary(BinaryOp::kGreaterEqual, ids, op::zeros_like(ids)), mask_shape);
    return {Grad(op::where(keep, picked, op::zeros_like(picked))), std::nullopt};
  });
  r.emplace_back("Fill",
                 [](const OpCall&, const std::vector<Tensor>& g) -> Grads { return {Grad(op::reduce_sum(g[0]))}; });
}

}  // namespace tpustrategy::detail
