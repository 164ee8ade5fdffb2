#pragma once
// Tensor objects without pybind11's generic casters, for the per-call path of the small elementwise ops: an
// operand is recognised by its type pointer, and a result is wrapped without the type lookup and the search for
// an existing wrapper of the same C++ pointer that py::cast does (a new result has none).
#include <pybind11/pybind11.h>

#include "tpustrategy/core/tensor.h"

namespace tpustrategy::bindings {

// The Tensor held by `object` when its type is exactly Tensor and its value exists; null for anything else
// (subclasses, other types), which the callers hand to the generic path.
const Tensor* exact_tensor(PyObject* object);

// A new Python Tensor owning `tensor` (what py::cast of a returned Tensor gives).
pybind11::object wrap_tensor(Tensor&& tensor);

}  // namespace tpustrategy::bindings
