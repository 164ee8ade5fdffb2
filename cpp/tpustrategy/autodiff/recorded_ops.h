#pragma once
// The public op set as the single op-dispatch point: each function runs the kernel
// (ops/) and hands the call (inputs, outputs, attributes) to record_op, where the
// active tapes record it. The bindings and the gradient functions call these, never
// the kernels directly, so every op a user or a gradient runs is differentiable.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "tpustrategy/core/tensor.h"
#include "tpustrategy/ops/elementwise.h"
#include "tpustrategy/ops/indexing.h"
#include "tpustrategy/ops/reduce.h"
#include "tpustrategy/ops/window.h"

namespace tpustrategy::op {

using Axes = std::optional<std::vector<std::int64_t>>;

Tensor unary(UnaryOp kind, const Tensor& x);
Tensor binary(BinaryOp kind, const Tensor& a, const Tensor& b);
Tensor cast(const Tensor& x, DType dtype);
Tensor reduce(ReduceKind kind, const Tensor& x, const Axes& axes = std::nullopt, bool keepdims = false);
Tensor argmax(const Tensor& x, std::int64_t axis, DType output_type);
Tensor argmin(const Tensor& x, std::int64_t axis, DType output_type);
Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a = false, bool transpose_b = false);

// complex64 parts (recorded_complex_ops.cc): recorded only when the input is complex (for a real
// input real / conj return it and imag gives constant zeros, as in TF).
Tensor make_complex(const Tensor& real, const Tensor& imag);
Tensor real_part(const Tensor& x);
Tensor imag_part(const Tensor& x);
Tensor conj(const Tensor& x);
// conj(x) for complex x, x itself otherwise: the conjugation TF's gradients apply.
inline Tensor conj_if_complex(const Tensor& x) { return is_complex(x.dtype()) ? conj(x) : x; }

Tensor reshape(const Tensor& x, const std::vector<std::int64_t>& shape);
Tensor expand_dims(const Tensor& x, std::int64_t axis);
Tensor squeeze(const Tensor& x, const std::vector<std::int64_t>& axes = {});
Tensor transpose(const Tensor& x, const std::vector<std::int64_t>& perm = {});
Tensor concat(const std::vector<Tensor>& values, std::int64_t axis);
Tensor stack(const std::vector<Tensor>& values, std::int64_t axis = 0);
std::vector<Tensor> unstack(const Tensor& x, std::int64_t axis = 0);
std::vector<Tensor> split(const Tensor& x, std::int64_t num, std::int64_t axis = 0);
std::vector<Tensor> split_sizes(const Tensor& x, const std::vector<std::int64_t>& sizes, std::int64_t axis = 0);
Tensor tile(const Tensor& x, const std::vector<std::int64_t>& multiples);
Tensor broadcast_to(const Tensor& x, const Shape& shape);
Tensor slice(const Tensor& x, const std::vector<std::int64_t>& begin, const std::vector<std::int64_t>& size);
Tensor gather(const Tensor& x, const Tensor& indices, std::int64_t axis = 0);
Tensor get_item(const Tensor& x, const std::vector<IndexItem>& items);
Tensor pad(const Tensor& x, const std::vector<std::int64_t>& paddings);
Tensor unsorted_segment_sum(const Tensor& data, const Tensor& segment_ids, std::int64_t num_segments);
// Zeros of `shape` with `updates` written where x[items] of that shape reads (StridedSliceGrad).
Tensor strided_slice_grad(const Tensor& updates, const Shape& shape, const std::vector<IndexItem>& items);

Tensor fill(const Shape& shape, const Tensor& value);
Tensor zeros(const Shape& shape, DType dtype = DType::kFloat32);
Tensor ones(const Shape& shape, DType dtype = DType::kFloat32);
Tensor zeros_like(const Tensor& x);
Tensor ones_like(const Tensor& x);
Tensor range(const Tensor& start, const Tensor& limit, const Tensor& delta);
Tensor one_hot(const Tensor& indices, std::int64_t depth, const Tensor& on_value, const Tensor& off_value,
               std::int64_t axis = -1);
Tensor where(const Tensor& condition, const Tensor& x, const Tensor& y);
Tensor where(const Tensor& condition);
Tensor identity(const Tensor& x);
// The value of x, never recorded: gradients do not flow through it (tf.stop_gradient).
Tensor stop_gradient(const Tensor& x);
Tensor softmax(const Tensor& logits, std::int64_t axis = -1);
Tensor log_softmax(const Tensor& logits, std::int64_t axis = -1);

// Convolutions and pooling over NHWC (ops/conv.h, ops/pool.h; recorded_nn_ops.cc), windows resolved.
Tensor conv2d(const Tensor& input, const Tensor& filter, const Window2D& win);
Tensor conv2d_backprop_input(const Shape& input_shape, const Tensor& filter, const Tensor& out_backprop,
                             const Window2D& win);
Tensor conv2d_backprop_filter(const Tensor& input, const Shape& filter_shape, const Tensor& out_backprop,
                              const Window2D& win);
Tensor depthwise_conv2d(const Tensor& input, const Tensor& filter, const Window2D& win);
Tensor depthwise_conv2d_backprop_input(const Shape& input_shape, const Tensor& filter, const Tensor& out_backprop,
                                       const Window2D& win);
Tensor depthwise_conv2d_backprop_filter(const Tensor& input, const Shape& filter_shape, const Tensor& out_backprop,
                                        const Window2D& win);
Tensor max_pool2d(const Tensor& input, const Window2D& win);
Tensor avg_pool2d(const Tensor& input, const Window2D& win);
Tensor max_pool2d_grad(const Tensor& input, const Tensor& grad, const Window2D& win);
Tensor max_pool2d_grad_grad(const Tensor& input, const Tensor& gg, const Window2D& win);
Tensor avg_pool2d_grad(const Shape& input_shape, const Tensor& grad, const Window2D& win);

// (values, indices) of the k largest entries of the last axis (ops/top_k.h), recorded as TopKV2.
std::pair<Tensor, Tensor> top_k(const Tensor& x, std::int64_t k, DType index_type = DType::kInt32);

// Shorthands used by the gradient functions.
inline Tensor add(const Tensor& a, const Tensor& b) { return op::binary(BinaryOp::kAdd, a, b); }
inline Tensor sub(const Tensor& a, const Tensor& b) { return op::binary(BinaryOp::kSubtract, a, b); }
inline Tensor mul(const Tensor& a, const Tensor& b) { return op::binary(BinaryOp::kMultiply, a, b); }
inline Tensor div(const Tensor& a, const Tensor& b) { return op::binary(BinaryOp::kDivide, a, b); }
inline Tensor neg(const Tensor& x) { return op::unary(UnaryOp::kNegative, x); }
inline Tensor reduce_sum(const Tensor& x, const Axes& axes = std::nullopt, bool keepdims = false) {
  return op::reduce(ReduceKind::kSum, x, axes, keepdims);
}
// A scalar of x's dtype.
Tensor scalar_like(const Tensor& x, double value);

}  // namespace tpustrategy::op
