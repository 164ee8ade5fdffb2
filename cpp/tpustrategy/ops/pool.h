#pragma once
// 2-D max and average pooling over NHWC tensors (tf.nn.max_pool2d / avg_pool2d) and their gradients.
// Padded positions never win a max and do not count in an average (TF's SAME semantics). The max's
// gradient goes to the first maximal element of each window in row-major window order.
#include "tpustrategy/core/tensor.h"
#include "tpustrategy/ops/window.h"

namespace tpustrategy {

Tensor max_pool2d(const Tensor& input, const Window2D& win);
Tensor avg_pool2d(const Tensor& input, const Window2D& win);
// d(max_pool2d(input))/d(input) applied to `grad` (shape of the pooled output): each window's gradient
// added at its argmax.
Tensor max_pool2d_grad(const Tensor& input, const Tensor& grad, const Window2D& win);
// The gradient of max_pool2d_grad with respect to `grad`: gg read at each window's argmax (output-shaped).
Tensor max_pool2d_grad_grad(const Tensor& input, const Tensor& gg, const Window2D& win);
// d(avg_pool2d)/d(input) applied to `grad`: each window's gradient spread evenly over its valid elements.
Tensor avg_pool2d_grad(const Shape& input_shape, const Tensor& grad, const Window2D& win);

}  // namespace tpustrategy
