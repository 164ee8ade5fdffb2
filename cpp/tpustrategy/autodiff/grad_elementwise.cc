// Gradients of the elementwise ops and Cast (TF's math_grad.py formulas). Binary
// ops sum each input's gradient over the axes it was broadcast along.
#include "tpustrategy/autodiff/dispatch.h"
#include "tpustrategy/autodiff/gradient_registry.h"
#include "tpustrategy/autodiff/op_trace_hook.h"
#include "tpustrategy/autodiff/recorded_ops.h"
#include "tpustrategy/autodiff/tape.h"
#include "tpustrategy/ops/relu_grad.h"

namespace tpustrategy::detail {

namespace {

using Grads = std::vector<std::optional<Grad>>;

// Registers a unary op whose gradient is g * d(x, y) (x the input, y the output).
template <typename Derivative>
void unary_rule(GradRegistry& r, UnaryOp kind, Derivative derivative) {
  r.emplace_back(op_name(kind), [derivative](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    return {Grad(derivative(c.inputs[0], c.outputs[0], g[0]))};
  });
}

// Which of x, y the tape wants a gradient for: a rule may skip the other's work (y - target, say).
struct Needed {
  bool x, y;
};

// Registers a binary op from (x, y, z, g, needed) -> (gx, gy) on the broadcast shape; either may be none.
template <typename Rule>
void binary_rule(GradRegistry& r, BinaryOp kind, Rule rule) {
  r.emplace_back(op_name(kind), [rule](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    const Needed needed{gradient_input_needed(0), gradient_input_needed(1)};
    const Tensor &x = c.inputs[0], &y = c.inputs[1];
    auto [gx, gy] = rule(x, y, c.outputs[0], g[0], needed);
    Grads out(2);
    if (gx) out[0] = reduce_to_shape(*gx, x.shape());
    if (gy) out[1] = reduce_to_shape(*gy, y.shape());
    return out;
  });
}

using OptPair = std::pair<std::optional<Tensor>, std::optional<Tensor>>;

Tensor k(const Tensor& like, double v) { return op::scalar_like(like, v); }

// g where the relu output y is positive, else 0 (one fused pass); recorded as TF's ReluGrad (inputs g, y), whose own
// gradient gives y zeros rather than none, so relu's second derivative is zeros as in TF.
Tensor recorded_relu_grad(const Tensor& g, const Tensor& y) {
  Tensor out = relu_grad(g, y);
  trace_op("ReluGrad", {&g, &y}, out);
  if (!recording() || !tracked({&g, &y})) return out;
  return record_op("ReluGrad", {g, y}, {std::move(out)}, OpAttrs{}).front();
}

}  // namespace

void register_elementwise_gradients(GradRegistry& r) {
  unary_rule(r, UnaryOp::kNegative, [](auto&, auto&, const Tensor& g) { return op::neg(g); });
  // complex64 follows TF's convention: the gradient is g * conj(f'(x)); |x| of complex x gives g * x / |x|.
  unary_rule(r, UnaryOp::kAbs, [](const Tensor& x, auto&, const Tensor& g) {
    return op::mul(is_complex(x.dtype()) ? op::cast(g, x.dtype()) : g, op::unary(UnaryOp::kSign, x));
  });
  unary_rule(r, UnaryOp::kSquare, [](const Tensor& x, auto&, const Tensor& g) {
    return op::mul(g, op::mul(op::conj_if_complex(x), k(x, 2)));
  });
  unary_rule(r, UnaryOp::kExp,
             [](auto&, const Tensor& y, const Tensor& g) { return op::mul(g, op::conj_if_complex(y)); });
  // The derivatives below are written in conj(y) / conj(x): a no-op for real dtypes, TF's convention for complex.
  unary_rule(r, UnaryOp::kLog,
             [](const Tensor& x, auto&, const Tensor& g) { return op::div(g, op::conj_if_complex(x)); });
  unary_rule(r, UnaryOp::kSqrt, [](auto&, const Tensor& y, const Tensor& g) {
    return op::div(g, op::mul(op::conj_if_complex(y), k(y, 2)));
  });
  unary_rule(r, UnaryOp::kRsqrt, [](auto&, const Tensor& y, const Tensor& g) {
    const Tensor cy = op::conj_if_complex(y);
    return op::mul(g, op::mul(k(y, -0.5), op::mul(cy, op::mul(cy, cy))));
  });
  unary_rule(r, UnaryOp::kTanh, [](auto&, const Tensor& y, const Tensor& g) {
    const Tensor cy = op::conj_if_complex(y);
    return op::mul(g, op::sub(k(y, 1), op::mul(cy, cy)));
  });
  unary_rule(r, UnaryOp::kSigmoid, [](auto&, const Tensor& y, const Tensor& g) {
    const Tensor cy = op::conj_if_complex(y);
    return op::mul(g, op::mul(cy, op::sub(k(y, 1), cy)));
  });
  unary_rule(r, UnaryOp::kRelu, [](auto&, const Tensor& y, const Tensor& g) { return recorded_relu_grad(g, y); });
  r.emplace_back("ReluGrad", [](const OpCall& c, const std::vector<Tensor>& g) -> Grads {
    return {Grad(recorded_relu_grad(g[0], c.inputs[1])), Grad(op::zeros_like(c.inputs[1]))};
  });
  unary_rule(r, UnaryOp::kSign, [](const Tensor& x, auto&, auto&) { return op::zeros_like(x); });
  for (UnaryOp none : {UnaryOp::kFloor, UnaryOp::kCeil}) {  // TF: gradient None
    r.emplace_back(op_name(none), [](const OpCall&, const std::vector<Tensor>&) { return no_grads(1); });
  }

  binary_rule(r, BinaryOp::kAdd, [](auto&, auto&, auto&, const Tensor& g, auto&) { return OptPair{g, g}; });
  binary_rule(r, BinaryOp::kSubtract, [](auto&, auto&, auto&, const Tensor& g, const Needed& needed) {
    return OptPair{g, needed.y ? std::optional(op::neg(g)) : std::nullopt};
  });
  binary_rule(r, BinaryOp::kMultiply, [](const Tensor& x, const Tensor& y, auto&, const Tensor& g, const Needed& need) {
    OptPair out;
    if (need.x) out.first = op::mul(g, op::conj_if_complex(y));
    if (need.y) out.second = op::mul(op::conj_if_complex(x), g);
    return out;
  });
  binary_rule(r, BinaryOp::kDivide, [](const Tensor& x, const Tensor& y, auto&, const Tensor& g, auto&) {
    const Tensor cx = op::conj_if_complex(x), cy = op::conj_if_complex(y);
    return OptPair{op::div(g, cy), op::mul(g, op::div(op::div(op::neg(cx), cy), cy))};
  });
  binary_rule(r, BinaryOp::kPow, [](const Tensor& x, const Tensor& y, const Tensor& z, const Tensor& g, auto&) {
    Tensor gx = op::mul(g, op::conj_if_complex(op::mul(y, op::binary(BinaryOp::kPow, x, op::sub(y, k(y, 1))))));
    // log(x) where it is defined: x > 0 for real x, x != 0 for complex x (TF's mask), 0 elsewhere.
    Tensor defined = op::binary(is_complex(x.dtype()) ? BinaryOp::kNotEqual : BinaryOp::kGreater, x, k(x, 0));
    Tensor log_x =
        op::where(defined, op::unary(UnaryOp::kLog, op::where(defined, x, op::ones_like(x))), op::zeros_like(x));
    return OptPair{gx, op::mul(g, op::conj_if_complex(op::mul(z, log_x)))};
  });
  for (auto [kind, select] :
       {std::pair{BinaryOp::kMaximum, BinaryOp::kGreaterEqual}, std::pair{BinaryOp::kMinimum, BinaryOp::kLessEqual}}) {
    binary_rule(r, kind, [select = select](const Tensor& x, const Tensor& y, auto&, const Tensor& g, auto&) {
      Tensor mask = op::binary(select, x, y);
      Tensor zero = op::zeros_like(g);
      return OptPair{op::where(mask, g, zero), op::where(mask, zero, g)};
    });
  }
  binary_rule(r, BinaryOp::kFloorDiv, [](auto&, auto&, auto&, auto&, auto&) { return OptPair{}; });
  binary_rule(r, BinaryOp::kFloorMod, [](const Tensor& x, const Tensor& y, auto&, const Tensor& g, auto&) {
    return OptPair{g, op::mul(g, op::neg(op::binary(BinaryOp::kFloorDiv, x, y)))};
  });

  r.emplace_back("Cast", [](const OpCall& c, const std::vector<Tensor>& g) -> std::vector<std::optional<Grad>> {
    if (!is_trainable(c.inputs[0].dtype())) return no_grads(1);
    return {Grad(op::cast(g[0], c.inputs[0].dtype()))};
  });
  r.emplace_back("Identity", [](const OpCall&, const std::vector<Tensor>& g) -> std::vector<std::optional<Grad>> {
    return {Grad(g[0])};
  });
  r.emplace_back("SelectV2", [](const OpCall& c, const std::vector<Tensor>& g) -> std::vector<std::optional<Grad>> {
    Tensor zero = op::zeros_like(g[0]);
    return {std::nullopt, Grad(reduce_to_shape(op::where(c.inputs[0], g[0], zero), c.inputs[1].shape())),
            Grad(reduce_to_shape(op::where(c.inputs[0], zero, g[0]), c.inputs[2].shape()))};
  });
}

}  // namespace tpustrategy::detail
