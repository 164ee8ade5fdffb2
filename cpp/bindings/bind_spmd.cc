// _core.spmd: Sharding (the XLA-style sharding value and its pure tile math) and ShardedTensor (a
// tensor's shards on a replica's logical cores). The user-facing tensor wrapper is
// tpustrategy/tpu/sharded_tensor.py.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/bindings.h"
#include "bindings/convert.h"
#include "tpustrategy/spmd/sharded_tape.h"
#include "tpustrategy/spmd/sharded_tensor.h"
#include "tpustrategy/spmd/sharding.h"

namespace tpustrategy::bindings {

namespace {

using spmd::ShardedTensor;
using spmd::Sharding;

py::tuple to_tuple(const std::vector<std::int64_t>& values) {
  py::tuple out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = py::int_(values[i]);
  return out;
}

void bind_sharding(py::module_& m) {
  py::class_<Sharding>(m, "Sharding", R"doc(
How a tensor is laid out over a replica's logical devices (modelled on XLA's HloSharding): replicated,
maximal (one device), tiled (a row-major grid of tiles, tile i on tile_assignment_devices[i]) or partially
tiled (a trailing grid dimension of replicas). Tiles use ceil division; last tiles may be short or empty.)doc")
      .def_static("replicated", &Sharding::replicated, "A full copy on every logical device.")
      .def_static("maximal", &Sharding::maximal, py::arg("device"), R"doc(The whole tensor on one logical device.

Args:
  device: the logical device index.)doc")
      .def_static("tiled", &Sharding::tiled, py::arg("tile_assignment_dims"), py::arg("devices"), py::kw_only(),
                  py::arg("last_tile_dim_replicate") = false, R"doc(A grid of tiles with an explicit device per tile.

Args:
  tile_assignment_dims: the tile grid's shape (one entry per tensor axis, plus the replication dimension).
  devices: the logical device of each tile, row-major over the grid.
  last_tile_dim_replicate: the grid's last dimension counts replicas of each tile (partial tiling).

Raises:
  ValueError: devices do not match the grid, or repeat.)doc")
      .def_static("iota_tiled", &Sharding::iota_tiled, py::arg("tile_assignment_dims"), py::kw_only(),
                  py::arg("last_tile_dim_replicate") = false,
                  R"doc(A grid of tiles on devices 0, 1, ... in row-major order.

Args:
  tile_assignment_dims: the tile grid's shape.
  last_tile_dim_replicate: the grid's last dimension counts replicas of each tile (partial tiling).)doc")
      .def_static("split", &spmd::split_sharding, py::arg("shape"), py::arg("partition_dimensions"),
                  py::arg("num_logical_devices"),
                  R"doc(TF's split_to_logical_devices: validation (rank, divisibility, product) and row-major tiling.

Args:
  shape: the tensor's shape.
  partition_dimensions: the number of pieces along each axis.
  num_logical_devices: the replica's logical devices; the product of partition_dimensions must equal it.

Raises:
  ValueError: a rank mismatch, an axis the pieces do not divide, or a product other than num_logical_devices.)doc")
      .def_property_readonly("kind", &Sharding::kind_name)
      .def_property_readonly("is_replicated", &Sharding::is_replicated)
      .def_property_readonly("is_maximal", &Sharding::is_maximal)
      .def_property_readonly("is_tiled", &Sharding::is_tiled)
      .def_property_readonly("replicate_on_last_tile_dim", &Sharding::replicate_on_last_tile_dim)
      .def_property_readonly("maximal_device", &Sharding::maximal_device)
      .def_property_readonly("tile_assignment_dims",
                             [](const Sharding& s) { return to_tuple(s.tile_assignment_dims()); })
      .def_property_readonly("tile_assignment_devices", &Sharding::tile_assignment_devices)
      .def_property_readonly(
          "tile_assignment",
          [](const Sharding& s) -> py::object {
            if (!s.is_tiled()) return py::none();
            py::array_t<std::int64_t> grid(static_cast<py::ssize_t>(s.tile_assignment_devices().size()));
            auto out = grid.mutable_unchecked<1>();
            for (py::ssize_t i = 0; i < out.shape(0); ++i) out(i) = s.tile_assignment_devices()[i];
            return grid.attr("reshape")(to_tuple(s.tile_assignment_dims()));
          })
      .def_property_readonly("tiled_rank", &Sharding::tiled_rank)
      .def_property_readonly("num_tiles", &Sharding::num_tiles)
      .def_property_readonly("replication_factor", &Sharding::replication_factor)
      .def("holds_data", &Sharding::holds_data, py::arg("device"), R"doc(Whether `device` holds a tile.

Args:
  device: a logical device index.)doc")
      .def(
          "logical_devices",
          [](const Sharding& s, int num_devices) {
            std::vector<int> out;
            for (int k = 0; k < num_devices; ++k)
              if (s.holds_data(k)) out.push_back(k);
            return out;
          },
          py::arg("num_logical_devices"), R"doc(The logical devices that hold data.

Args:
  num_logical_devices: how many logical devices the replica has.)doc")
      .def(
          "tile_index_for_device",
          [](const Sharding& s, int device) { return to_tuple(spmd::tile_index_for_device(s, device)); },
          py::arg("device"), R"doc(The tile-grid index of `device`'s tile.

Args:
  device: a logical device index.)doc")
      .def(
          "device_for_tile_index",
          [](const Sharding& s, const std::vector<std::int64_t>& index, std::int64_t replica) {
            return spmd::device_for_tile_index(s, index, replica);
          },
          py::arg("index"), py::kw_only(), py::arg("replica") = 0, R"doc(The device holding the tile at a grid index.

Args:
  index: the tile-grid index (without the replication dimension).
  replica: which copy, for a partially tiled sharding.)doc")
      .def(
          "devices_for_tile_index",
          [](const Sharding& s, const std::vector<std::int64_t>& index) {
            return spmd::devices_for_tile_index(s, index);
          },
          py::arg("index"), R"doc(Every device holding the tile at a grid index (its copies).

Args:
  index: the tile-grid index (without the replication dimension).)doc")
      .def(
          "device_groups_along", [](const Sharding& s, int grid_dim) { return spmd::device_groups_along(s, grid_dim); },
          py::arg("grid_dim"), R"doc(Devices differing only along a tile-grid dimension: a collective's participants.

Args:
  grid_dim: the tile-grid dimension.)doc")
      .def(
          "tile_shape", [](const Sharding& s, const Shape& shape) { return to_tuple(spmd::tile_shape(shape, s)); },
          py::arg("shape"), R"doc(The full tile's shape (ceil division; last tiles may be shorter).

Args:
  shape: the global tensor's shape.)doc")
      .def(
          "tile_offset_for_device",
          [](const Sharding& s, const Shape& shape, int device) {
            return to_tuple(spmd::tile_offset_for_device(shape, s, device));
          },
          py::arg("shape"), py::arg("device"), R"doc(Where `device`'s tile starts in the global tensor.

Args:
  shape: the global tensor's shape.
  device: a logical device index.)doc")
      .def(
          "tile_limit_for_device",
          [](const Sharding& s, const Shape& shape, int device) {
            return to_tuple(spmd::tile_limit_for_device(shape, s, device));
          },
          py::arg("shape"), py::arg("device"), R"doc(Where `device`'s tile ends (exclusive) in the global tensor.

Args:
  shape: the global tensor's shape.
  device: a logical device index.)doc")
      .def(
          "divides_evenly", [](const Sharding& s, const Shape& shape) { return spmd::divides_evenly(shape, s); },
          py::arg("shape"), R"doc(Whether every tile of `shape` has the same extent.

Args:
  shape: the global tensor's shape.)doc")
      .def("__eq__", [](const Sharding& a, const Sharding& b) { return a == b; })
      .def("__eq__", [](const Sharding&, py::handle) { return false; })
      .def("__hash__", [](const Sharding& s) { return std::hash<std::string>()(s.to_string()); })
      .def("__str__", &Sharding::to_string)
      .def("__repr__", [](const Sharding& s) { return "Sharding(" + s.to_string() + ")"; })
      .def(py::pickle(
          [](const Sharding& s) {
            return py::make_tuple(s.kind_name(), s.min_num_devices(), s.tile_assignment_dims(),
                                  s.tile_assignment_devices());
          },
          [](const py::tuple& state) {
            const auto kind = state[0].cast<std::string>();
            if (kind == "replicated") return Sharding::replicated();
            if (kind == "maximal") return Sharding::maximal(state[1].cast<int>() - 1);
            return Sharding::tiled(state[2].cast<std::vector<std::int64_t>>(), state[3].cast<std::vector<int>>(),
                                   kind == "partially_tiled");
          }));
}

void bind_sharded_tensor(py::module_& m) {
  py::class_<ShardedTensor>(m, "ShardedTensor", R"doc(
A global tensor's shards on a replica's logical devices: shard k is a Tensor on logical_devices[k] (None where
the sharding places nothing), so each core's memory is charged for exactly what it holds.)doc")
      .def_static(
          "shard",
          [](py::handle value, const Sharding& sharding, const std::vector<DevicePtr>& logical_devices) {
            const Tensor global = to_tensor(value);
            py::gil_scoped_release release;  // pure C++ strided copies
            return ShardedTensor::shard(global, sharding, logical_devices);
          },
          py::arg("tensor"), py::arg("sharding"), py::arg("logical_devices"),
          R"doc(Cuts a global tensor into its shards, each allocated on its logical device.

Args:
  tensor: a Tensor or a value convertible to one.
  sharding: the Sharding.
  logical_devices: the replica's logical devices, logical device k at index k.)doc")
      .def(
          "assemble",
          [](const ShardedTensor& t, DevicePtr device) {
            py::gil_scoped_release release;
            return spmd::assemble_recorded(t, std::move(device));
          },
          py::arg("device") = py::none(),
          R"doc(The global tensor rebuilt from the shards; recorded on the tapes that track the sharded value.

Args:
  device: where the result goes; None = the current device.)doc")
      .def_property_readonly("_shape_tuple", [](const ShardedTensor& t) { return to_tuple(t.shape()); })
      .def_property_readonly("dtype", &ShardedTensor::dtype)
      .def_property_readonly("sharding", &ShardedTensor::sharding)
      .def_property_readonly("num_logical_devices", &ShardedTensor::num_logical_devices)
      .def_property_readonly("logical_devices", &ShardedTensor::logical_devices)
      .def_property_readonly("shards",
                             [](const ShardedTensor& t) {
                               py::list out;
                               for (const Tensor& shard : t.shards()) {
                                 out.append(shard.valid() ? py::cast(shard) : py::none());
                               }
                               return out;
                             })
      .def_property_readonly("bytes_per_device", &ShardedTensor::bytes_per_device)
      .def_property_readonly("total_bytes", &ShardedTensor::total_bytes);
}

}  // namespace

void init_spmd(py::module_& m) {
  bind_sharding(m);
  bind_sharded_tensor(m);
  init_spmd_partitioner(m);
}

}  // namespace tpustrategy::bindings
