// TF's operand conversion for the elementwise ops, and their kernels with the GIL released above a size.
#include "bindings/operands.h"

#include <algorithm>

#include "bindings/convert.h"
#include "bindings/python_imports.h"
#include "tpustrategy/autodiff/recorded_ops.h"

namespace tpustrategy::bindings {

namespace py = pybind11;

namespace {

// Elementwise kernels on fewer elements than this keep the GIL (as numpy's ufuncs do below a size): they
// take well under a microsecond, less than handing the GIL to another thread and taking it back.
constexpr std::int64_t kGilReleaseElements = std::int64_t{1} << 12;

// fn() with the GIL released when the kernel works on `elements` elements or more, else with it held.
template <typename Fn>
Tensor nogil_above(std::int64_t elements, Fn&& fn) {
  std::optional<py::gil_scoped_release> release;
  if (elements >= kGilReleaseElements) release.emplace();
  return fn();
}

bool is_tensor_like(py::handle v) { return py::isinstance<Tensor>(v) || has_as_tensor(v); }

// `v` as a Tensor, `like` saying whether it is tensor-like (then it keeps its own dtype, else it takes `hint`):
// operands() asks once per operand, since a failed _as_tensor lookup raises and catches an AttributeError.
Tensor converted(py::handle v, bool like, std::optional<DType> hint) {
  if (py::isinstance<Tensor>(v)) return v.cast<Tensor>();
  return to_tensor(v, like ? std::nullopt : hint);
}

}  // namespace

Tensor as_tensor(py::handle v, std::optional<DType> hint) {
  if (py::isinstance<Tensor>(v)) return v.cast<Tensor>();
  return converted(v, has_as_tensor(v), hint);
}

std::pair<Tensor, Tensor> operands(py::handle x, py::handle y) {
  const bool x_like = is_tensor_like(x), y_like = is_tensor_like(y);
  if (x_like || !y_like) {
    Tensor a = converted(x, x_like, std::nullopt);
    Tensor b = converted(y, y_like, a.dtype());
    return {std::move(a), std::move(b)};
  }
  Tensor b = converted(y, true, std::nullopt);
  Tensor a = converted(x, false, b.dtype());
  return {std::move(a), std::move(b)};
}

bool is_operand(py::handle v) {
  if (is_tensor_like(v) || py::isinstance<py::bool_>(v) || py::isinstance<py::int_>(v) ||
      py::isinstance<py::float_>(v) || PyComplex_Check(v.ptr()) || py::isinstance<py::list>(v) ||
      py::isinstance<py::tuple>(v)) {
    return true;
  }
  return py::isinstance(v, numpy_ndarray_type()) || py::isinstance(v, numpy_generic_type());
}

Tensor binary_maybe_nogil(BinaryOp kind, const Tensor& a, const Tensor& b) {
  return nogil_above(std::max(a.num_elements(), b.num_elements()), [&] { return op::binary(kind, a, b); });
}

Tensor unary_maybe_nogil(UnaryOp kind, const Tensor& x) {
  return nogil_above(x.num_elements(), [&] { return op::unary(kind, x); });
}

}  // namespace tpustrategy::bindings
