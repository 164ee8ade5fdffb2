// Gradients of the complex64 part ops (TF's math_grad.py: Real -> complex(g, 0), Imag -> complex(0, g),
// Conj -> conj(g), Complex -> (real(g), imag(g)) summed over broadcast axes).
#include "tpustrategy/autodiff/gradient_registry.h"
#include "tpustrategy/autodiff/recorded_ops.h"

namespace tpustrategy::detail {

void register_complex_gradients(GradRegistry& r) {
  using Grads = std::vector<std::optional<Grad>>;
  r.emplace_back("Real", [](const OpCall&, const std::vector<Tensor>& g) -> Grads {
    return {Grad(op::make_complex(g[0], op::zeros_like(g[0])))};
  });
  r.emplace_back("Imag", [](const OpCall&, const std::vector<Tensor>& g) -> Grads {
    return {Grad(op::make_complex(op::zeros_like(g[0]), g[0]))};
  });
  r.emplace_back("Conj", [](const OpCall&, const std::vector<Tensor>& g) -> Grads { return {Grad(op::conj(g[0]))}; });
  r.emplace_back("Complex", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    return {Grad(reduce_to_shape(op::real_part(g[0]), c.inputs[0].shape())),
            Grad(reduce_to_shape(op::imag_part(g[0]), c.inputs[1].shape()))};
  });
}

}  // namespace tpustrategy::detail
