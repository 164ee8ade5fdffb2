#pragma once
// Topology: the physical mesh of a TPU slice and where each TF TPU device sits in it (mirrors
// tf.tpu.experimental.Topology; SEMANTICS.md §3.1).
//
// The mesh is rank 4, [x, y, z, core]. device_coordinates has shape [num_tasks, num_tpus_per_task, 4] and is stored
// flat (row-major). Mesh positions no device occupies are "missing": their task and device ordinals are -1.
//
// API (for bindings):
//   Topology(mesh_shape, device_coordinates_shape, device_coordinates_flat)  // e.g. from a numpy array
//   Topology(mesh_shape, nested [task][device] -> Coordinate)
//   explicit Topology(std::string serialized)                              // a TopologyProto
//   mesh_shape() -> array<int32,4>; mesh_rank() -> 4; device_coordinates() -> flat int32 vector;
//   device_coordinates_shape() -> {num_tasks, num_tpus_per_task, 4}; device_coordinate(task, device);
//   missing_devices() -> vector<Coordinate> (row-major mesh order); num_tasks(); num_tpus_per_task();
//   task_ordinal_at_coordinates(c); tpu_device_ordinal_at_coordinates(c);
//   cpu_device_name_at_coordinates(c, job = nullopt); tpu_device_name_at_coordinates(c, job = nullopt);
//   serialized() -> bytes (the parsed bytes as given, else the TopologyProto encoding).
// Every invalid input throws ValueError. Coordinates outside the mesh throw ValueError (TF: IndexError).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpustrategy {

// One mesh position [x, y, z, core].
using Coordinate = std::array<std::int32_t, 4>;

// "/job:{job}/task:{t}/device:TPU:{d}", or "/task:{t}/device:TPU:{d}" without a job.
std::string tpu_device_name(const std::optional<std::string>& job, int task, int device);
// "/job:{job}/task:{t}/device:CPU:0", or "/task:{t}/device:CPU:0" without a job.
std::string cpu_device_name(const std::optional<std::string>& job, int task);

namespace detail {
// Flattens a nested [outer][inner] list of coordinates into ({outer, inner, 4}, values); a ragged list throws
// ValueError naming `what` (numpy would refuse it too).
std::pair<std::vector<std::int64_t>, std::vector<std::int32_t>> flatten_coordinates(
    const std::vector<std::vector<Coordinate>>& nested, const char* what);
}  // namespace detail

class Topology {
 public:
  static constexpr int kMeshRank = 4;
  // Meshes beyond this many positions are rejected instead of allocating the inverse maps (the largest real slices have
  // a few thousand chips).
  static constexpr std::int64_t kMaxMeshPositions = std::int64_t{1} << 22;

  Topology(const std::vector<std::int32_t>& mesh_shape, const std::vector<std::int64_t>& device_coordinates_shape,
           std::vector<std::int32_t> device_coordinates);
  Topology(const std::vector<std::int32_t>& mesh_shape, const std::vector<std::vector<Coordinate>>& device_coordinates);
  explicit Topology(std::string serialized);

  const std::array<std::int32_t, 4>& mesh_shape() const { return mesh_shape_; }
  int mesh_rank() const { return kMeshRank; }
  const std::vector<std::int32_t>& device_coordinates() const { return device_coordinates_; }
  std::array<std::int64_t, 3> device_coordinates_shape() const { return {num_tasks_, num_tpus_per_task_, kMeshRank}; }
  Coordinate device_coordinate(int task, int device) const;
  const std::vector<Coordinate>& missing_devices() const { return missing_devices_; }
  int num_tasks() const { return static_cast<int>(num_tasks_); }
  int num_tpus_per_task() const { return static_cast<int>(num_tpus_per_task_); }
  std::int64_t num_mesh_positions() const { return static_cast<std::int64_t>(task_at_.size()); }

  // -1 when no device sits at the coordinates.
  int task_ordinal_at_coordinates(const Coordinate& coordinates) const;
  int tpu_device_ordinal_at_coordinates(const Coordinate& coordinates) const;
  std::string cpu_device_name_at_coordinates(const Coordinate& coordinates,
                                             const std::optional<std::string>& job = std::nullopt) const;
  std::string tpu_device_name_at_coordinates(const Coordinate& coordinates,
                                             const std::optional<std::string>& job = std::nullopt) const;

  const std::string& serialized() const { return serialized_; }

  // Same mesh and device coordinates (the serialized bytes may differ).
  friend bool operator==(const Topology& a, const Topology& b) {
    return a.mesh_shape_ == b.mesh_shape_ && a.num_tasks_ == b.num_tasks_ &&
           a.num_tpus_per_task_ == b.num_tpus_per_task_ && a.device_coordinates_ == b.device_coordinates_;
  }

 private:
  Topology(const std::vector<std::int32_t>& mesh_shape,
           std::pair<std::vector<std::int64_t>, std::vector<std::int32_t>> shape_and_values);
  void set_mesh_shape(const std::vector<std::int32_t>& mesh_shape, const char* message);
  void index_devices();
  std::size_t mesh_index(const Coordinate& coordinates) const;

  std::array<std::int32_t, 4> mesh_shape_{};
  std::int64_t num_tasks_ = 0;
  std::int64_t num_tpus_per_task_ = 0;
  std::vector<std::int32_t> device_coordinates_;  // [num_tasks, num_tpus_per_task, 4] row-major
  std::vector<std::int32_t> task_at_;             // row-major over the mesh, -1 = missing
  std::vector<std::int32_t> device_at_;
  std::vector<Coordinate> missing_devices_;
  std::string serialized_;
};

}  // namespace tpustrategy
