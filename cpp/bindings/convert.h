#pragma once
// Conversions between Python objects and core tensors, with TensorFlow's dtype
// inference: Python bool → bool, int → int32 (int64 when it does not fit),
// float → float32, nested lists likewise; numpy arrays keep their dtype.
#include <optional>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "tpustrategy/core/tensor.h"

namespace tpustrategy::bindings {

namespace py = pybind11;

// None, a tpustrategy.DType, a dtype name, a numpy dtype or scalar type → DType; TypeError otherwise.
std::optional<DType> dtype_from_py(py::handle dtype);
py::dtype numpy_dtype(DType dtype);
// Unsupported numpy dtypes (uint8, complex, object, str, ...) → TypeError naming the dtype.
DType dtype_from_numpy(const py::dtype& dtype);

enum class Conversion {
  kConvert,   // convert_to_tensor: a Tensor of another dtype is an error
  kConstant,  // constant: numpy values are cast to the requested dtype
};

// Whether `value` offers `_as_tensor()` (variables, distributed values). Python's bool, int, float and complex
// never do, and are answered without the lookup, whose AttributeError cost most of a `t + 1.0`.
bool has_as_tensor(py::handle value);

// Any supported Python value → Tensor placed on the current device. Objects with
// an `_as_tensor()` method (variables, ...) are read through it. Never copies a Tensor,
// and returns the owning Tensor of a read-only numpy view of one (zero-copy round trip).
Tensor to_tensor(py::handle value, std::optional<DType> dtype = std::nullopt, Conversion mode = Conversion::kConvert);

// Like to_tensor, but returns the existing Python object when no conversion is
// needed (a Tensor, or a read-only numpy view of one), so identity is kept as in TF.
py::object to_tensor_object(py::handle value, std::optional<DType> dtype = std::nullopt,
                            Conversion mode = Conversion::kConvert);

// A read-only numpy view of `tensor`'s buffer whose base keeps `owner` (the Python Tensor) alive.
py::array tensor_to_numpy_view(const Tensor& tensor, py::handle owner);

}  // namespace tpustrategy::bindings
