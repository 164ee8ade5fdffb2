// Gradient of BatchMatMulV2 with its transpose flags (TF's _BatchMatMulV2 rules),
// summed over the batch axes an input was broadcast along.
#include "tpustrategy/autodiff/gradient_registry.h"
#include "tpustrategy/autodiff/recorded_ops.h"

namespace tpustrategy::detail {

void register_matmul_gradients(GradRegistry& r) {
  r.emplace_back("BatchMatMulV2", [](const OpCall& c, const std::vector<Tensor>& grads) {
    // complex64: the products take conj(a), conj(b) (TF's convention; the flags are plain transposes).
    const Tensor a = op::conj_if_complex(c.inputs[0]), b = op::conj_if_complex(c.inputs[1]);
    const Tensor& g = grads[0];
    const bool ta = c.attrs.get<bool>("adj_x"), tb = c.attrs.get<bool>("adj_y");
    Tensor ga, gb;
    if (!ta && !tb) {
      ga = op::matmul(g, b, false, true);
      gb = op::matmul(a, g, true, false);
    } else if (!ta && tb) {
      ga = op::matmul(g, b, false, false);
      gb = op::matmul(g, a, true, false);
    } else if (ta && !tb) {
      ga = op::matmul(b, g, false, true);
      gb = op::matmul(a, g, false, false);
    } else {
      ga = op::matmul(b, g, true, true);
      gb = op::matmul(g, a, true, true);
    }
    return std::vector<std::optional<Grad>>{Grad(reduce_to_shape(ga, c.inputs[0].shape())),
                                            Grad(reduce_to_shape(gb, c.inputs[1].shape()))};
  });
}

}  // namespace tpustrategy::detail
