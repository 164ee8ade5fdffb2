#pragma once
// Declarations of the per-domain binding initialisers called by module.cc.
#include <pybind11/pybind11.h>

namespace tpustrategy::bindings {

namespace py = pybind11;

void init_errors(py::module_& m);

}  // namespace tpustrategy::bindings
