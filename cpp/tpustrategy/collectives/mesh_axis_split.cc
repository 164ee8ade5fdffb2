#include "tpustrategy/collectives/mesh_axis_split.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "tpustrategy/core/errors.h"

namespace tpustrategy {
namespace {

constexpr const char* kWhere = "split_mesh_axes";

void check_mesh(std::span<const int> mesh_shape, std::span<const bool> remain_dims) {
  if (mesh_shape.empty()) fail<InvalidArgumentError>(kWhere, "the mesh shape is empty");
  if (remain_dims.size() != mesh_shape.size()) {
    fail<InvalidArgumentError>(kWhere, "remain_dims has {} entries for a {}-D mesh [{}]", remain_dims.size(),
                               mesh_shape.size(), fmt::join(mesh_shape, ", "));
  }
  for (std::size_t d = 0; d < mesh_shape.size(); ++d) {
    if (mesh_shape[d] < 1) {
      fail<InvalidArgumentError>(kWhere, "mesh dimension {} is {}; every dimension must be >= 1", d, mesh_shape[d]);
    }
  }
}

// (colour, key) of `rank`: the row-major indices of its dropped and of its kept coordinates.
std::pair<int, int> color_and_key(std::span<const int> mesh_shape, std::span<const bool> remain_dims, int rank) {
  int color = 0, key = 0;
  std::int64_t stride = 1;
  std::vector<int> coordinate(mesh_shape.size());
  for (std::size_t d = mesh_shape.size(); d-- > 0;) {
    coordinate[d] = static_cast<int>((rank / stride) % mesh_shape[d]);
    stride *= mesh_shape[d];
  }
  for (std::size_t d = 0; d < mesh_shape.size(); ++d) {
    if (remain_dims[d]) {
      key = key * mesh_shape[d] + coordinate[d];
    } else {
      color = color * mesh_shape[d] + coordinate[d];
    }
  }
  return {color, key};
}

}  // namespace

std::map<int, std::shared_ptr<Communicator>> split_mesh_axes(const Communicator& comm, std::span<const int> mesh_shape,
                                                             std::span<const bool> remain_dims) {
  check_mesh(mesh_shape, remain_dims);
  std::int64_t positions = 1;
  for (int d : mesh_shape) positions *= d;
  if (positions != comm.size()) {
    fail<InvalidArgumentError>(kWhere, "mesh [{}] has {} positions but the group has {} ranks",
                               fmt::join(mesh_shape, ", "), positions, comm.size());
  }
  std::vector<int> color(static_cast<std::size_t>(comm.size())), key(color.size());
  for (int r = 0; r < comm.size(); ++r) std::tie(color[r], key[r]) = color_and_key(mesh_shape, remain_dims, r);
  return comm.split(color, key);
}

int mesh_subgroup_color(std::span<const int> mesh_shape, std::span<const bool> remain_dims, int rank) {
  check_mesh(mesh_shape, remain_dims);
  std::int64_t positions = 1;
  for (int d : mesh_shape) positions *= d;
  if (rank < 0 || rank >= positions) {
    fail<InvalidArgumentError>(kWhere, "rank {} is not in the mesh [{}] of {} positions", rank,
                               fmt::join(mesh_shape, ", "), positions);
  }
  return color_and_key(mesh_shape, remain_dims, rank).first;
}

}  // namespace tpustrategy
