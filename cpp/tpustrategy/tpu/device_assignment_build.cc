// DeviceAssignment::build: TF's device_assignment() (SEMANTICS.md §3.2, steps 1-5).
#include <fmt/format.h>

#include <cstdint>
#include <numeric>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/tpu/array_format.h"
#include "tpustrategy/tpu/device_assignment.h"
#include "tpustrategy/tpu/replica_shape.h"
#include "tpustrategy/tpu/ring_order.h"

namespace tpustrategy {
namespace {

constexpr const char* kWhere = "DeviceAssignment::build";
constexpr int kRank = Topology::kMeshRank;
using Vec4 = std::array<std::int64_t, kRank>;

// Step 1: a missing argument means ones; otherwise it must be 4 positive entries.
Vec4 checked_shape_argument(const std::optional<std::vector<std::int64_t>>& value, const char* name) {
  Vec4 result{1, 1, 1, 1};
  if (!value) return result;
  if (value->size() != kRank) {
    fail<ValueError>(kWhere, "{} must have shape [{}]; got ({},)", name, kRank, value->size());
  }
  for (int i = 0; i < kRank; ++i) {
    if ((*value)[i] < 1)
      fail<ValueError>(kWhere, "{} must be positive; got {}={}", name, name, detail::numpy_array_str(*value));
    // TF holds these as int32; bounding them also keeps shape * stride from overflowing.
    if ((*value)[i] > INT32_MAX)
      fail<ValueError>(kWhere, "{} must fit in int32; got {}={}", name, name, detail::numpy_array_str(*value));
    result[i] = (*value)[i];
  }
  return result;
}

std::int64_t product(const Vec4& v) {
  return std::accumulate(v.begin(), v.end(), std::int64_t{1}, std::multiplies<>());
}

// Step 4c: replicas follow a ring of chip blocks, each replica's chips follow a ring inside its block.
std::vector<std::int32_t> ring_assignment(const Vec4& mesh, const Vec4& shape, const Vec4& replicas_along,
                                          std::int64_t num_replicas) {
  const auto inner = ring3d(static_cast<std::int32_t>(shape[0]), static_cast<std::int32_t>(shape[1]),
                            static_cast<std::int32_t>(shape[2]));
  const auto outer = ring3d(static_cast<std::int32_t>(replicas_along[0]), static_cast<std::int32_t>(replicas_along[1]),
                            static_cast<std::int32_t>(replicas_along[2]));
  const std::int64_t cores = product(shape);
  const auto cores_per_chip = static_cast<std::int32_t>(mesh[3]);
  if (static_cast<std::int64_t>(outer.size()) < num_replicas ||
      static_cast<std::int64_t>(inner.size()) * cores_per_chip < cores) {
    fail<InternalError>(kWhere, "ring of {} blocks for {} replicas is too short", outer.size(), num_replicas);
  }
  std::vector<std::int32_t> assignment;
  assignment.reserve(static_cast<std::size_t>(num_replicas * cores * kRank));
  for (std::int64_t r = 0; r < num_replicas; ++r) {
    const auto& [ox, oy, oz] = outer[static_cast<std::size_t>(r)];
    for (std::int64_t k = 0; k < cores; ++k) {
      const auto& [ix, iy, iz] = inner[static_cast<std::size_t>(k / cores_per_chip)];
      assignment.insert(assignment.end(),
                        {static_cast<std::int32_t>(ox * shape[0] + ix), static_cast<std::int32_t>(oy * shape[1] + iy),
                         static_cast<std::int32_t>(oz * shape[2] + iz), static_cast<std::int32_t>(k % cores_per_chip)});
    }
  }
  return assignment;
}

// Step 4d: replica r sits at a mixed-radix position over replica_shape (core digit fastest, then x, y, z); its cores
// are the strided grid of computation_shape from that block's offset.
std::vector<std::int32_t> mesh_assignment(const Vec4& shape, const Vec4& stride, const Vec4& footprint,
                                          const Vec4& replicas_along, std::int64_t num_replicas) {
  const std::int64_t cores = product(shape);
  std::vector<std::int32_t> assignment;
  assignment.reserve(static_cast<std::size_t>(num_replicas * cores * kRank));
  for (std::int64_t r = 0; r < num_replicas; ++r) {
    Vec4 offset{};
    std::int64_t t = r;
    for (int axis : {3, 0, 1, 2}) {
      const std::int64_t position = t % replicas_along[axis];
      t /= replicas_along[axis];
      offset[axis] = position / stride[axis] * footprint[axis] + position % stride[axis];
    }
    for (std::int64_t k = 0; k < cores; ++k) {  // row-major over shape: x slowest, core fastest
      Vec4 coordinate{};
      std::int64_t rest = k;
      for (int axis = kRank - 1; axis >= 0; --axis) {
        coordinate[axis] = offset[axis] + (rest % shape[axis]) * stride[axis];
        rest /= shape[axis];
      }
      for (std::int64_t v : coordinate) assignment.push_back(static_cast<std::int32_t>(v));
    }
  }
  return assignment;
}

// Step 5: on a degraded slice, replicas take devices in task order, ignoring the mesh.
std::vector<std::int32_t> task_order_assignment(const Topology& topology, const Vec4& shape, const Vec4& stride,
                                                std::int64_t num_replicas) {
  if (product(stride) != 1) {
    fail<ValueError>(kWhere,
                     "computation_stride must be all ones on a topology with "
                     "missing devices; got {}",
                     detail::numpy_array_str(stride));
  }
  const std::int64_t cores = product(shape);
  const std::int64_t per_task = topology.num_tpus_per_task();
  const std::int64_t devices = topology.num_tasks() * per_task;
  if (num_replicas * cores > devices) {
    fail<ValueError>(kWhere,
                     "requested {} replicas of {} cores but the topology has "
                     "only {} devices",
                     num_replicas, cores, devices);
  }
  if (num_replicas == 0) {  // TF builds an empty list, which DeviceAssignment rejects
    fail<ValueError>(kWhere, "core_assignment must be a rank 3 numpy array, got shape (0,)");
  }
  std::vector<std::int32_t> assignment;
  assignment.reserve(static_cast<std::size_t>(num_replicas * cores * kRank));
  for (std::int64_t id = 0; id < num_replicas * cores; ++id) {
    const Coordinate c = topology.device_coordinate(static_cast<int>(id / per_task), static_cast<int>(id % per_task));
    assignment.insert(assignment.end(), c.begin(), c.end());
  }
  return assignment;
}

}  // namespace

DeviceAssignment DeviceAssignment::build(const Topology& topology,
                                         const std::optional<std::vector<std::int64_t>>& computation_shape,
                                         const std::optional<std::vector<std::int64_t>>& computation_stride,
                                         std::int64_t num_replicas, DeviceOrderMode mode) {
  const Vec4 shape = checked_shape_argument(computation_shape, "computation_shape");
  const Vec4 stride = checked_shape_argument(computation_stride, "computation_stride");
  if (num_replicas < 0) fail<ValueError>(kWhere, "num_replicas must be >= 0; got {}", num_replicas);
  if (mode != DeviceOrderMode::kAuto && mode != DeviceOrderMode::kRing && mode != DeviceOrderMode::kMesh) {
    fail<ValueError>(kWhere, "invalid device_order_mode {}", static_cast<int>(mode));
  }
  Vec4 mesh;
  for (int i = 0; i < kRank; ++i) mesh[i] = topology.mesh_shape()[i];

  // Step 2: one replica's footprint must fit in the mesh.
  Vec4 footprint;
  for (int i = 0; i < kRank; ++i) footprint[i] = shape[i] * stride[i];
  for (int i = 0; i < kRank; ++i) {
    if (footprint[i] > mesh[i]) {
      fail<ValueError>(kWhere, "computation footprint {} does not fit in TPU topology shape {}",
                       detail::numpy_array_str(footprint), detail::numpy_array_str(mesh));
    }
  }
  // Step 3: how many replicas fit.
  Vec4 replica_counts;
  for (int i = 0; i < kRank; ++i) replica_counts[i] = mesh[i] / footprint[i] * stride[i];
  const std::int64_t max_replicas = product(replica_counts);
  if (num_replicas > max_replicas) {
    fail<ValueError>(kWhere,
                     "requested {} replicas but only {} replicas with shape {} "
                     "and computation_stride {} fit in a "
                     "TPU mesh of shape {}",
                     num_replicas, max_replicas, detail::numpy_array_str(shape), detail::numpy_array_str(stride),
                     detail::numpy_array_str(mesh));
  }

  std::vector<std::int32_t> assignment;
  if (topology.missing_devices().empty()) {
    const Vec4 replicas_along = replica_shape(replica_counts, num_replicas);
    bool use_ring = shape[3] == mesh[3] && product(stride) == 1 && num_replicas == max_replicas;
    if (mode == DeviceOrderMode::kRing && !use_ring) {
      fail<ValueError>(kWhere,
                       "device_order_mode=DeviceOrderMode.RING is not compatible with the "
                       "3D tiling current "
                       "topology.  Try setting device_order_mode=DeviceOrderMode.AUTO");
    }
    if (mode == DeviceOrderMode::kMesh) use_ring = false;
    assignment = use_ring ? ring_assignment(mesh, shape, replicas_along, num_replicas)
                          : mesh_assignment(shape, stride, footprint, replicas_along, num_replicas);
  } else {
    assignment = task_order_assignment(topology, shape, stride, num_replicas);
  }
  return DeviceAssignment(topology, {num_replicas, product(shape), kRank}, std::move(assignment));
}

}  // namespace tpustrategy
