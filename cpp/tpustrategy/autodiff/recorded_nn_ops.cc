// The dispatch point of the windowed ops (convolutions, pooling and their backprops: each records the call
// with the resolved window, so the backprops are themselves differentiable) and of top_k.
#include "tpustrategy/autodiff/dispatch.h"
#include "tpustrategy/autodiff/recorded_ops.h"
#include "tpustrategy/ops/conv.h"
#include "tpustrategy/ops/pool.h"
#include "tpustrategy/ops/top_k.h"

namespace tpustrategy::op {

namespace {

Tensor record_windowed(std::string_view name, std::vector<Tensor> inputs, Tensor out, const Window2D& win) {
  return record_op(name, std::move(inputs), {std::move(out)}, OpAttrs{{"window", win.to_attr()}}).front();
}

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& filter, const Window2D& win) {
  Tensor out = tpustrategy::conv2d(input, filter, win);
  if (!recording() || !tracked({&input, &filter})) return out;
  return record_windowed("Conv2D", {input, filter}, std::move(out), win);
}

Tensor conv2d_backprop_input(const Shape& input_shape, const Tensor& filter, const Tensor& out_backprop,
                             const Window2D& win) {
  Tensor out = tpustrategy::conv2d_backprop_input(input_shape, filter, out_backprop, win);
  if (!recording() || !tracked({&filter, &out_backprop})) return out;
  return record_windowed("Conv2DBackpropInput", {filter, out_backprop}, std::move(out), win);
}

Tensor conv2d_backprop_filter(const Tensor& input, const Shape& filter_shape, const Tensor& out_backprop,
                              const Window2D& win) {
  Tensor out = tpustrategy::conv2d_backprop_filter(input, filter_shape, out_backprop, win);
  if (!recording() || !tracked({&input, &out_backprop})) return out;
  return record_windowed("Conv2DBackpropFilter", {input, out_backprop}, std::move(out), win);
}

Tensor depthwise_conv2d(const Tensor& input, const Tensor& filter, const Window2D& win) {
  Tensor out = tpustrategy::depthwise_conv2d(input, filter, win);
  if (!recording() || !tracked({&input, &filter})) return out;
  return record_windowed("DepthwiseConv2dNative", {input, filter}, std::move(out), win);
}

Tensor depthwise_conv2d_backprop_input(const Shape& input_shape, const Tensor& filter, const Tensor& out_backprop,
                                       const Window2D& win) {
  Tensor out = tpustrategy::depthwise_conv2d_backprop_input(input_shape, filter, out_backprop, win);
  if (!recording() || !tracked({&filter, &out_backprop})) return out;
  return record_windowed("DepthwiseConv2dNativeBackpropInput", {filter, out_backprop}, std::move(out), win);
}

Tensor depthwise_conv2d_backprop_filter(const Tensor& input, const Shape& filter_shape, const Tensor& out_backprop,
                                        const Window2D& win) {
  Tensor out = tpustrategy::depthwise_conv2d_backprop_filter(input, filter_shape, out_backprop, win);
  if (!recording() || !tracked({&input, &out_backprop})) return out;
  return record_windowed("DepthwiseConv2dNativeBackpropFilter", {input, out_backprop}, std::move(out), win);
}

Tensor max_pool2d(const Tensor& input, const Window2D& win) {
  Tensor out = tpustrategy::max_pool2d(input, win);
  if (!recording() || !tracked({&input})) return out;
  return record_windowed("MaxPool", {input}, std::move(out), win);
}

Tensor avg_pool2d(const Tensor& input, const Window2D& win) {
  Tensor out = tpustrategy::avg_pool2d(input, win);
  if (!recording() || !tracked({&input})) return out;
  return record_windowed("AvgPool", {input}, std::move(out), win);
}

Tensor max_pool2d_grad(const Tensor& input, const Tensor& grad, const Window2D& win) {
  Tensor out = tpustrategy::max_pool2d_grad(input, grad, win);
  if (!recording() || !tracked({&input, &grad})) return out;
  return record_windowed("MaxPoolGrad", {input, grad}, std::move(out), win);
}

Tensor max_pool2d_grad_grad(const Tensor& input, const Tensor& gg, const Window2D& win) {
  Tensor out = tpustrategy::max_pool2d_grad_grad(input, gg, win);
  if (!recording() || !tracked({&input, &gg})) return out;
  return record_windowed("MaxPoolGradGrad", {input, gg}, std::move(out), win);
}

Tensor avg_pool2d_grad(const Shape& input_shape, const Tensor& grad, const Window2D& win) {
  Tensor out = tpustrategy::avg_pool2d_grad(input_shape, grad, win);
  if (!recording() || !tracked({&grad})) return out;
  return record_windowed("AvgPoolGrad", {grad}, std::move(out), win);
}

std::pair<Tensor, Tensor> top_k(const Tensor& x, std::int64_t k, DType index_type) {
  auto [values, indices] = tpustrategy::top_k(x, k, index_type);
  if (!recording() || !tracked({&x})) return {std::move(values), std::move(indices)};
  std::vector<Tensor> out = record_op("TopKV2", {x}, {std::move(values), std::move(indices)});
  return {out[0], out[1]};
}

}  // namespace tpustrategy::op
