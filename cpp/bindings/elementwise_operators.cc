// The arithmetic and ordering operators of Tensor (+, -, *, /, //, %, **, &, |, their reflected forms, <, <=,
// >, >=, unary -) as plain CPython methods: without pybind11's dispatcher and casters, `a + b` of two small
// tensors costs about what numpy's does (issue #11). Behaviour is the pybind11 version's: values no operator
// takes give NotImplemented, a Python operand takes the tensor's dtype.
#include <pybind11/pybind11.h>

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <utility>

#include "bindings/bindings.h"
#include "bindings/fastcall.h"
#include "bindings/operands.h"
#include "bindings/tensor_objects.h"

namespace tpustrategy::bindings {

namespace {

struct BinaryOperator {
  const char* name;
  BinaryOp kind;
  bool reflected;  // other OP self (__radd__ & co.)
};

constexpr std::array<BinaryOperator, 22> kBinaryOperators{{
    {"__add__", BinaryOp::kAdd, false},           {"__radd__", BinaryOp::kAdd, true},
    {"__sub__", BinaryOp::kSubtract, false},      {"__rsub__", BinaryOp::kSubtract, true},
    {"__mul__", BinaryOp::kMultiply, false},      {"__rmul__", BinaryOp::kMultiply, true},
    {"__truediv__", BinaryOp::kDivide, false},    {"__rtruediv__", BinaryOp::kDivide, true},
    {"__floordiv__", BinaryOp::kFloorDiv, false}, {"__rfloordiv__", BinaryOp::kFloorDiv, true},
    {"__mod__", BinaryOp::kFloorMod, false},      {"__rmod__", BinaryOp::kFloorMod, true},
    {"__pow__", BinaryOp::kPow, false},           {"__rpow__", BinaryOp::kPow, true},
    {"__and__", BinaryOp::kLogicalAnd, false},    {"__rand__", BinaryOp::kLogicalAnd, true},
    {"__or__", BinaryOp::kLogicalOr, false},      {"__ror__", BinaryOp::kLogicalOr, true},
    {"__lt__", BinaryOp::kLess, false},           {"__le__", BinaryOp::kLessEqual, false},
    {"__gt__", BinaryOp::kGreater, false},        {"__ge__", BinaryOp::kGreaterEqual, false},
}};

template <std::size_t I>
py::object binary_operator(PyObject* self, std::span<PyObject* const> args) {
  constexpr BinaryOperator op = kBinaryOperators[I];
  expect_arguments(op.name, args, 1);
  PyObject* other = args[0];
  const Tensor* a = exact_tensor(self);
  const Tensor* b = exact_tensor(other);
  if (a != nullptr && b != nullptr)
    return wrap_tensor(binary_maybe_nogil(op.kind, op.reflected ? *b : *a, op.reflected ? *a : *b));
  if (!is_operand(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  auto [x, y] = op.reflected ? operands(other, self) : operands(self, other);
  return wrap_tensor(binary_maybe_nogil(op.kind, x, y));
}

py::object negative_operator(PyObject* self, std::span<PyObject* const> args) {
  expect_arguments("__neg__", args, 0);
  const Tensor* x = exact_tensor(self);
  return wrap_tensor(unary_maybe_nogil(UnaryOp::kNegative, x != nullptr ? *x : py::handle(self).cast<const Tensor&>()));
}

template <std::size_t... I>
void def_binary_operators(py::handle cls, std::index_sequence<I...> /*operators*/) {
  // pybind11's docstring layout, which the stub generator reads; CPython keeps pointers to them.
  static const std::array<std::string, sizeof...(I)> docs{
      (std::string(kBinaryOperators[I].name) + "(self: object, arg0: object) -> object\n")...};
  (def_fastcall_method<&binary_operator<I>>(cls, kBinaryOperators[I].name, docs[I].c_str()), ...);
}

}  // namespace

void init_elementwise_operators(py::handle tensor_class) {
  def_binary_operators(tensor_class, std::make_index_sequence<kBinaryOperators.size()>());
  def_fastcall_method<&negative_operator>(
      tensor_class, "__neg__", "__neg__(self: tpustrategy._core.tensor.Tensor) -> tpustrategy._core.tensor.Tensor\n");
}

}  // namespace tpustrategy::bindings
