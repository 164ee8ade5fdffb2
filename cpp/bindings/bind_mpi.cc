// tpustrategy._core.mpi: the MPI Communicator over numpy buffers, for the multi-process front end
// (python/tpustrategy/distribute/multi_process.py) and for tests. Each call takes this process's
// local participants' arrays (in local_ranks order) and returns new arrays; the GIL is released while
// MPI waits. Without MPI in the build, `available()` is False and the rest raises UnimplementedError.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings/bindings.h"
#include "bindings/convert.h"
#include "tpustrategy/collectives/mpi/mpi_communicator.h"
#include "tpustrategy/core/errors.h"

namespace tpustrategy::bindings {

namespace {

using Arrays = std::vector<py::array>;

// Local arrays -> contiguous copies (kept alive by the vector), their dtype and element count.
struct Locals {
  Arrays arrays;
  std::vector<const void*> pointers;
  DType dtype = DType::kFloat32;
  std::int64_t count = 0;
  std::vector<py::ssize_t> shape;
};

Locals locals_of(const Communicator& comm, const Arrays& inputs, const char* where) {
  Locals l;
  if (inputs.size() != comm.local_ranks().size()) {
    fail<InvalidArgumentError>(where, "got {} arrays but this process hosts {} participants", inputs.size(),
                               comm.local_ranks().size());
  }
  for (std::size_t j = 0; j < inputs.size(); ++j) {
    py::array a = py::array::ensure(inputs[j], py::array::c_style);
    const DType dtype = dtype_from_numpy(a.dtype());
    std::vector<py::ssize_t> shape(a.shape(), a.shape() + a.ndim());
    if (j == 0) {
      l.dtype = dtype;
      l.shape = shape;
      l.count = a.size();
    } else if (dtype != l.dtype || shape != l.shape) {
      fail<InvalidArgumentError>(where,
                                 "local participant {} has dtype {} and {} elements; participant 0 has {} and {}", j,
                                 dtype_name(dtype), a.size(), dtype_name(l.dtype), l.count);
    }
    l.pointers.push_back(a.data());
    l.arrays.push_back(std::move(a));
  }
  return l;
}

py::array empty_like(DType dtype, const std::vector<py::ssize_t>& shape) { return {numpy_dtype(dtype), shape}; }

std::vector<void*> outputs(Arrays& arrays) {
  std::vector<void*> p;
  for (auto& a : arrays) p.push_back(a.mutable_data());
  return p;
}

Arrays empty_locals(const Communicator& comm, DType dtype, const std::vector<py::ssize_t>& shape) {
  Arrays out;
  for (std::size_t j = 0; j < comm.local_ranks().size(); ++j) out.push_back(empty_like(dtype, shape));
  return out;
}

std::vector<py::ssize_t> flat(std::int64_t count) { return {static_cast<py::ssize_t>(count)}; }

}  // namespace

void init_mpi(py::module_& m) {
  m.def("available", &mpi_available, "True when the core was built with MPI.");
  m.def("initialize", &mpi_initialize, "Initialises MPI (idempotent).");
  m.def("initialized", &mpi_initialized, "True between initialize() and finalize().");
  m.def("finalize", &mpi_finalize, "Finalises MPI if tpustrategy initialised it (idempotent).");
  m.def("world_rank", &mpi_world_rank, "This process's MPI_COMM_WORLD rank.");
  m.def("world_size", &mpi_world_size, "The number of processes in MPI_COMM_WORLD.");
  m.def("default_timeout_seconds", &mpi_default_timeout_seconds,
        "TPUSTRATEGY_MPI_TIMEOUT_SECONDS, or 60 (ValueError for a value that is not a positive number).");

  py::class_<Communicator, std::shared_ptr<Communicator>>(m, "Communicator",
                                                          "A group of participants (see collectives/communicator.h).")
      .def_property_readonly("backend", [](const Communicator& c) { return std::string(c.backend()); })
      .def_property_readonly("size", &Communicator::size)
      .def_property_readonly(
          "local_ranks",
          [](const Communicator& c) { return std::vector<int>(c.local_ranks().begin(), c.local_ranks().end()); })
      .def_property_readonly("process_index", &Communicator::process_index)
      .def_property_readonly("process_count", &Communicator::process_count)
      .def(
          "all_reduce",
          [](Communicator& c, const Arrays& inputs, const std::string& op) {
            Locals l = locals_of(c, inputs, "Communicator.all_reduce");
            const CollectiveOp reduce_op = collective_op_from_name(op);
            py::array out = empty_like(l.dtype, l.shape);
            void* target = out.mutable_data();
            py::gil_scoped_release release;
            c.all_reduce(l.dtype, l.pointers, l.count, reduce_op, target);
            return out;
          },
          py::arg("inputs"), py::arg("op"), R"doc(
Reduces every participant's array element-wise across all processes.

Args:
  inputs: this process's participants' arrays, in local_ranks order, same dtype and shape.
  op: "SUM", "MEAN", "MAX", "MIN" or "PROD".

Returns:
  One array (the result every participant shares).

Raises:
  InvalidArgumentError: bad local arguments, or processes in different collectives.
  AbortedError: another process failed (the message names the process and rank).
  DeadlineExceededError: a process did not arrive within the timeout.)doc")
      .def(
          "all_gather",
          [](Communicator& c, const Arrays& inputs) {
            Locals l = locals_of(c, inputs, "Communicator.all_gather");
            py::array out = empty_like(l.dtype, flat(l.count * c.size()));
            void* target = out.mutable_data();
            py::gil_scoped_release release;
            c.all_gather(l.dtype, l.pointers, l.count, target);
            return out;
          },
          py::arg("inputs"), R"doc(Every participant's array flattened and concatenated in rank order.

Args:
  inputs: this process's participants' arrays, in local_ranks order, same dtype and shape.

Returns:
  One flat array.)doc")
      .def(
          "reduce_scatter",
          [](Communicator& c, const Arrays& inputs, const std::string& op) {
            Locals l = locals_of(c, inputs, "Communicator.reduce_scatter");
            const CollectiveOp reduce_op = collective_op_from_name(op);
            Arrays out = empty_locals(c, l.dtype, flat(c.size() ? l.count / c.size() : 0));
            std::vector<void*> targets = outputs(out);
            {
              py::gil_scoped_release release;
              c.reduce_scatter(l.dtype, l.pointers, l.count, reduce_op, targets);
            }
            return out;
          },
          py::arg("inputs"), py::arg("op"), R"doc(Local participant j (rank r) gets chunk r of the reduction (flat).

Args:
  inputs: this process's participants' arrays, in local_ranks order; element count divisible by size.
  op: "SUM", "MEAN", "MAX", "MIN" or "PROD".

Returns:
  One flat array per local participant.)doc")
      .def(
          "broadcast",
          [](Communicator& c, const Arrays& inputs, int root) {
            Locals l = locals_of(c, inputs, "Communicator.broadcast");
            Arrays out = empty_locals(c, l.dtype, l.shape);
            std::vector<void*> targets = outputs(out);
            {
              py::gil_scoped_release release;
              c.broadcast(l.dtype, l.pointers, l.count, root, targets);
            }
            return out;
          },
          py::arg("inputs"), py::arg("root"), R"doc(Rank `root`'s array, for every local participant.

Args:
  inputs: this process's participants' arrays, in local_ranks order.
  root: the group rank whose array is sent.

Returns:
  One array per local participant.)doc")
      .def(
          "all_to_all",
          [](Communicator& c, const Arrays& inputs) {
            Locals l = locals_of(c, inputs, "Communicator.all_to_all");
            Arrays out = empty_locals(c, l.dtype, flat(l.count));
            std::vector<void*> targets = outputs(out);
            {
              py::gil_scoped_release release;
              c.all_to_all(l.dtype, l.pointers, l.count, targets);
            }
            return out;
          },
          py::arg("inputs"), R"doc(Rank t's output chunk s = rank s's input chunk t (flat).

Args:
  inputs: this process's participants' arrays, in local_ranks order; element count divisible by size.

Returns:
  One flat array per local participant.)doc")
      .def(
          "collective_permute",
          [](Communicator& c, const Arrays& inputs, const std::vector<std::pair<int, int>>& pairs) {
            Locals l = locals_of(c, inputs, "Communicator.collective_permute");
            Arrays out = empty_locals(c, l.dtype, l.shape);
            std::vector<void*> targets = outputs(out);
            {
              py::gil_scoped_release release;
              c.collective_permute(l.dtype, l.pointers, l.count, pairs, targets);
            }
            return out;
          },
          py::arg("inputs"), py::arg("source_target_pairs"), R"doc(Target's output = source's input.

Args:
  inputs: this process's participants' arrays, in local_ranks order.
  source_target_pairs: (source rank, target rank) pairs; outputs no pair targets are zeros.

Returns:
  One array per local participant.)doc")
      .def(
          "barrier",
          [](Communicator& c) {
            py::gil_scoped_release release;
            c.barrier();
          },
          "Returns when every process of the group has called it.")
      .def(
          "split",
          [](const Communicator& c, const std::vector<int>& colors, const std::vector<int>& keys) {
            py::gil_scoped_release release;
            return c.split(colors, keys);
          },
          py::arg("color_of_rank"), py::arg("key_of_rank"),
          R"doc(Subgroups as MPI_Comm_split; every process must call it.

Args:
  color_of_rank: per group rank, its subgroup's colour.
  key_of_rank: per group rank, its order key within the subgroup.

Returns:
  {colour: Communicator} for the colours of this process's participants.)doc");

  py::class_<MpiCommunicator, Communicator, std::shared_ptr<MpiCommunicator>>(
      m, "MpiCommunicator", "A Communicator over MPI processes (make_communicator).")
      .def_property("timeout_seconds", &MpiCommunicator::timeout_seconds, &MpiCommunicator::set_timeout_seconds)
      .def("world_rank_of_process", &MpiCommunicator::world_rank_of_process, py::arg("process_index"),
           R"doc(The MPI_COMM_WORLD rank of a process of the group.

Args:
  process_index: the process's index in the group.)doc")
      .def(
          "abort",
          [](MpiCommunicator& c, int rank, const std::string& message) {
            py::gil_scoped_release release;
            return c.abort(rank, message);
          },
          py::arg("rank"), py::arg("message"), R"doc(
Tells every other process that participant `rank` failed with `message`.

Their current or next collective raises AbortedError naming this process and the rank.

Args:
  rank: the failed participant's group rank.
  message: what went wrong.

Returns:
  False if the other processes did not take notice within the timeout.)doc");

  m.def(
      "make_communicator",
      [](int local_size) {
        py::gil_scoped_release release;
        return make_mpi_communicator(local_size);
      },
      py::arg("local_size"), R"doc(
The group over MPI_COMM_WORLD in which this process hosts `local_size` participants.

Ranks are numbered process by process. Every process must call it.

Args:
  local_size: this process's number of participants.

Returns:
  An MpiCommunicator.

Raises:
  UnimplementedError: the core was built without MPI.)doc");
}

}  // namespace tpustrategy::bindings
