// Gradients of the convolutions and pooling ops (TF's nn_grad.py rules). The backprop ops are linear
// in each argument, so their gradients are the forward op and the other backprop; recording them makes
// second-order gradients (nested tapes) work.
#include "tpustrategy/autodiff/gradient_registry.h"
#include "tpustrategy/autodiff/recorded_ops.h"

namespace tpustrategy::detail {

namespace {

using Grads = std::vector<std::optional<Grad>>;

Window2D window_of(const OpCall& c) { return Window2D::from_attr(c.attrs.get<std::vector<std::int64_t>>("window")); }

}  // namespace

void register_conv_gradients(GradRegistry& r) {
  r.emplace_back("Conv2D", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    const Tensor &x = c.inputs[0], &f = c.inputs[1];
    const Window2D w = window_of(c);
    return {Grad(op::conv2d_backprop_input(x.shape(), f, g[0], w)),
            Grad(op::conv2d_backprop_filter(x, f.shape(), g[0], w))};
  });
  r.emplace_back("Conv2DBackpropInput", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    const Tensor &f = c.inputs[0], &dy = c.inputs[1];
    const Window2D w = window_of(c);
    return {Grad(op::conv2d_backprop_filter(g[0], f.shape(), dy, w)), Grad(op::conv2d(g[0], f, w))};
  });
  r.emplace_back("Conv2DBackpropFilter", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    const Tensor &x = c.inputs[0], &dy = c.inputs[1];
    const Window2D w = window_of(c);
    return {Grad(op::conv2d_backprop_input(x.shape(), g[0], dy, w)), Grad(op::conv2d(x, g[0], w))};
  });
  r.emplace_back("DepthwiseConv2dNative", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    const Tensor &x = c.inputs[0], &f = c.inputs[1];
    const Window2D w = window_of(c);
    return {Grad(op::depthwise_conv2d_backprop_input(x.shape(), f, g[0], w)),
            Grad(op::depthwise_conv2d_backprop_filter(x, f.shape(), g[0], w))};
  });
  r.emplace_back("DepthwiseConv2dNativeBackpropInput", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    const Tensor &f = c.inputs[0], &dy = c.inputs[1];
    const Window2D w = window_of(c);
    return {Grad(op::depthwise_conv2d_backprop_filter(g[0], f.shape(), dy, w)), Grad(op::depthwise_conv2d(g[0], f, w))};
  });
  r.emplace_back("DepthwiseConv2dNativeBackpropFilter", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    const Tensor &x = c.inputs[0], &dy = c.inputs[1];
    const Window2D w = window_of(c);
    return {Grad(op::depthwise_conv2d_backprop_input(x.shape(), g[0], dy, w)), Grad(op::depthwise_conv2d(x, g[0], w))};
  });
  r.emplace_back("MaxPool", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    return {Grad(op::max_pool2d_grad(c.inputs[0], g[0], window_of(c)))};
  });
  r.emplace_back("MaxPoolGrad", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    const Tensor& x = c.inputs[0];
    return {Grad(op::zeros_like(x)), Grad(op::max_pool2d_grad_grad(x, g[0], window_of(c)))};
  });
  r.emplace_back("MaxPoolGradGrad", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    const Tensor& x = c.inputs[0];
    return {Grad(op::zeros_like(x)), Grad(op::max_pool2d_grad(x, g[0], window_of(c)))};
  });
  r.emplace_back("AvgPool", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    return {Grad(op::avg_pool2d_grad(c.inputs[0].shape(), g[0], window_of(c)))};
  });
  r.emplace_back("AvgPoolGrad", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    return {Grad(op::avg_pool2d(g[0], window_of(c)))};
  });
}

}  // namespace tpustrategy::detail
