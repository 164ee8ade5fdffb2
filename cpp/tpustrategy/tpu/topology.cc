#include "tpustrategy/tpu/topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/tpu/array_format.h"
#include "tpustrategy/tpu/topology_proto.h"

namespace tpustrategy {
namespace {

constexpr const char* kWhere = "Topology";

// Whether `values` coordinates are exactly tasks * devices_per_task * 4, without overflow: both counts
// are at most 2^31, so their product fits in int64 but times 4 may not (found by fuzzing).
bool holds_devices(std::size_t values, std::int64_t tasks, std::int64_t devices_per_task) {
  return values % Topology::kMeshRank == 0 &&
         static_cast<std::int64_t>(values / Topology::kMeshRank) == tasks * devices_per_task;
}

}  // namespace

std::string tpu_device_name(const std::optional<std::string>& job, int task, int device) {
  if (!job) return fmt::format("/task:{}/device:TPU:{}", task, device);
  return fmt::format("/job:{}/task:{}/device:TPU:{}", *job, task, device);
}

std::string cpu_device_name(const std::optional<std::string>& job, int task) {
  if (!job) return fmt::format("/task:{}/device:CPU:0", task);
  return fmt::format("/job:{}/task:{}/device:CPU:0", *job, task);
}

Topology::Topology(const std::vector<std::int32_t>& mesh_shape,
                   const std::vector<std::int64_t>& device_coordinates_shape,
                   std::vector<std::int32_t> device_coordinates) {
  set_mesh_shape(mesh_shape,
                 "`mesh_shape` must be a sequence of 4 positive "
                 "entries; got `mesh_shape={}`");
  if (device_coordinates_shape.size() != 3 || device_coordinates_shape[2] != kMeshRank) {
    fail<ValueError>(kWhere,
                     "`device_coordinates` must be a rank 3 int32 array with "
                     "minor dimension equal to the "
                     "`mesh_shape` rank ({}); got device_coordinates.shape={}",
                     kMeshRank, detail::numpy_shape_str(device_coordinates_shape));
  }
  if (device_coordinates_shape[0] < 0 || device_coordinates_shape[1] < 0 || device_coordinates_shape[0] > INT32_MAX ||
      device_coordinates_shape[1] > INT32_MAX) {
    fail<ValueError>(kWhere, "`device_coordinates` has an invalid shape {}",
                     detail::numpy_shape_str(device_coordinates_shape));
  }
  num_tasks_ = device_coordinates_shape[0];
  num_tpus_per_task_ = device_coordinates_shape[1];
  if (!holds_devices(device_coordinates.size(), num_tasks_, num_tpus_per_task_)) {
    // Both counts are below 2^31, so the product times 4 fits in uint64.
    const std::uint64_t expected =
        static_cast<std::uint64_t>(num_tasks_) * static_cast<std::uint64_t>(num_tpus_per_task_) * kMeshRank;
    fail<ValueError>(kWhere, "`device_coordinates` has {} values but shape {} needs {}", device_coordinates.size(),
                     detail::numpy_shape_str(device_coordinates_shape), expected);
  }
  device_coordinates_ = std::move(device_coordinates);
  index_devices();
  serialized_ = detail::serialize_topology_proto({std::vector<std::int32_t>(mesh_shape_.begin(), mesh_shape_.end()),
                                                  static_cast<std::int32_t>(num_tasks_),
                                                  static_cast<std::int32_t>(num_tpus_per_task_), device_coordinates_});
}

std::pair<std::vector<std::int64_t>, std::vector<std::int32_t>> detail::flatten_coordinates(
    const std::vector<std::vector<Coordinate>>& nested, const char* what) {
  const std::size_t inner = nested.empty() ? 0 : nested[0].size();
  std::vector<std::int32_t> flat;
  flat.reserve(nested.size() * inner * Topology::kMeshRank);
  for (std::size_t i = 0; i < nested.size(); ++i) {
    if (nested[i].size() != inner) {
      fail<ValueError>(kWhere, "`{}` is ragged: row 0 has {} entries but row {} has {}", what, inner, i,
                       nested[i].size());
    }
    for (const Coordinate& c : nested[i]) flat.insert(flat.end(), c.begin(), c.end());
  }
  std::vector<std::int64_t> shape{static_cast<std::int64_t>(nested.size()), static_cast<std::int64_t>(inner),
                                  Topology::kMeshRank};
  return {std::move(shape), std::move(flat)};
}

Topology::Topology(const std::vector<std::int32_t>& mesh_shape,
                   const std::vector<std::vector<Coordinate>>& device_coordinates)
    : Topology(mesh_shape, detail::flatten_coordinates(device_coordinates, "device_coordinates")) {}

Topology::Topology(const std::vector<std::int32_t>& mesh_shape,
                   std::pair<std::vector<std::int64_t>, std::vector<std::int32_t>> shape_and_values)
    : Topology(mesh_shape, shape_and_values.first, std::move(shape_and_values.second)) {}

Topology::Topology(std::string serialized) {
  const detail::TopologyProto proto = detail::parse_topology_proto(serialized);
  set_mesh_shape(proto.mesh_shape, "`mesh_shape` must be a vector of size 4 with positive entries; got {}");
  if (proto.num_tasks < 0) fail<ValueError>(kWhere, "`num_tasks` must be >= 0; got {}", proto.num_tasks);
  if (proto.num_tpu_devices_per_task < 0) {
    fail<ValueError>(kWhere, "`num_tpu_devices_per_task` must be >= 0; got {}", proto.num_tpu_devices_per_task);
  }
  num_tasks_ = proto.num_tasks;
  num_tpus_per_task_ = proto.num_tpu_devices_per_task;
  if (!holds_devices(proto.device_coordinates.size(), num_tasks_, num_tpus_per_task_)) {
    fail<ValueError>(kWhere,
                     "`device_coordinates` must have shape num_tasks ({}) * "
                     "num_tpu_devices_per_task ({}) * "
                     "len(mesh_shape) ({}); got shape {}",
                     num_tasks_, num_tpus_per_task_, kMeshRank, proto.device_coordinates.size());
  }
  device_coordinates_ = proto.device_coordinates;
  index_devices();
  // Like TF, a parsed topology serializes to exactly the bytes it was given.
  serialized_ = std::move(serialized);
}

void Topology::set_mesh_shape(const std::vector<std::int32_t>& mesh_shape, const char* message) {
  if (mesh_shape.size() != kMeshRank ||
      std::any_of(mesh_shape.begin(), mesh_shape.end(), [](auto d) { return d < 1; })) {
    throw ValueError(
        fmt::format("[{}] {}", kWhere, fmt::format(fmt::runtime(message), detail::numpy_array_str(mesh_shape))));
  }
  std::int64_t positions = 1;
  for (int i = 0; i < kMeshRank; ++i) {
    mesh_shape_[i] = mesh_shape[i];
    positions *= mesh_shape[i];
    if (positions > kMaxMeshPositions) {
      fail<ValueError>(kWhere, "`mesh_shape` {} has more than {} positions", detail::numpy_array_str(mesh_shape),
                       kMaxMeshPositions);
    }
  }
}

// Inverts [task, device] -> coordinates into mesh -> task / device maps. A position listed twice is an error.
void Topology::index_devices() {
  std::int64_t positions = 1;
  for (std::int32_t d : mesh_shape_) positions *= d;
  task_at_.assign(static_cast<std::size_t>(positions), -1);
  device_at_.assign(static_cast<std::size_t>(positions), -1);
  // One pass over the listed devices: bounded by the coordinates given, not by num_tasks (2^31 tasks of zero
  // devices is a 12-byte proto; found by fuzz_topology_proto as a 10 s hang).
  const std::int64_t listed = static_cast<std::int64_t>(device_coordinates_.size()) / kMeshRank;
  for (std::int64_t flat = 0; flat < listed; ++flat) {
    {
      const std::int64_t task = flat / num_tpus_per_task_;
      const std::int64_t device = flat % num_tpus_per_task_;
      Coordinate c;
      std::copy_n(device_coordinates_.begin() + flat * kMeshRank, kMeshRank, c.begin());
      for (int i = 0; i < kMeshRank; ++i) {
        if (c[i] < 0) fail<ValueError>(kWhere, "`device_coordinates` must be >= 0; got {}", detail::numpy_array_str(c));
        if (c[i] >= mesh_shape_[i]) {
          fail<ValueError>(kWhere,
                           "`device_coordinates` {} of task {} device {} lies "
                           "outside mesh_shape {}",
                           detail::numpy_array_str(c), task, device, detail::numpy_array_str(mesh_shape_));
        }
      }
      const std::size_t index = mesh_index(c);
      // TF's Python Topology keeps the last device silently; two devices at one position are not a
      // physical slice, and DeviceAssignment.build would then stack replicas on one core: reject.
      if (task_at_[index] >= 0) {
        fail<ValueError>(kWhere,
                         "`device_coordinates` lists position {} twice: task {} device {} and task {} device {}",
                         detail::numpy_array_str(c), task_at_[index], device_at_[index], task, device);
      }
      task_at_[index] = static_cast<std::int32_t>(task);
      device_at_[index] = static_cast<std::int32_t>(device);
    }
  }
  missing_devices_.clear();
  Coordinate c{};
  for (const auto task : task_at_) {
    if (task < 0) missing_devices_.push_back(c);
    for (int i = kMeshRank - 1; i >= 0 && ++c[i] == mesh_shape_[i]; --i) c[i] = 0;  // row-major increment
  }
}

std::size_t Topology::mesh_index(const Coordinate& coordinates) const {
  std::size_t index = 0;
  for (int i = 0; i < kMeshRank; ++i) {
    if (coordinates[i] < 0 || coordinates[i] >= mesh_shape_[i]) {
      fail<ValueError>(kWhere, "coordinates {} are outside the mesh of shape {}", detail::numpy_array_str(coordinates),
                       detail::numpy_array_str(mesh_shape_));
    }
    index = index * static_cast<std::size_t>(mesh_shape_[i]) + static_cast<std::size_t>(coordinates[i]);
  }
  return index;
}

Coordinate Topology::device_coordinate(int task, int device) const {
  if (task < 0 || task >= num_tasks_ || device < 0 || device >= num_tpus_per_task_) {
    fail<ValueError>(kWhere, "no device {} on task {}: the topology has {} tasks of {} devices", device, task,
                     num_tasks_, num_tpus_per_task_);
  }
  Coordinate c;
  std::copy_n(device_coordinates_.begin() + (task * num_tpus_per_task_ + device) * kMeshRank, kMeshRank, c.begin());
  return c;
}

int Topology::task_ordinal_at_coordinates(const Coordinate& coordinates) const {
  return task_at_[mesh_index(coordinates)];
}

int Topology::tpu_device_ordinal_at_coordinates(const Coordinate& coordinates) const {
  return device_at_[mesh_index(coordinates)];
}

std::string Topology::cpu_device_name_at_coordinates(const Coordinate& coordinates,
                                                     const std::optional<std::string>& job) const {
  return cpu_device_name(job, task_ordinal_at_coordinates(coordinates));
}

std::string Topology::tpu_device_name_at_coordinates(const Coordinate& coordinates,
                                                     const std::optional<std::string>& job) const {
  const std::size_t index = mesh_index(coordinates);
  return tpu_device_name(job, task_at_[index], device_at_[index]);
}

}  // namespace tpustrategy
