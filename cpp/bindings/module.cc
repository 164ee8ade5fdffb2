// The pybind11 module tpustrategy._core: glue only. Every domain is one submodule (_core.tensor,
// _core.ops, _core.collectives, ...) filled by its bind_<domain>.cc, created here in dependency order
// (boost-histogram's src/module.cpp). Nothing is bound on _core itself (tests_py/test_core_submodules.py).
#include <pybind11/pybind11.h>

#include "bindings/bindings.h"

namespace {

namespace py = pybind11;

// _core.<name>, also entered in sys.modules so that `import tpustrategy._core.<name>` and pickling
// of its classes (which names them by __module__) work.
py::module_ submodule(py::module_& core, const char* name, const char* doc) {
  py::module_ sub = core.def_submodule(name, doc);
  py::module_::import("sys").attr("modules")[sub.attr("__name__")] = sub;
  return sub;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  namespace b = tpustrategy::bindings;
  m.doc() = "tpustrategy C++ core (private; use the tpustrategy package)";
  b::init_errors(m);  // registers the exception translator; binds no names
  py::module_ tensor = submodule(m, "tensor", "DType and Tensor (private; use the tpustrategy facade).");
  b::init_tensor(tensor);
  py::module_ ops = submodule(m, "ops", "Tensor kernels (private; use the tpustrategy facade).");
  b::init_ops(ops);
  py::module_ autodiff = submodule(m, "autodiff", "Gradient tapes (private; use tpustrategy.GradientTape).");
  b::init_autodiff(autodiff);
  py::module_ devices = submodule(m, "devices", "Simulated devices, placement and memory (private; use tf.config).");
  b::init_devices(devices);
  py::module_ slices = submodule(m, "slice", "Slice presets and chip generations (private; use tpustrategy.tpu).");
  b::init_slice(slices);
  py::module_ topology = submodule(m, "topology", "Topology and DeviceAssignment (private; use tpustrategy.tpu).");
  b::init_topology(topology);
  py::module_ collectives =
      submodule(m, "collectives", "Cross-replica functions over tensors (private; use tpustrategy.distribute).");
  b::init_collectives(collectives);
  py::module_ data = submodule(m, "data", "Batching kernels and TFRecord I/O (private; use tpustrategy.data).");
  b::init_data(data);
  py::module_ example = submodule(m, "example", "tf.train.Example protos (private; use tpustrategy.io).");
  b::init_example(example);
  py::module_ summary = submodule(m, "summary", "TensorBoard event files (private; use tpustrategy.summary).");
  b::init_summary(summary);
  py::module_ checkpoint = submodule(m, "checkpoint", "TensorFlow checkpoint files (private; use tpustrategy.train).");
  b::init_checkpoint(checkpoint);
  py::module_ spmd = submodule(m, "spmd", "Sharding and the SPMD partitioner (private; use the tpustrategy facade).");
  b::init_spmd(spmd);
  py::module_ runtime =
      submodule(m, "runtime", "Per-replica contexts and the Rendezvous (private; use tpustrategy.distribute).");
  b::init_runtime(runtime);
  py::module_ sim = submodule(m, "sim", "Cost model and step timeline (private; use tpustrategy.experimental).");
  b::init_sim(sim);
  py::module_ mpi = submodule(m, "mpi", "Multi-process collectives over MPI (Open MPI).");
  b::init_mpi(mpi);
}
