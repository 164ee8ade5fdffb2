#pragma once
// DeviceAssignment: which physical TPU core runs each logical core of each replica (mirrors
// tf.tpu.experimental.DeviceAssignment; SEMANTICS.md §3.2).
//
// core_assignment has shape [num_replicas, num_cores_per_replica, 4] and is stored flat (row-major). Replica and
// logical-core indices may be negative and then count from the end, as numpy indexing does.
//
// API (for bindings):
//   enum class DeviceOrderMode { kAuto = 0, kRing = 1, kMesh = 2 }
//   DeviceAssignment(topology, core_assignment_shape, core_assignment_flat)  // e.g. from a numpy array
//   DeviceAssignment(topology, nested [replica][core] -> Coordinate)
//   static build(topology, computation_shape = nullopt, computation_stride = nullopt, num_replicas = 1,
//                mode = kAuto)
//   topology(); num_replicas(); num_cores_per_replica(); core_assignment() (flat);
//   core_assignment_shape() -> {R, C, 4}; coordinates(r, c) -> Coordinate; tpu_ordinal(r = 0, c = 0);
//   host_task(r = 0, c = 0); tpu_device(r = 0, c = 0, job = nullopt); host_device(r = 0, c = 0, job = nullopt);
//   lookup_replicas(task, logical_core) -> sorted replica ids (none -> ValueError).
// Every invalid argument throws ValueError with TF's message substance.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tpustrategy/tpu/topology.h"

namespace tpustrategy {

enum class DeviceOrderMode : int { kAuto = 0, kRing = 1, kMesh = 2 };

class DeviceAssignment {
 public:
  DeviceAssignment(Topology topology, const std::vector<std::int64_t>& core_assignment_shape,
                   std::vector<std::int32_t> core_assignment);
  DeviceAssignment(Topology topology, const std::vector<std::vector<Coordinate>>& core_assignment);

  // Packs num_replicas copies of a computation_shape block of cores (cores computation_stride apart) into the topology:
  // along rings of chips when whole chips are used with no stride and the mesh is filled (or mode == kRing), else as a
  // mesh of blocks; on a slice with missing devices, in task order.
  static DeviceAssignment build(const Topology& topology,
                                const std::optional<std::vector<std::int64_t>>& computation_shape = std::nullopt,
                                const std::optional<std::vector<std::int64_t>>& computation_stride = std::nullopt,
                                std::int64_t num_replicas = 1, DeviceOrderMode mode = DeviceOrderMode::kAuto);

  const Topology& topology() const { return topology_; }
  int num_replicas() const { return num_replicas_; }
  int num_cores_per_replica() const { return num_cores_per_replica_; }
  const std::vector<std::int32_t>& core_assignment() const { return core_assignment_; }
  std::array<std::int64_t, 3> core_assignment_shape() const {
    return {num_replicas_, num_cores_per_replica_, Topology::kMeshRank};
  }

  Coordinate coordinates(int replica, int logical_core) const;
  int tpu_ordinal(int replica = 0, int logical_core = 0) const;
  int host_task(int replica = 0, int logical_core = 0) const;
  std::string tpu_device(int replica = 0, int logical_core = 0,
                         const std::optional<std::string>& job = std::nullopt) const;
  std::string host_device(int replica = 0, int logical_core = 0,
                          const std::optional<std::string>& job = std::nullopt) const;
  const std::vector<int>& lookup_replicas(int task, int logical_core) const;

 private:
  DeviceAssignment(Topology topology, std::pair<std::vector<std::int64_t>, std::vector<std::int32_t>> shape_and_values);

  Topology topology_;
  int num_replicas_ = 0;
  int num_cores_per_replica_ = 0;
  std::vector<std::int32_t> core_assignment_;
  // task -> logical core -> sorted replicas that have that logical core on that task.
  std::map<int, std::map<int, std::vector<int>>> task_core_replicas_;
};

}  // namespace tpustrategy
