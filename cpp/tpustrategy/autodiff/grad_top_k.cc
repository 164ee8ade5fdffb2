// Gradient of TopKV2 (TF's _TopKGrad): each output value's gradient added back at the input position its
// index names; the indices output carries none.
#include "tpustrategy/autodiff/gradient_registry.h"
#include "tpustrategy/autodiff/recorded_ops.h"

namespace tpustrategy::detail {

void register_top_k_gradients(GradRegistry& r) {
  r.emplace_back("TopKV2", [](const OpCall& c, const std::vector<Tensor>& g) {
    const Tensor& x = c.inputs[0];
    const Tensor idx = op::cast(c.outputs[1], DType::kInt64);
    const std::int64_t n = x.shape().back(), rows = n == 0 ? 0 : x.num_elements() / n;
    std::vector<std::int64_t> offset_shape(x.shape().begin(), x.shape().end());
    offset_shape.back() = 1;
    const Tensor offsets =
        op::reshape(op::range(Tensor::scalar<std::int64_t>(0), Tensor::scalar<std::int64_t>(rows * n),
                              Tensor::scalar<std::int64_t>(n == 0 ? 1 : n)),
                    offset_shape);
    const Tensor linear = op::reshape(op::add(idx, offsets), {-1});
    const Tensor summed = op::unsorted_segment_sum(op::reshape(g[0], {-1}), linear, x.num_elements());
    return std::vector<std::optional<Grad>>{
        Grad(op::reshape(summed, std::vector<std::int64_t>(x.shape().begin(), x.shape().end())))};
  });
}

}  // namespace tpustrategy::detail
