#pragma once
// Sharding: how one tensor is laid out over the logical devices of a replica (SEMANTICS.md §4), modelled on
// XLA's HloSharding.
//
//   replicated          a full copy on every logical device
//   maximal(d)          the whole tensor on logical device d only
//   tiled(dims, devs)   the tensor cut into a grid of tiles; tile (i0, …, ik) lives on devs[row_major(i0, …, ik)]
//   partially tiled     tiled with one extra, trailing tile dimension whose devices hold copies of the same tile
//
// Tiles use XLA's ceil division: tile_size[d] = ceil(dim / tiles[d]); the last tile along a dimension may be
// short or even empty. TF's split_to_logical_devices additionally demands exact division (split_sharding).
// Every query below is a pure function of the sharding (and shape), so it is tested exhaustively.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tpustrategy/core/shape.h"

namespace tpustrategy::spmd {

enum class ShardingKind { kReplicated, kMaximal, kTiled };

class Sharding {
 public:
  static Sharding replicated();
  static Sharding maximal(int device);
  // `dims` has one entry per tensor dimension (+1 trailing replication dimension when
  // `last_tile_dim_replicate`); `devices` lists the device of each grid cell in row-major order and must be a
  // permutation of distinct non-negative ids with ∏ dims entries.
  static Sharding tiled(std::vector<std::int64_t> dims, std::vector<int> devices, bool last_tile_dim_replicate = false);
  // Row-major ("iota") tile assignment: arange(∏ dims).reshape(dims).
  static Sharding iota_tiled(std::vector<std::int64_t> dims, bool last_tile_dim_replicate = false);

  ShardingKind kind() const { return kind_; }
  bool is_replicated() const { return kind_ == ShardingKind::kReplicated; }
  bool is_maximal() const { return kind_ == ShardingKind::kMaximal; }
  bool is_tiled() const { return kind_ == ShardingKind::kTiled; }
  bool replicate_on_last_tile_dim() const { return last_tile_dim_replicate_; }
  int maximal_device() const;  // ValueError unless maximal

  // Tile-assignment grid (including a trailing replication dim) and its devices, row-major.
  const std::vector<std::int64_t>& tile_assignment_dims() const { return dims_; }
  const std::vector<int>& tile_assignment_devices() const { return devices_; }
  // Number of tensor dimensions the grid cuts (tiled only; excludes the replication dim).
  int tiled_rank() const;
  // Distinct tiles (∏ of the data dims); 1 for replicated and maximal.
  std::int64_t num_tiles() const;
  // Devices holding each tile (∏ of the replication dim); 1 when not partially tiled.
  std::int64_t replication_factor() const;
  // Smallest number of logical devices this sharding needs (max device id + 1; 0 for replicated).
  int min_num_devices() const;
  // Whether logical `device` holds (part of) the tensor. Replicated: every device.
  bool holds_data(int device) const;

  // XLA's text: "{replicated}", "{maximal device=3}", "{devices=[1,2,4,1]0,1,2,3,4,5,6,7}",
  // "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}".
  std::string to_string() const;
  // A short kind name for Python: "replicated", "maximal", "tiled", "partially_tiled".
  std::string kind_name() const;

  friend bool operator==(const Sharding&, const Sharding&) = default;

 private:
  Sharding() = default;

  ShardingKind kind_ = ShardingKind::kReplicated;
  int maximal_device_ = -1;
  std::vector<std::int64_t> dims_;
  std::vector<int> devices_;
  bool last_tile_dim_replicate_ = false;
};

// ---- tile math (pure functions) ----

// The grid index (one entry per tiled dimension) of the tile `device` holds. Replicated / maximal: an empty
// index (the whole tensor). ValueError when `device` holds no tile of a tiled sharding.
std::vector<std::int64_t> tile_index_for_device(const Sharding& sharding, int device);
// The first device holding tile `index`; `replica` picks another copy of a partially tiled sharding.
int device_for_tile_index(const Sharding& sharding, std::span<const std::int64_t> index, std::int64_t replica = 0);
// All devices holding tile `index`, in grid order.
std::vector<int> devices_for_tile_index(const Sharding& sharding, std::span<const std::int64_t> index);

// Groups of devices whose grid positions differ only along tile-grid dimension `grid_dim` (which may be the
// replication dimension), each ordered by the position along it: the participants of a collective along that
// dimension (all-gather / reduce-scatter along a tensor dim; all-reduce of the copies along the replication dim).
std::vector<std::vector<int>> device_groups_along(const Sharding& sharding, int grid_dim);

// The full tile shape (ceil division); `shape` itself unless tiled. ValueError on a rank mismatch.
Shape tile_shape(const Shape& shape, const Sharding& sharding);
// The element range [offset, limit) of `device`'s tile per dimension, clamped to the shape, so the last tiles
// may be short or empty. A device that holds no data (maximal elsewhere) gets an empty range at 0.
struct TileBounds {
  std::vector<std::int64_t> offset;
  std::vector<std::int64_t> limit;
  Shape extent() const;
};
TileBounds tile_bounds_for_device(const Shape& shape, const Sharding& sharding, int device);
std::vector<std::int64_t> tile_offset_for_device(const Shape& shape, const Sharding& sharding, int device);
std::vector<std::int64_t> tile_limit_for_device(const Shape& shape, const Sharding& sharding, int device);
// Whether every tiled dimension divides exactly (no short tiles).
bool divides_evenly(const Shape& shape, const Sharding& sharding);

// TF's experimental_split_to_logical_devices: validates in the documented order (rank, divisibility of each
// dimension, product == num_logical_devices) with TF's ValueError texts, then returns the row-major tiling.
Sharding split_sharding(const Shape& shape, const std::vector<std::int64_t>& partition_dimensions,
                        int num_logical_devices);

}  // namespace tpustrategy::spmd
