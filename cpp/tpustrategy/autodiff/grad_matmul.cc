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
    // TF's _BatchMatMulV2 rules; an input the tape drops (a constant batch, say) costs no GEMM.
    const bool need_a = gradient_input_needed(0), need_b = gradient_input_needed(1);
    std::vector<std::optional<Grad>> out(2);
    if (need_a) {
      Tensor ga =
          !ta ? op::matmul(g, b, false, !tb) : (!tb ? op::matmul(b, g, false, true) : op::matmul(b, g, true, true));
      out[0] = Grad(reduce_to_shape(ga, a.shape()));
    }
    if (need_b) {
      Tensor gb = !tb ? (!ta ? op::matmul(a, g, true, false) : op::matmul(a, g, false, false))
                      : (!ta ? op::matmul(g, a, true, false) : op::matmul(g, a, true, true));
      out[1] = Grad(reduce_to_shape(gb, b.shape()));
    }
    return out;
  });
}

}  // namespace tpustrategy::detail
