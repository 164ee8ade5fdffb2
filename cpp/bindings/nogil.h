#pragma once
// Runs a C++ call that loops or waits with the GIL released (STYLE: never hold the GIL around a kernel or a
// rendezvous). The callable must not touch Python objects.
#include <pybind11/pybind11.h>

namespace tpustrategy::bindings {

template <typename Fn>
auto nogil(Fn&& fn) {
  pybind11::gil_scoped_release release;
  return fn();
}

}  // namespace tpustrategy::bindings
