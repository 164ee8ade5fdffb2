// The complex64 part ops at the op-dispatch point (see recorded_ops.h).
#include "tpustrategy/autodiff/dispatch.h"
#include "tpustrategy/autodiff/op_trace_hook.h"
#include "tpustrategy/autodiff/recorded_ops.h"
#include "tpustrategy/ops/complex_ops.h"

namespace tpustrategy::op {

namespace {

Tensor record_unary(std::string_view name, const Tensor& x, Tensor out) {
  trace_op(name, {&x}, out);
  if (out.id() == x.id() || !recording() || !tracked({&x})) return out;
  return record_op(name, {x}, {std::move(out)}, {}).front();
}

}  // namespace

Tensor make_complex(const Tensor& real, const Tensor& imag) {
  Tensor out = tpustrategy::make_complex(real, imag);
  trace_op("Complex", {&real, &imag}, out);
  if (!recording() || !tracked({&real, &imag})) return out;
  return record_op("Complex", {real, imag}, {std::move(out)}, {}).front();
}

Tensor real_part(const Tensor& x) { return record_unary("Real", x, tpustrategy::real_part(x)); }

Tensor imag_part(const Tensor& x) {
  Tensor out = tpustrategy::imag_part(x);
  if (!is_complex(x.dtype())) {  // constant zeros: nothing to differentiate
    trace_op("Imag", {&x}, out);
    return out;
  }
  return record_unary("Imag", x, std::move(out));
}

Tensor conj(const Tensor& x) { return record_unary("Conj", x, tpustrategy::conj(x)); }

}  // namespace tpustrategy::op
