#include "tpustrategy/tpu/device_assignment.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/tpu/array_format.h"

namespace tpustrategy {
namespace {

constexpr const char* kWhere = "DeviceAssignment";

// numpy-style index: negative counts from the end.
int normalize_index(int index, int size, const char* what) {
  const int normalized = index < 0 ? index + size : index;
  if (normalized < 0 || normalized >= size) {
    fail<ValueError>(kWhere, "{} {} is out of range for {} {}s", what, index, size, what);
  }
  return normalized;
}

}  // namespace

DeviceAssignment::DeviceAssignment(Topology topology, const std::vector<std::int64_t>& core_assignment_shape,
                                   std::vector<std::int32_t> core_assignment)
    : topology_(std::move(topology)) {
  const auto& shape = core_assignment_shape;
  if (shape.size() != 3) {
    fail<ValueError>(kWhere, "core_assignment must be a rank 3 numpy array, got shape {}",
                     detail::numpy_shape_str(shape));
  }
  if (shape[2] != topology_.mesh_rank()) {
    fail<ValueError>(kWhere,
                     "core_assignment.shape[-1] must have size equal to "
                     "topology rank ({}), got "
                     "core_assignment.shape={}",
                     topology_.mesh_rank(), detail::numpy_shape_str(shape));
  }
  if (shape[0] < 0 || shape[1] < 0 || shape[0] > INT32_MAX || shape[1] > INT32_MAX ||
      static_cast<std::int64_t>(core_assignment.size()) != shape[0] * shape[1] * shape[2]) {
    fail<ValueError>(kWhere, "core_assignment has {} values, which does not match its shape {}", core_assignment.size(),
                     detail::numpy_shape_str(shape));
  }
  num_replicas_ = static_cast<int>(shape[0]);
  num_cores_per_replica_ = static_cast<int>(shape[1]);
  core_assignment_ = std::move(core_assignment);
  // Every coordinate must lie in the mesh (TF would fail on indexing); a missing position maps to task -1.
  for (int r = 0; r < num_replicas_; ++r) {
    for (int c = 0; c < num_cores_per_replica_; ++c) {
      const int task = topology_.task_ordinal_at_coordinates(coordinates(r, c));
      task_core_replicas_[task][c].push_back(r);  // r ascends, so each list is sorted
    }
  }
}

DeviceAssignment::DeviceAssignment(Topology topology, const std::vector<std::vector<Coordinate>>& core_assignment)
    : DeviceAssignment(std::move(topology), detail::flatten_coordinates(core_assignment, "core_assignment")) {}

DeviceAssignment::DeviceAssignment(Topology topology,
                                   std::pair<std::vector<std::int64_t>, std::vector<std::int32_t>> shape_and_values)
    : DeviceAssignment(std::move(topology), shape_and_values.first, std::move(shape_and_values.second)) {}

Coordinate DeviceAssignment::coordinates(int replica, int logical_core) const {
  replica = normalize_index(replica, num_replicas_, "replica");
  logical_core = normalize_index(logical_core, num_cores_per_replica_, "logical core");
  Coordinate c;
  const auto offset = (static_cast<std::size_t>(replica) * num_cores_per_replica_ + logical_core) * Topology::kMeshRank;
  std::copy_n(core_assignment_.begin() + static_cast<std::ptrdiff_t>(offset), Topology::kMeshRank, c.begin());
  return c;
}

int DeviceAssignment::tpu_ordinal(int replica, int logical_core) const {
  return topology_.tpu_device_ordinal_at_coordinates(coordinates(replica, logical_core));
}

int DeviceAssignment::host_task(int replica, int logical_core) const {
  return topology_.task_ordinal_at_coordinates(coordinates(replica, logical_core));
}

std::string DeviceAssignment::tpu_device(int replica, int logical_core, const std::optional<std::string>& job) const {
  return topology_.tpu_device_name_at_coordinates(coordinates(replica, logical_core), job);
}

std::string DeviceAssignment::host_device(int replica, int logical_core, const std::optional<std::string>& job) const {
  return topology_.cpu_device_name_at_coordinates(coordinates(replica, logical_core), job);
}

const std::vector<int>& DeviceAssignment::lookup_replicas(int task, int logical_core) const {
  if (auto by_task = task_core_replicas_.find(task); by_task != task_core_replicas_.end()) {
    if (auto by_core = by_task->second.find(logical_core); by_core != by_task->second.end()) return by_core->second;
  }
  fail<ValueError>(kWhere, "Can not find any replica in task: {} contains logical_core: {}", task, logical_core);
}

}  // namespace tpustrategy
