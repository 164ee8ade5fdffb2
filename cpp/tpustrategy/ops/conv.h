#pragma once
// 2-D convolutions over NHWC tensors (tf.nn.conv2d, tf.nn.depthwise_conv2d) and their backprops.
// conv2d is im2col + the matmul kernel (OpenBLAS for float32 / float64): each output pixel's receptive
// field becomes a row, the filter [kh, kw, in, out] a [kh*kw*in, out] matrix. Grouped convolutions (input
// depth a multiple of the filter's) run one product per group. float16 / bfloat16 compute in float32 and
// round once, as matmul does. Windows are resolved (window.h) before these are called.
#include "tpustrategy/core/tensor.h"
#include "tpustrategy/ops/window.h"

namespace tpustrategy {

// input [n, h, w, c], filter [kh, kw, c / groups, out] -> [n, out_h, out_w, out]; `win` has the filter's kh, kw.
Tensor conv2d(const Tensor& input, const Tensor& filter, const Window2D& win);
// The gradient of conv2d with respect to its input, of `input_shape`, from out_backprop [n, oh, ow, out].
Tensor conv2d_backprop_input(const Shape& input_shape, const Tensor& filter, const Tensor& out_backprop,
                             const Window2D& win);
// The gradient of conv2d with respect to its filter, of `filter_shape`.
Tensor conv2d_backprop_filter(const Tensor& input, const Shape& filter_shape, const Tensor& out_backprop,
                              const Window2D& win);

// input [n, h, w, c], filter [kh, kw, c, m] -> [n, out_h, out_w, c * m] (channel c's m outputs adjacent).
Tensor depthwise_conv2d(const Tensor& input, const Tensor& filter, const Window2D& win);
Tensor depthwise_conv2d_backprop_input(const Shape& input_shape, const Tensor& filter, const Tensor& out_backprop,
                                       const Window2D& win);
Tensor depthwise_conv2d_backprop_filter(const Tensor& input, const Shape& filter_shape, const Tensor& out_backprop,
                                        const Window2D& win);

}  // namespace tpustrategy
