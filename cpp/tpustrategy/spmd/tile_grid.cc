#include "tpustrategy/spmd/tile_grid.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "tpustrategy/core/errors.h"

namespace tpustrategy::spmd {

namespace {

std::vector<std::int64_t> unravel(std::int64_t position, const std::vector<std::int64_t>& dims) {
  std::vector<std::int64_t> coord(dims.size());
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    coord[d] = position % dims[d];
    position /= dims[d];
  }
  return coord;
}

std::int64_t ravel(const std::vector<std::int64_t>& coord, const std::vector<std::int64_t>& dims) {
  std::int64_t position = 0;
  for (std::size_t d = 0; d < dims.size(); ++d) position = position * dims[d] + coord[d];
  return position;
}

// Builds a grid of `dims` whose device at each coordinate is old.device_at(map(coord)).
template <typename Map>
TileGrid remap(const TileGrid& old, std::vector<std::int64_t> dims, Map map) {
  TileGrid out{std::move(dims), {}};
  std::int64_t total = 1;
  for (auto d : out.dims) total *= d;
  out.devices.resize(static_cast<std::size_t>(total));
  for (std::int64_t p = 0; p < total; ++p) out.devices[p] = old.device_at(map(unravel(p, out.dims)));
  return out;
}

}  // namespace

int TileGrid::device_at(const std::vector<std::int64_t>& coord) const {
  return devices[static_cast<std::size_t>(ravel(coord, dims))];
}

std::vector<std::int64_t> TileGrid::coord_of(int device) const {
  auto it = std::find(devices.begin(), devices.end(), device);
  if (it == devices.end()) fail<ValueError>("TileGrid", "device {} is not in the tile grid", device);
  return unravel(it - devices.begin(), dims);
}

TileGrid TileGrid::from(const Sharding& sharding, int rank, int num_cores) {
  TileGrid grid;
  if (sharding.is_maximal()) fail<ValueError>("TileGrid", "a maximal sharding has no tile grid");
  if (sharding.is_replicated()) {
    grid.dims.assign(static_cast<std::size_t>(rank), 1);
    grid.dims.push_back(num_cores);
    grid.devices.resize(static_cast<std::size_t>(num_cores));
    std::iota(grid.devices.begin(), grid.devices.end(), 0);
    return grid;
  }
  if (sharding.tiled_rank() != rank) {
    fail<ValueError>("TileGrid", "{} cuts {} dimensions but the tensor has rank {}", sharding.to_string(),
                     sharding.tiled_rank(), rank);
  }
  grid.dims = sharding.tile_assignment_dims();
  if (!sharding.replicate_on_last_tile_dim()) grid.dims.push_back(1);
  grid.devices = sharding.tile_assignment_devices();
  return grid;
}

Sharding TileGrid::to_sharding(int num_cores) const {
  std::int64_t tiles = 1;
  for (int d = 0; d < rank(); ++d) tiles *= dims[d];
  if (tiles == 1 && replication() == num_cores) return Sharding::replicated();
  if (replication() == 1) return Sharding::tiled({dims.begin(), dims.end() - 1}, devices);
  return Sharding::tiled(dims, devices, /*last_tile_dim_replicate=*/true);
}

TileGrid merge_into_replication(const TileGrid& grid, int dim) {
  const std::int64_t parts = grid.dims[dim], replication = grid.replication();
  auto dims = grid.dims;
  dims[dim] = 1;
  dims.back() = parts * replication;
  return remap(grid, dims, [&](std::vector<std::int64_t> c) {
    const std::int64_t r = c.back();
    c[dim] = r / replication;
    c.back() = r % replication;
    return c;
  });
}

TileGrid split_from_replication(const TileGrid& grid, int dim, std::int64_t parts) {
  if (grid.dims[dim] != 1 || grid.replication() % parts != 0) {
    fail<ValueError>("TileGrid", "cannot split {} tiles of dimension {} out of grid [{}]", parts, dim,
                     fmt::join(grid.dims, ","));
  }
  const std::int64_t replication = grid.replication() / parts;
  auto dims = grid.dims;
  dims[dim] = parts;
  dims.back() = replication;
  return remap(grid, dims, [&](std::vector<std::int64_t> c) {
    c.back() = c[dim] * replication + c.back();
    c[dim] = 0;
    return c;
  });
}

TileGrid transpose_grid(const TileGrid& grid, const std::vector<std::int64_t>& perm) {
  auto dims = grid.dims;
  for (std::size_t i = 0; i < perm.size(); ++i) dims[i] = grid.dims[perm[i]];
  return remap(grid, dims, [&](const std::vector<std::int64_t>& c) {
    std::vector<std::int64_t> old(c.size());
    for (std::size_t i = 0; i < perm.size(); ++i) old[perm[i]] = c[i];
    old.back() = c.back();
    return old;
  });
}

TileGrid remove_dim(const TileGrid& grid, int dim) {
  if (grid.dims[dim] != 1) fail<ValueError>("TileGrid", "dimension {} still has {} tiles", dim, grid.dims[dim]);
  TileGrid out = grid;
  out.dims.erase(out.dims.begin() + dim);
  return out;
}

TileGrid insert_dim(const TileGrid& grid, int dim) {
  TileGrid out = grid;
  out.dims.insert(out.dims.begin() + dim, 1);
  return out;
}

std::vector<std::vector<int>> groups_along(const TileGrid& grid, int dim) {
  return groups_along(grid, std::vector<int>{dim});
}

std::vector<std::vector<int>> groups_along(const TileGrid& grid, const std::vector<int>& dims) {
  std::vector<std::vector<int>> groups;
  std::map<std::vector<std::int64_t>, std::size_t> index;
  for (std::size_t p = 0; p < grid.devices.size(); ++p) {
    auto key = unravel(static_cast<std::int64_t>(p), grid.dims);
    for (int d : dims) key[d] = 0;
    auto [it, inserted] = index.emplace(key, groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(grid.devices[p]);
  }
  return groups;
}

Sharding normalized(const Sharding& sharding, int rank, int num_cores) {
  if (sharding.is_maximal()) return sharding;
  return TileGrid::from(sharding, rank, num_cores).to_sharding(num_cores);
}

}  // namespace tpustrategy::spmd
