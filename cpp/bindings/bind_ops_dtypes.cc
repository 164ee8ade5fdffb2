// _core.ops kernels specific to the extended dtypes: complex parts (tf.complex,
// tf.math.real / imag / conj / angle) and tf.bitwise for every integer dtype.
#include <pybind11/pybind11.h>

#include <utility>

#include "bindings/bindings.h"
#include "bindings/convert.h"
#include "bindings/nogil.h"
#include "tpustrategy/autodiff/recorded_ops.h"
#include "tpustrategy/ops/bitwise.h"
#include "tpustrategy/ops/complex_ops.h"

namespace tpustrategy::bindings {

namespace {

Tensor tensor_of(py::handle v) { return to_tensor(v); }

// The second operand of a bitwise op takes the first one's dtype when it is a Python value.
Tensor like(py::handle v, const Tensor& other) {
  if (py::isinstance<Tensor>(v) || has_as_tensor(v)) return to_tensor(v);
  return to_tensor(v, other.dtype());
}

}  // namespace

void init_ops_dtypes(py::module_& m) {
  m.def(
      "complex",
      [](py::handle real, py::handle imag, py::handle) {
        Tensor r = tensor_of(real), i = tensor_of(imag);
        return nogil([&] { return op::make_complex(r, i); });
      },
      py::arg("real"), py::arg("imag"), py::kw_only(), py::arg("name") = py::none(),
      R"doc(complex tensor real + 1j * imag (complex64 of float32 parts, complex128 of float64 parts).

Args:
  real: float32 or float64 Tensor.
  imag: Tensor of real's dtype, broadcastable against `real`.
  name: Ignored (TF graph name).

Raises:
  TypeError: the parts differ in dtype or are not float32 / float64.)doc");
  const std::pair<const char*, Tensor (*)(const Tensor&)> parts[] = {
      {"real", &op::real_part}, {"imag", &op::imag_part}, {"conj", &op::conj}, {"angle", &angle}, {"invert", &invert}};
  // Loop bindings reach the lambdas through init-captures: clang before 16 cannot capture a structured binding.
  for (const auto& [name, fn] : parts) {
    m.def(
        name,
        [fn = fn](py::handle x, py::handle) {
          Tensor t = tensor_of(x);
          return nogil([&] { return fn(t); });
        },
        py::arg("x"), py::kw_only(), py::arg("name") = py::none(),
        R"doc(Elementwise part of a complex tensor (real / imag / angle give its real dtype), or tf.bitwise.invert.

Args:
  x: a Tensor (complex for conj / angle parts, integer for invert; real / imag / conj pass real dtypes through).
  name: Ignored (TF graph name).)doc");
  }
  const std::pair<const char*, BitwiseOp> bitwise_ops[] = {{"bitwise_and", BitwiseOp::kAnd},
                                                           {"bitwise_or", BitwiseOp::kOr},
                                                           {"bitwise_xor", BitwiseOp::kXor},
                                                           {"left_shift", BitwiseOp::kLeftShift},
                                                           {"right_shift", BitwiseOp::kRightShift}};
  for (const auto& [name, kind] : bitwise_ops) {
    m.def(
        name,
        [kind = kind](py::handle x, py::handle y, py::handle) {
          Tensor a = tensor_of(x);
          Tensor b = like(y, a);
          return nogil([&] { return bitwise(kind, a, b); });
        },
        py::arg("x"), py::arg("y"), py::kw_only(), py::arg("name") = py::none(),
        R"doc(tf.bitwise op with broadcasting; shift amounts clamp to [0, bits - 1].

Args:
  x: an integer Tensor.
  y: an integer Tensor of x's dtype; a Python operand takes x's dtype.
  name: Ignored (TF graph name).

Raises:
  TypeError: non-integer or mismatched dtypes.)doc");
  }
}

}  // namespace tpustrategy::bindings
