#pragma once
// Fused optimizer updates (TF's ResourceApplyGradientDescent): one pass over the variable instead of
// one op per arithmetic step, so an 8-replica SGD step streams each weight once, not twice. Bit-identical
// to the separate ops: every step rounds to the variable's dtype, and no a * b + c is fused into an FMA.
#include "tpustrategy/core/tensor.h"

namespace tpustrategy {

// var - grad * lr, a new tensor on var's device. var and grad: one floating dtype and shape; lr: a
// one-element tensor of that dtype. Anything else is an InvalidArgumentError naming the inputs.
Tensor gradient_descent_update(const Tensor& var, const Tensor& grad, const Tensor& lr);

}  // namespace tpustrategy
