#pragma once
// TF's ReluGrad kernel: the gradient of relu, `gradients` where the relu output `features` is positive and 0
// elsewhere (a NaN feature gives 0), in one pass over both inputs. The gradient functions use it instead of
// select(features > 0, gradients, zeros), which made a bool mask and a zeros tensor on the way.
#include "tpustrategy/core/tensor.h"

namespace tpustrategy {

// `gradients` and `features` must have one floating dtype and one shape (InvalidArgumentError otherwise).
Tensor relu_grad(const Tensor& gradients, const Tensor& features);

}  // namespace tpustrategy
