#pragma once
// Declarations of the per-domain binding initialisers called by module.cc. Each init_<domain> fills
// the submodule _core.<domain> it is given (module.cc creates them); init_errors binds no names.
#include <pybind11/pybind11.h>

namespace tpustrategy::bindings {

namespace py = pybind11;

void init_errors(py::module_& m);
void init_tensor(py::module_& m);
void init_ops(py::module_& m);
void init_ops_nn(py::module_& m);      // called by init_ops on _core.ops
void init_ops_dtypes(py::module_& m);  // called by init_ops on _core.ops
void init_autodiff(py::module_& m);
void init_devices(py::module_& m);
void init_slice(py::module_& m);
void init_topology(py::module_& m);
void init_collectives(py::module_& m);
void init_data(py::module_& m);
void init_example(py::module_& m);
void init_spmd(py::module_& m);
void init_spmd_partitioner(py::module_& m);  // _core.spmd, called by init_spmd
void init_runtime(py::module_& m);
void init_sim(py::module_& m);
// Called by init_sim with the _core.sim submodule (recorded steps and their estimates).
void init_sim_step(py::module_& sim);
void init_mpi(py::module_& m);
void init_summary(py::module_& m);
void init_checkpoint(py::module_& m);

}  // namespace tpustrategy::bindings
