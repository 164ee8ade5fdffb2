// Topology and DeviceAssignment (tpu/topology.h, tpu/device_assignment.h) with numpy arrays in and out.
// The Python classes tpustrategy.tpu.experimental.{Topology, DeviceAssignment} wrap these; they keep TF's argument
// handling (np.asarray(..., int32)) and the C++ side validates shapes and values.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bindings/bindings.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/tpu/device_assignment.h"
#include "tpustrategy/tpu/slice_preset.h"
#include "tpustrategy/tpu/topology.h"

namespace tpustrategy::bindings {

namespace {

using Int32Array = py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>;

// Shape and flat values of an int32 array (any rank; the core checks the rank it needs).
std::pair<std::vector<std::int64_t>, std::vector<std::int32_t>> shape_and_values(const Int32Array& array) {
  std::vector<std::int64_t> shape(array.shape(), array.shape() + array.ndim());
  std::vector<std::int32_t> values(array.data(), array.data() + array.size());
  return {std::move(shape), std::move(values)};
}

// A fresh (owning) numpy array of `shape` holding `values`.
template <typename Shape>
Int32Array to_numpy(const Shape& shape, const std::vector<std::int32_t>& values) {
  std::vector<py::ssize_t> dims(std::begin(shape), std::end(shape));
  Int32Array out(dims);
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

Int32Array coordinates_to_numpy(const std::vector<Coordinate>& coordinates) {
  std::vector<std::int32_t> flat;
  flat.reserve(coordinates.size() * 4);
  for (const Coordinate& c : coordinates) flat.insert(flat.end(), c.begin(), c.end());
  return to_numpy(std::array<std::int64_t, 2>{static_cast<std::int64_t>(coordinates.size()), 4}, flat);
}

std::vector<std::int32_t> mesh_shape_vector(const Int32Array& mesh_shape) {
  return {mesh_shape.data(), mesh_shape.data() + mesh_shape.size()};
}

void bind_topology_class(py::module_& m) {
  py::class_<Topology>(m, "Topology", "The physical mesh of a TPU slice and where each TPU device sits in it.")
      .def(py::init([](const Int32Array& mesh_shape, const Int32Array& device_coordinates) {
             auto [shape, values] = shape_and_values(device_coordinates);
             return Topology(mesh_shape_vector(mesh_shape), shape, std::move(values));
           }),
           py::arg("mesh_shape"), py::arg("device_coordinates"), R"doc(Builds a topology from arrays.

Args:
  mesh_shape: int32 [4]: chips along x, y, z and cores per chip.
  device_coordinates: int32 [tasks, devices per task, 4]: each TPU device's mesh coordinates.

Raises:
  ValueError: either array is malformed, or coordinates repeat or fall outside the mesh.)doc")
      .def_static(
          "from_serialized", [](const py::bytes& serialized) { return Topology(std::string(serialized)); },
          py::arg("serialized"), R"doc(Parses a serialized TopologyProto.

Args:
  serialized: the TopologyProto bytes.

Raises:
  ValueError: malformed bytes or an inconsistent topology.)doc")
      .def_property_readonly("mesh_shape",
                             [](const Topology& t) {
                               return to_numpy(std::array<std::int64_t, 1>{4},
                                               std::vector<std::int32_t>(t.mesh_shape().begin(), t.mesh_shape().end()));
                             })
      .def_property_readonly("mesh_rank", &Topology::mesh_rank)
      .def_property_readonly(
          "device_coordinates",
          [](const Topology& t) { return to_numpy(t.device_coordinates_shape(), t.device_coordinates()); },
          "int32 array [num_tasks, num_tpus_per_task, 4].")
      .def_property_readonly(
          "missing_devices", [](const Topology& t) { return coordinates_to_numpy(t.missing_devices()); },
          "int32 array [n, 4] of mesh positions without a device, in row-major mesh order.")
      .def_property_readonly("num_tasks", &Topology::num_tasks)
      .def_property_readonly("num_tpus_per_task", &Topology::num_tpus_per_task)
      .def("task_ordinal_at_coordinates", &Topology::task_ordinal_at_coordinates, py::arg("device_coordinates"),
           R"doc(The task (host) of the device at mesh coordinates.

Args:
  device_coordinates: [x, y, z, core].

Raises:
  ValueError: no device at those coordinates.)doc")
      .def("tpu_device_ordinal_at_coordinates", &Topology::tpu_device_ordinal_at_coordinates,
           py::arg("device_coordinates"), R"doc(The TPU ordinal within its task of the device at mesh coordinates.

Args:
  device_coordinates: [x, y, z, core].

Raises:
  ValueError: no device at those coordinates.)doc")
      .def("cpu_device_name_at_coordinates", &Topology::cpu_device_name_at_coordinates, py::arg("device_coordinates"),
           py::kw_only(), py::arg("job") = py::none(), R"doc(The name of the host CPU of the device at mesh coordinates.

Args:
  device_coordinates: [x, y, z, core].
  job: the job in the name; None gives a name without one.

Raises:
  ValueError: no device at those coordinates.)doc")
      .def("tpu_device_name_at_coordinates", &Topology::tpu_device_name_at_coordinates, py::arg("device_coordinates"),
           py::kw_only(), py::arg("job") = py::none(), R"doc(The name of the TPU device at mesh coordinates.

Args:
  device_coordinates: [x, y, z, core].
  job: the job in the name; None gives a name without one.

Raises:
  ValueError: no device at those coordinates.)doc")
      .def(
          "serialized", [](const Topology& t) { return py::bytes(t.serialized()); },
          "The TopologyProto bytes (the parsed bytes as given, else a fresh encoding).")
      .def("__eq__", [](const Topology& a, const Topology& b) { return a == b; });
}

// The docstring of a DeviceAssignment method taking (replica, logical_core[, job]).
std::string slot_doc(const char* summary, bool with_job) {
  std::string doc = std::string(summary) +
                    "\n\nArgs:\n  replica: the replica.\n  logical_core: the logical core within the replica.\n";
  if (with_job) doc += "  job: the job in the name; None gives a name without one.\n";
  return doc + "\nRaises:\n  ValueError: replica or logical_core out of range.";
}

void bind_device_assignment_class(py::module_& m) {
  py::enum_<DeviceOrderMode>(m, "DeviceOrderMode", "How DeviceAssignment.build orders replicas.")
      .value("AUTO", DeviceOrderMode::kAuto)
      .value("RING", DeviceOrderMode::kRing)
      .value("MESH", DeviceOrderMode::kMesh);

  py::class_<DeviceAssignment>(m, "DeviceAssignment", "Which physical TPU core runs each logical core of each replica.")
      .def(py::init([](const Topology& topology, const Int32Array& core_assignment) {
             auto [shape, values] = shape_and_values(core_assignment);
             return DeviceAssignment(topology, shape, std::move(values));
           }),
           py::arg("topology"), py::arg("core_assignment"), R"doc(A device assignment from an explicit array.

Args:
  topology: the Topology.
  core_assignment: int32 [replicas, cores per replica, 4]: each logical core's mesh coordinates.

Raises:
  ValueError: a malformed array, or coordinates without a device or used twice.)doc")
      .def_static(
          "build",
          [](const Topology& topology, const std::optional<std::vector<std::int64_t>>& computation_shape,
             const std::optional<std::vector<std::int64_t>>& computation_stride, std::int64_t num_replicas,
             DeviceOrderMode mode) {
            py::gil_scoped_release release;  // large slices loop over thousands of cores
            return DeviceAssignment::build(topology, computation_shape, computation_stride, num_replicas, mode);
          },
          py::arg("topology"), py::kw_only(), py::arg("computation_shape") = py::none(),
          py::arg("computation_stride") = py::none(), py::arg("num_replicas") = 1,
          py::arg("device_order_mode") = DeviceOrderMode::kAuto,
          R"doc(Packs num_replicas copies of a computation_shape block of cores into the topology.

Args:
  topology: the Topology.
  computation_shape: [4] cores per replica along x, y, z, core (default ones).
  computation_stride: [4] distance between a replica's cores (default ones).
  num_replicas: how many replicas to place.
  device_order_mode: AUTO, RING or MESH.

Raises:
  ValueError: when the shapes are invalid or the replicas do not fit.)doc")
      .def_property_readonly("topology", &DeviceAssignment::topology)
      .def_property_readonly("num_replicas", &DeviceAssignment::num_replicas)
      .def_property_readonly("num_cores_per_replica", &DeviceAssignment::num_cores_per_replica)
      .def_property_readonly(
          "core_assignment",
          [](const DeviceAssignment& d) { return to_numpy(d.core_assignment_shape(), d.core_assignment()); },
          "int32 array [num_replicas, num_cores_per_replica, 4].")
      .def("coordinates", &DeviceAssignment::coordinates, py::arg("replica"), py::arg("logical_core"),
           slot_doc("The mesh coordinates [x, y, z, core] of a replica's logical core.", false).c_str())
      .def("tpu_ordinal", &DeviceAssignment::tpu_ordinal, py::arg("replica") = 0, py::arg("logical_core") = 0,
           slot_doc("The TPU ordinal within its task of a replica's logical core.", false).c_str())
      .def("host_task", &DeviceAssignment::host_task, py::arg("replica") = 0, py::arg("logical_core") = 0,
           slot_doc("The task (host) of a replica's logical core.", false).c_str())
      .def("tpu_device", &DeviceAssignment::tpu_device, py::arg("replica") = 0, py::arg("logical_core") = 0,
           py::kw_only(), py::arg("job") = py::none(),
           slot_doc("The TPU device name of a replica's logical core.", true).c_str())
      .def("host_device", &DeviceAssignment::host_device, py::arg("replica") = 0, py::arg("logical_core") = 0,
           py::kw_only(), py::arg("job") = py::none(),
           slot_doc("The host CPU device name of a replica's logical core.", true).c_str())
      .def("lookup_replicas", &DeviceAssignment::lookup_replicas, py::arg("task_id"), py::arg("logical_core"),
           R"doc(The replicas whose `logical_core` runs on task `task_id`.

Args:
  task_id: the task (host).
  logical_core: the logical core within a replica.

Raises:
  ValueError: no replica has that logical core on that task.)doc");
}

}  // namespace

void init_topology(py::module_& m) {
  bind_topology_class(m);
  bind_device_assignment_class(m);
  m.def(
      "slice_topology", [](const std::string& name) { return make_topology(find_slice_preset(name)); }, py::arg("name"),
      R"doc(The Topology of the named slice preset.

Args:
  name: a preset name such as "v4-32".

Raises:
  ValueError: an unknown name (the message lists the presets).)doc");
}

}  // namespace tpustrategy::bindings
