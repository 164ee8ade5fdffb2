// The pybind11 module tpustrategy._core: glue only. Each domain lives in its own
// bind_<domain>.cc and is registered here, in dependency order.
#include <pybind11/pybind11.h>

#include "bindings/bindings.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "tpustrategy C++ core (private; use the tpustrategy package)";
  tpustrategy::bindings::init_errors(m);
  tpustrategy::bindings::init_tensor(m);
  tpustrategy::bindings::init_ops(m);
  tpustrategy::bindings::init_autodiff(m);
  tpustrategy::bindings::init_devices(m);
  tpustrategy::bindings::init_slice(m);
  tpustrategy::bindings::init_topology(m);
  tpustrategy::bindings::init_collectives(m);
  tpustrategy::bindings::init_data(m);
  tpustrategy::bindings::init_example(m);
  tpustrategy::bindings::init_summary(m);
  tpustrategy::bindings::init_checkpoint(m);
  tpustrategy::bindings::init_spmd(m);
  tpustrategy::bindings::init_runtime(m);
  tpustrategy::bindings::init_sim(m);
  tpustrategy::bindings::init_mpi(m);
}
