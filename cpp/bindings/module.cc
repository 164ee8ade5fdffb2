// The pybind11 module tpustrategy._core: glue only. Every domain is one submodule (_core.tensor,
// _core.ops, _core.collectives, ...) filled by its bind_<domain>.cc, created here in dependency order
// (boost-histogram's src/module.cpp). Nothing is bound on _core itself (tests_py/test_core_submodules.py).
#include <pybind11/pybind11.h>

#include "bindings/bindings.h"

namespace {

namespace py = pybind11;

// One domain: _core.<name>, filled by init. Also entered in sys.modules so that
// `import tpustrategy._core.<name>` and pickling of its classes (which names them by __module__) work.
struct Domain {
  const char* name;
  const char* doc;
  void (*init)(py::module_&);
};

}  // namespace

PYBIND11_MODULE(_core, m) {
  namespace b = tpustrategy::bindings;
  m.doc() = "tpustrategy C++ core (private; use the tpustrategy package)";
  b::init_errors(m);  // registers the exception translator; binds no names
  // In dependency order: a domain's classes exist before a later domain's signatures name them.
  const Domain domains[] = {
      {"tensor", "DType and Tensor (private; use the tpustrategy facade).", b::init_tensor},
      {"ops", "Tensor kernels (private; use the tpustrategy facade).", b::init_ops},
      {"autodiff", "Gradient tapes (private; use tpustrategy.GradientTape).", b::init_autodiff},
      {"devices", "Simulated devices, placement and memory (private; use tf.config).", b::init_devices},
      {"slice", "Slice presets and chip generations (private; use tpustrategy.tpu).", b::init_slice},
      {"topology", "Topology and DeviceAssignment (private; use tpustrategy.tpu).", b::init_topology},
      {"collectives", "Cross-replica functions over tensors (private; use tpustrategy.distribute).",
       b::init_collectives},
      {"data", "Batching kernels and TFRecord I/O (private; use tpustrategy.data).", b::init_data},
      {"example", "tf.train.Example protos (private; use tpustrategy.io).", b::init_example},
      {"summary", "TensorBoard event files (private; use tpustrategy.summary).", b::init_summary},
      {"checkpoint", "TensorFlow checkpoint files (private; use tpustrategy.train).", b::init_checkpoint},
      {"spmd", "Sharding and the SPMD partitioner (private; use the tpustrategy facade).", b::init_spmd},
      {"runtime", "Per-replica contexts and the Rendezvous (private; use tpustrategy.distribute).", b::init_runtime},
      {"sim", "Cost model and step timeline (private; use tpustrategy.experimental).", b::init_sim},
      {"mpi", "Multi-process collectives over MPI (Open MPI).", b::init_mpi},
  };
  py::object sys_modules = py::module_::import("sys").attr("modules");
  for (const Domain& domain : domains) {
    py::module_ sub = m.def_submodule(domain.name, domain.doc);
    sys_modules[sub.attr("__name__")] = sub;
    domain.init(sub);
  }
}
