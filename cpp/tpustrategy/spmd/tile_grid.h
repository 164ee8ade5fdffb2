#pragma once
// TileGrid: any non-maximal Sharding of a rank-r tensor over L logical cores viewed uniformly as a grid of
// r data dimensions plus one trailing replication dimension (replicated = all data dims 1, replication L;
// plain tiled = replication 1). The partitioner's sharding algebra — merging a tiled dimension into the
// replication dimension (what an all-gather does), transposing, dropping or inserting dimensions — is done
// here as pure functions, and to_sharding() normalises back (replication 1 → tiled, one tile → replicated).
#include <cstdint>
#include <vector>

#include "tpustrategy/spmd/sharding.h"

namespace tpustrategy::spmd {

struct TileGrid {
  std::vector<std::int64_t> dims;  // rank + 1 entries; the last is the replication dimension
  std::vector<int> devices;        // row-major over dims

  int rank() const { return static_cast<int>(dims.size()) - 1; }
  std::int64_t replication() const { return dims.back(); }
  // The device at a full grid coordinate (rank + 1 entries).
  int device_at(const std::vector<std::int64_t>& coord) const;
  // The grid coordinate of `device` (ValueError when it is not in the grid).
  std::vector<std::int64_t> coord_of(int device) const;

  static TileGrid from(const Sharding& sharding, int rank, int num_cores);
  Sharding to_sharding(int num_cores) const;
};

// Dimension `dim`'s tiles become copies: dims[dim] → 1, replication × dims[dim] (the gathered position is
// the major part of the new replication index, as XLA's partial replication after an all-gather).
TileGrid merge_into_replication(const TileGrid& grid, int dim);
// Inverse direction: split `parts` tiles of `dim` out of the replication dimension (major part first).
TileGrid split_from_replication(const TileGrid& grid, int dim, std::int64_t parts);
// The grid of a transposed tensor: output dim i is input dim perm[i].
TileGrid transpose_grid(const TileGrid& grid, const std::vector<std::int64_t>& perm);
// Removes data dimension `dim`, which must have one tile.
TileGrid remove_dim(const TileGrid& grid, int dim);
// Inserts a one-tile data dimension at `dim`.
TileGrid insert_dim(const TileGrid& grid, int dim);
// Groups of devices that differ only along grid dimension `dim` (data or replication), in order along it.
std::vector<std::vector<int>> groups_along(const TileGrid& grid, int dim);
// Groups of devices that differ only along the grid dimensions `dims` (row-major over them).
std::vector<std::vector<int>> groups_along(const TileGrid& grid, const std::vector<int>& dims);

// Sharding normalised for a rank-`rank` tensor over `num_cores` cores (replicated written as tiles,
// replication 1 dropped, a single full tile replicated everywhere written as replicated).
Sharding normalized(const Sharding& sharding, int rank, int num_cores);

}  // namespace tpustrategy::spmd
