#pragma once
// Neural-network activations beyond the elementwise ones in elementwise.h
// (relu, sigmoid, tanh): numerically stable softmax / log_softmax over an axis.
#include <cstdint>

#include "tpustrategy/core/tensor.h"

namespace tpustrategy {

Tensor softmax(const Tensor& logits, std::int64_t axis = -1);
Tensor log_softmax(const Tensor& logits, std::int64_t axis = -1);

}  // namespace tpustrategy
