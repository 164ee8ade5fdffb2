#include "tpustrategy/autodiff/recorded_ops.h"

#include <utility>

#include "tpustrategy/autodiff/dispatch.h"
#include "tpustrategy/autodiff/op_trace_hook.h"
#include "tpustrategy/autodiff/static_shapes.h"
#include "tpustrategy/ops/cast.h"
#include "tpustrategy/ops/creation.h"
#include "tpustrategy/ops/matmul.h"
#include "tpustrategy/ops/nn.h"
#include "tpustrategy/ops/scatter.h"
#include "tpustrategy/ops/shape_ops.h"

namespace tpustrategy::op {

namespace {

// Records a one-output op (callers check recording() first; `make_attrs` runs only then).
template <typename MakeAttrs>
Tensor record1(std::string_view name, std::vector<Tensor> inputs, Tensor out, MakeAttrs&& make_attrs) {
  return record_op(name, std::move(inputs), {std::move(out)}, make_attrs()).front();
}

OpAttrs no_attrs() { return {}; }

// An op that no tape records: only the profiler hook sees it.
Tensor traced(std::string_view name, std::initializer_list<const Tensor*> inputs, Tensor out) {
  trace_op(name, inputs, out);
  return out;
}

constexpr std::string_view kReduceNames[] = {"Sum", "Mean", "Max", "Min", "Prod", "Any", "All"};

// TF's static shape of `out` while a Dataset function's spec is found (static_shapes.h), by `infer`; an op that
// returned one of its inputs leaves that input's entry as it is.
template <typename Infer>
void infer_static(std::initializer_list<const Tensor*> inputs, const Tensor& out, Infer&& infer) {
  if (!static_shapes::active()) return;
  for (const Tensor* t : inputs)
    if (t->id() == out.id()) return;
  infer();
}

template <typename Infer>
void infer_static(std::span<const Tensor> inputs, const Tensor& out, Infer&& infer) {
  if (!static_shapes::active()) return;
  for (const Tensor& t : inputs)
    if (t.id() == out.id()) return;
  infer();
}

}  // namespace

Tensor unary(UnaryOp kind, const Tensor& x) {
  Tensor out = tpustrategy::unary(kind, x);
  trace_op(op_name(kind), {&x}, out);
  infer_static({&x}, out, [&] { static_shapes::same_as(x, out); });
  if (!recording() || !tracked({&x})) return out;
  return record1(op_name(kind), {x}, std::move(out), no_attrs);
}

Tensor binary(BinaryOp kind, const Tensor& a, const Tensor& b) {
  Tensor out = tpustrategy::binary(kind, a, b);
  trace_op(op_name(kind), {&a, &b}, out);
  infer_static({&a, &b}, out, [&] { static_shapes::broadcast({&a, &b}, out); });
  if (!recording() || !tracked({&a, &b})) return out;
  return record1(op_name(kind), {a, b}, std::move(out), no_attrs);
}

Tensor cast(const Tensor& x, DType dtype) {
  Tensor out = tpustrategy::cast(x, dtype);
  trace_op("Cast", {&x}, out);
  infer_static({&x}, out, [&] { static_shapes::same_as(x, out); });
  if (!recording() || out.id() == x.id()) return out;  // same dtype: the input itself, as TF
  return record1("Cast", {x}, std::move(out), no_attrs);
}

Tensor reduce(ReduceKind kind, const Tensor& x, const Axes& axes, bool keepdims) {
  Tensor out = tpustrategy::reduce(kind, x, axes, keepdims);
  trace_op(kReduceNames[static_cast<int>(kind)], {&x}, out);
  infer_static({&x}, out, [&] { static_shapes::reduce(x, axes, keepdims, out); });
  if (!recording() || !tracked({&x})) return out;
  return record1(kReduceNames[static_cast<int>(kind)], {x}, std::move(out), [&] {
    return OpAttrs{{"axes", axes}, {"keepdims", keepdims}};
  });
}

Tensor argmax(const Tensor& x, std::int64_t axis, DType output_type) {
  Tensor out = tpustrategy::argmax(x, axis, output_type);  // integer output: nothing to record
  trace_op("ArgMax", {&x}, out);
  infer_static({&x}, out, [&] { static_shapes::arg_reduce(x, axis, out); });
  return out;
}

Tensor argmin(const Tensor& x, std::int64_t axis, DType output_type) {
  Tensor out = tpustrategy::argmin(x, axis, output_type);
  trace_op("ArgMin", {&x}, out);
  infer_static({&x}, out, [&] { static_shapes::arg_reduce(x, axis, out); });
  return out;
}

Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b) {
  Tensor out = tpustrategy::matmul(a, b, transpose_a, transpose_b);
  trace_op("BatchMatMulV2", {&a, &b}, out);
  infer_static({&a, &b}, out, [&] { static_shapes::matmul(a, b, transpose_a, transpose_b, out); });
  if (!recording() || !tracked({&a, &b})) return out;
  return record1("BatchMatMulV2", {a, b}, std::move(out), [&] {
    return OpAttrs{{"adj_x", transpose_a}, {"adj_y", transpose_b}};
  });
}

Tensor reshape(const Tensor& x, const std::vector<std::int64_t>& shape) {
  Tensor out = tpustrategy::reshape(x, shape);
  trace_op("Reshape", {&x}, out);
  infer_static({&x}, out, [&] { static_shapes::reshape(x, shape, out); });
  if (!recording() || !tracked({&x})) return out;
  return record1("Reshape", {x}, std::move(out), no_attrs);
}

Tensor expand_dims(const Tensor& x, std::int64_t axis) {
  Tensor out = tpustrategy::expand_dims(x, axis);
  trace_op("ExpandDims", {&x}, out);
  infer_static({&x}, out, [&] { static_shapes::expand_dims(x, axis, out); });
  if (!recording() || !tracked({&x})) return out;
  return record1("ExpandDims", {x}, std::move(out), no_attrs);
}

Tensor squeeze(const Tensor& x, const std::vector<std::int64_t>& axes) {
  Tensor out = tpustrategy::squeeze(x, axes);
  trace_op("Squeeze", {&x}, out);
  infer_static({&x}, out, [&] { static_shapes::squeeze(x, axes, out); });
  if (!recording() || !tracked({&x})) return out;
  return record1("Squeeze", {x}, std::move(out), no_attrs);
}

Tensor transpose(const Tensor& x, const std::vector<std::int64_t>& perm) {
  Tensor out = tpustrategy::transpose(x, perm);
  trace_op("Transpose", {&x}, out);
  infer_static({&x}, out, [&] { static_shapes::transpose(x, perm, out); });
  if (!recording() || !tracked({&x})) return out;
  return record1("Transpose", {x}, std::move(out), [&] { return OpAttrs{{"perm", perm}}; });
}

Tensor concat(const std::vector<Tensor>& values, std::int64_t axis) {
  Tensor out = tpustrategy::concat(values, axis);
  trace_op("ConcatV2", values, {&out, 1});
  infer_static(values, out, [&] { static_shapes::concat(values, axis, out); });
  if (!recording()) return out;
  return record1("ConcatV2", values, std::move(out), [&] { return OpAttrs{{"axis", axis}}; });
}

Tensor stack(const std::vector<Tensor>& values, std::int64_t axis) {
  Tensor out = tpustrategy::stack(values, axis);
  trace_op("Pack", values, {&out, 1});
  infer_static(values, out, [&] { static_shapes::stack(values, axis, out); });
  if (!recording()) return out;
  return record1("Pack", values, std::move(out), [&] { return OpAttrs{{"axis", axis}}; });
}

std::vector<Tensor> unstack(const Tensor& x, std::int64_t axis) {
  std::vector<Tensor> out = tpustrategy::unstack(x, axis);
  trace_op("Unpack", {x}, out);
  if (static_shapes::active()) static_shapes::split(x, axis, false, out);
  if (!recording()) return out;
  return record_op("Unpack", {x}, std::move(out), OpAttrs{{"axis", axis}});
}

std::vector<Tensor> split(const Tensor& x, std::int64_t num, std::int64_t axis) {
  std::vector<Tensor> out = tpustrategy::split(x, num, axis);
  trace_op("Split", {x}, out);
  if (static_shapes::active()) static_shapes::split(x, axis, true, out);
  if (!recording()) return out;
  return record_op("Split", {x}, std::move(out), OpAttrs{{"axis", axis}});
}

std::vector<Tensor> split_sizes(const Tensor& x, const std::vector<std::int64_t>& sizes, std::int64_t axis) {
  std::vector<Tensor> out = tpustrategy::split_sizes(x, sizes, axis);
  trace_op("SplitV", {x}, out);
  if (static_shapes::active()) static_shapes::split(x, axis, true, out);
  if (!recording()) return out;
  return record_op("SplitV", {x}, std::move(out), OpAttrs{{"axis", axis}});
}

Tensor tile(const Tensor& x, const std::vector<std::int64_t>& multiples) {
  Tensor out = tpustrategy::tile(x, multiples);
  trace_op("Tile", {&x}, out);
  infer_static({&x}, out, [&] { static_shapes::tile(x, multiples, out); });
  if (!recording() || !tracked({&x})) return out;
  return record1("Tile", {x}, std::move(out), [&] { return OpAttrs{{"multiples", multiples}}; });
}

Tensor broadcast_to(const Tensor& x, const Shape& shape) {
  Tensor out = tpustrategy::broadcast_to(x, shape);
  trace_op("BroadcastTo", {&x}, out);
  if (!recording() || !tracked({&x})) return out;
  return record1("BroadcastTo", {x}, std::move(out), no_attrs);
}

Tensor slice(const Tensor& x, const std::vector<std::int64_t>& begin, const std::vector<std::int64_t>& size) {
  Tensor out = tpustrategy::slice(x, begin, size);
  trace_op("Slice", {&x}, out);
  infer_static({&x}, out, [&] { static_shapes::slice(x, begin, size, out); });
  if (!recording() || !tracked({&x})) return out;
  return record1("Slice", {x}, std::move(out), [&] { return OpAttrs{{"begin", begin}}; });
}

Tensor gather(const Tensor& x, const Tensor& indices, std::int64_t axis) {
  Tensor out = tpustrategy::gather(x, indices, axis);
  trace_op("GatherV2", {&x, &indices}, out);
  infer_static({&x, &indices}, out, [&] { static_shapes::gather(x, indices, axis, out); });
  if (!recording()) return out;
  return record1("GatherV2", {x, indices}, std::move(out), [&] { return OpAttrs{{"axis", axis}}; });
}

Tensor get_item(const Tensor& x, const std::vector<IndexItem>& items) {
  Tensor out = tpustrategy::get_item(x, items);
  trace_op("StridedSlice", {&x}, out);
  infer_static({&x}, out, [&] { static_shapes::get_item(x, items, out); });
  if (!recording() || !tracked({&x})) return out;
  return record1("StridedSlice", {x}, std::move(out), [&] { return OpAttrs{{"items", items}}; });
}

Tensor pad(const Tensor& x, const std::vector<std::int64_t>& paddings) {
  Tensor out = tpustrategy::pad(x, paddings);
  trace_op("Pad", {&x}, out);
  infer_static({&x}, out, [&] { static_shapes::pad(x, paddings, out); });
  if (!recording() || !tracked({&x})) return out;
  return record1("Pad", {x}, std::move(out), [&] { return OpAttrs{{"paddings", paddings}}; });
}

Tensor unsorted_segment_sum(const Tensor& data, const Tensor& segment_ids, std::int64_t num_segments) {
  Tensor out = tpustrategy::unsorted_segment_sum(data, segment_ids, num_segments);
  trace_op("UnsortedSegmentSum", {&data, &segment_ids}, out);
  infer_static({&data, &segment_ids}, out, [&] { static_shapes::segment_sum(data, segment_ids, out); });
  if (!recording()) return out;
  return record1("UnsortedSegmentSum", {data, segment_ids}, std::move(out), no_attrs);
}

Tensor strided_slice_grad(const Tensor& updates, const Shape& shape, const std::vector<IndexItem>& items) {
  const ItemPlan plan = plan_get_item(shape, items);
  if (plan.out_shape != updates.shape()) {
    fail<InvalidArgumentError>("StridedSliceGrad", "updates of shape {} for a slice of shape {}",
                               shape_to_string(updates.shape()), shape_to_string(plan.out_shape));
  }
  Tensor out =
      plan.empty ? Tensor::zeros(updates.dtype(), shape) : strided_scatter(updates, shape, plan.strides, plan.base);
  trace_op("StridedSliceGrad", {&updates}, out);
  if (!recording()) return out;
  return record1("StridedSliceGrad", {updates}, std::move(out), [&] { return OpAttrs{{"items", items}}; });
}

Tensor fill(const Shape& shape, const Tensor& value) {
  Tensor out = tpustrategy::fill(shape, value);
  trace_op("Fill", {&value}, out);
  if (!recording()) return out;
  return record1("Fill", {value}, std::move(out), no_attrs);
}

Tensor zeros(const Shape& shape, DType dtype) { return traced("Zeros", {}, tpustrategy::zeros(shape, dtype)); }
Tensor ones(const Shape& shape, DType dtype) { return traced("Ones", {}, tpustrategy::ones(shape, dtype)); }
Tensor zeros_like(const Tensor& x) {
  Tensor out = traced("ZerosLike", {&x}, tpustrategy::zeros_like(x));
  infer_static({&x}, out, [&] { static_shapes::same_as(x, out); });
  return out;
}
Tensor ones_like(const Tensor& x) {
  Tensor out = traced("OnesLike", {&x}, tpustrategy::ones_like(x));
  infer_static({&x}, out, [&] { static_shapes::same_as(x, out); });
  return out;
}

Tensor range(const Tensor& start, const Tensor& limit, const Tensor& delta) {
  Tensor out = traced("Range", {&start, &limit, &delta}, tpustrategy::range(start, limit, delta));  // no gradient
  infer_static({&start, &limit, &delta}, out, [&] { static_shapes::sizes_unknown({&start, &limit, &delta}, out); });
  return out;
}

Tensor one_hot(const Tensor& indices, std::int64_t depth, const Tensor& on_value, const Tensor& off_value,
               std::int64_t axis) {
  Tensor out = traced("OneHot", {&indices, &on_value, &off_value},
                      tpustrategy::one_hot(indices, depth, on_value, off_value, axis));  // not differentiable in TF
  infer_static({&indices}, out, [&] { static_shapes::one_hot(indices, depth, axis, out); });
  return out;
}

Tensor where(const Tensor& condition, const Tensor& x, const Tensor& y) {
  Tensor out = tpustrategy::where(condition, x, y);
  trace_op("SelectV2", {&condition, &x, &y}, out);
  infer_static({&condition, &x, &y}, out, [&] { static_shapes::broadcast({&condition, &x, &y}, out); });
  if (!recording()) return out;
  return record1("SelectV2", {condition, x, y}, std::move(out), no_attrs);
}

Tensor where(const Tensor& condition) {
  Tensor out = traced("Where", {&condition}, tpustrategy::where(condition));
  infer_static({&condition}, out, [&] { static_shapes::where_indices(condition, out); });
  return out;
}

Tensor identity(const Tensor& x) {
  Tensor out = tpustrategy::identity(x);
  trace_op("Identity", {&x}, out);
  infer_static({&x}, out, [&] { static_shapes::same_as(x, out); });
  if (!recording() || !tracked({&x})) return out;
  return record1("Identity", {x}, std::move(out), no_attrs);
}

Tensor stop_gradient(const Tensor& x) {
  // A new tensor id over the same buffer that no tape tracks.
  if (!x.valid()) fail<ValueError>("StopGradient", "the tensor argument is empty (default-constructed)");
  return {x.dtype(), x.shape(), x.buffer()};
}

Tensor softmax(const Tensor& logits, std::int64_t axis) {
  Tensor out = tpustrategy::softmax(logits, axis);
  trace_op("Softmax", {&logits}, out);
  infer_static({&logits}, out, [&] { static_shapes::same_as(logits, out); });
  if (!recording() || !tracked({&logits})) return out;
  return record1("Softmax", {logits}, std::move(out), [&] { return OpAttrs{{"axis", axis}}; });
}

Tensor log_softmax(const Tensor& logits, std::int64_t axis) {
  Tensor out = tpustrategy::log_softmax(logits, axis);
  trace_op("LogSoftmax", {&logits}, out);
  infer_static({&logits}, out, [&] { static_shapes::same_as(logits, out); });
  if (!recording() || !tracked({&logits})) return out;
  return record1("LogSoftmax", {logits}, std::move(out), [&] { return OpAttrs{{"axis", axis}}; });
}

Tensor scalar_like(const Tensor& x, double value) {
  return tpustrategy::cast(Tensor::scalar<double>(value), x.dtype());
}

}  // namespace tpustrategy::op
