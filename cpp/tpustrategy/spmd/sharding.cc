#include "tpustrategy/spmd/sharding.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

#include "tpustrategy/core/errors.h"

namespace tpustrategy::spmd {

namespace {

std::int64_t product(std::span<const std::int64_t> values) {
  return std::accumulate(values.begin(), values.end(), std::int64_t{1}, std::multiplies<>());
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Row-major position of the grid cell whose data-dim index is `index` and replication index `replica`.
std::int64_t grid_position(const Sharding& sharding, std::span<const std::int64_t> index, std::int64_t replica) {
  const auto& dims = sharding.tile_assignment_dims();
  const int rank = sharding.tiled_rank();
  if (static_cast<int>(index.size()) != rank) {
    fail<ValueError>("Sharding", "tile index {} has {} entries, the tile grid {} cuts {} dimensions",
                     fmt::join(index, ","), index.size(), fmt::join(dims, ","), rank);
  }
  std::int64_t position = 0;
  for (int d = 0; d < rank; ++d) {
    if (index[d] < 0 || index[d] >= dims[d]) {
      fail<ValueError>("Sharding", "tile index {} is outside the tile grid [{}]", fmt::join(index, ","),
                       fmt::join(dims, ","));
    }
    position = position * dims[d] + index[d];
  }
  if (sharding.replicate_on_last_tile_dim()) {
    if (replica < 0 || replica >= dims.back()) fail<ValueError>("Sharding", "tile replica {} out of range", replica);
    position = position * dims.back() + replica;
  } else if (replica != 0) {
    fail<ValueError>("Sharding", "tile replica {} of a sharding without replication", replica);
  }
  return position;
}

}  // namespace

Sharding Sharding::replicated() { return {}; }

Sharding Sharding::maximal(int device) {
  if (device < 0) fail<ValueError>("Sharding", "maximal device must be non-negative, got {}", device);
  Sharding s;
  s.kind_ = ShardingKind::kMaximal;
  s.maximal_device_ = device;
  return s;
}

Sharding Sharding::tiled(std::vector<std::int64_t> dims, std::vector<int> devices, bool last_tile_dim_replicate) {
  // A rank-0 tensor may be "tiled" into its single tile (TF allows partition_dimensions=[] with L = 1).
  if (last_tile_dim_replicate && dims.empty()) {
    fail<ValueError>("Sharding", "a partially tiled sharding needs its replication dimension");
  }
  if (std::any_of(dims.begin(), dims.end(), [](std::int64_t d) { return d < 1; })) {
    fail<ValueError>("Sharding", "tile assignment dimensions must be positive, got [{}]", fmt::join(dims, ","));
  }
  if (product(dims) != static_cast<std::int64_t>(devices.size())) {
    fail<ValueError>("Sharding", "tile assignment [{}] needs {} devices, got {}", fmt::join(dims, ","), product(dims),
                     devices.size());
  }
  std::vector<int> sorted = devices;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.front() < 0 || std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    fail<ValueError>("Sharding", "tile assignment devices must be distinct and non-negative, got {}",
                     fmt::join(devices, ","));
  }
  Sharding s;
  s.kind_ = ShardingKind::kTiled;
  s.dims_ = std::move(dims);
  s.devices_ = std::move(devices);
  s.last_tile_dim_replicate_ = last_tile_dim_replicate;
  return s;
}

Sharding Sharding::iota_tiled(std::vector<std::int64_t> dims, bool last_tile_dim_replicate) {
  std::vector<int> devices(static_cast<std::size_t>(std::max<std::int64_t>(product(dims), 0)));
  std::iota(devices.begin(), devices.end(), 0);
  return tiled(std::move(dims), std::move(devices), last_tile_dim_replicate);
}

int Sharding::maximal_device() const {
  if (!is_maximal()) fail<ValueError>("Sharding", "{} is not a maximal sharding", to_string());
  return maximal_device_;
}

int Sharding::tiled_rank() const {
  return is_tiled() ? static_cast<int>(dims_.size()) - (last_tile_dim_replicate_ ? 1 : 0) : 0;
}

std::int64_t Sharding::num_tiles() const {
  return is_tiled() ? product(std::span(dims_).first(static_cast<std::size_t>(tiled_rank()))) : 1;
}

std::int64_t Sharding::replication_factor() const { return last_tile_dim_replicate_ ? dims_.back() : 1; }

int Sharding::min_num_devices() const {
  switch (kind_) {
    case ShardingKind::kReplicated:
      return 0;
    case ShardingKind::kMaximal:
      return maximal_device_ + 1;
    case ShardingKind::kTiled:
      return *std::max_element(devices_.begin(), devices_.end()) + 1;
  }
  return 0;
}

bool Sharding::holds_data(int device) const {
  switch (kind_) {
    case ShardingKind::kReplicated:
      return device >= 0;
    case ShardingKind::kMaximal:
      return device == maximal_device_;
    case ShardingKind::kTiled:
      return std::find(devices_.begin(), devices_.end(), device) != devices_.end();
  }
  return false;
}

std::string Sharding::to_string() const {
  switch (kind_) {
    case ShardingKind::kReplicated:
      return "{replicated}";
    case ShardingKind::kMaximal:
      return fmt::format("{{maximal device={}}}", maximal_device_);
    case ShardingKind::kTiled:
      return fmt::format("{{devices=[{}]{}{}}}", fmt::join(dims_, ","), fmt::join(devices_, ","),
                         last_tile_dim_replicate_ ? " last_tile_dim_replicate" : "");
  }
  return "";
}

std::string Sharding::kind_name() const {
  switch (kind_) {
    case ShardingKind::kReplicated:
      return "replicated";
    case ShardingKind::kMaximal:
      return "maximal";
    case ShardingKind::kTiled:
      return last_tile_dim_replicate_ ? "partially_tiled" : "tiled";
  }
  return "";
}

// ---- tile math ----

std::vector<std::int64_t> tile_index_for_device(const Sharding& sharding, int device) {
  if (!sharding.is_tiled()) return {};
  const auto& devices = sharding.tile_assignment_devices();
  auto found = std::find(devices.begin(), devices.end(), device);
  if (found == devices.end()) {
    fail<ValueError>("Sharding", "device {} holds no tile of {}", device, sharding.to_string());
  }
  // Unravel the row-major grid position, then drop the replication coordinate.
  const auto& dims = sharding.tile_assignment_dims();
  std::vector<std::int64_t> index(dims.size());
  std::int64_t position = found - devices.begin();
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    index[d] = position % dims[d];
    position /= dims[d];
  }
  index.resize(static_cast<std::size_t>(sharding.tiled_rank()));
  return index;
}

int device_for_tile_index(const Sharding& sharding, std::span<const std::int64_t> index, std::int64_t replica) {
  if (sharding.is_maximal()) return sharding.maximal_device();
  if (!sharding.is_tiled()) fail<ValueError>("Sharding", "a replicated tensor has no tile device");
  return sharding.tile_assignment_devices()[static_cast<std::size_t>(grid_position(sharding, index, replica))];
}

std::vector<int> devices_for_tile_index(const Sharding& sharding, std::span<const std::int64_t> index) {
  std::vector<int> out;
  for (std::int64_t r = 0; r < sharding.replication_factor(); ++r) {
    out.push_back(device_for_tile_index(sharding, index, r));
  }
  return out;
}

std::vector<std::vector<int>> device_groups_along(const Sharding& sharding, int grid_dim) {
  const auto& dims = sharding.tile_assignment_dims();
  if (!sharding.is_tiled() || grid_dim < 0 || grid_dim >= static_cast<int>(dims.size())) {
    fail<ValueError>("Sharding", "{} has no tile-grid dimension {}", sharding.to_string(), grid_dim);
  }
  // Row-major: moving one step along grid_dim jumps `stride` positions; a group starts at every position whose
  // coordinate along grid_dim is 0.
  std::int64_t stride = 1;
  for (std::size_t d = static_cast<std::size_t>(grid_dim) + 1; d < dims.size(); ++d) stride *= dims[d];
  const std::int64_t extent = dims[static_cast<std::size_t>(grid_dim)];
  const auto& devices = sharding.tile_assignment_devices();
  std::vector<std::vector<int>> groups;
  for (std::int64_t start = 0; start < static_cast<std::int64_t>(devices.size()); ++start) {
    if ((start / stride) % extent != 0) continue;
    std::vector<int> group;
    for (std::int64_t step = 0; step < extent; ++step) group.push_back(devices[start + step * stride]);
    groups.push_back(std::move(group));
  }
  return groups;
}

Shape tile_shape(const Shape& shape, const Sharding& sharding) {
  if (!sharding.is_tiled()) return shape;
  if (static_cast<int>(shape.size()) != sharding.tiled_rank()) {
    fail<ValueError>("Sharding", "{} cuts {} dimensions but the tensor has rank {}", sharding.to_string(),
                     sharding.tiled_rank(), shape.size());
  }
  Shape out(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) out[d] = ceil_div(shape[d], sharding.tile_assignment_dims()[d]);
  return out;
}

Shape TileBounds::extent() const {
  Shape out(offset.size());
  for (std::size_t d = 0; d < offset.size(); ++d) out[d] = limit[d] - offset[d];
  return out;
}

TileBounds tile_bounds_for_device(const Shape& shape, const Sharding& sharding, int device) {
  TileBounds bounds{std::vector<std::int64_t>(shape.size(), 0), shape};
  if (!sharding.holds_data(device)) {
    bounds.limit.assign(shape.size(), 0);
    return bounds;
  }
  if (!sharding.is_tiled()) return bounds;
  const Shape tile = tile_shape(shape, sharding);
  const auto index = tile_index_for_device(sharding, device);
  for (std::size_t d = 0; d < shape.size(); ++d) {
    bounds.offset[d] = std::min(index[d] * tile[d], shape[d]);
    bounds.limit[d] = std::min(bounds.offset[d] + tile[d], shape[d]);
  }
  return bounds;
}

std::vector<std::int64_t> tile_offset_for_device(const Shape& shape, const Sharding& sharding, int device) {
  return tile_bounds_for_device(shape, sharding, device).offset;
}

std::vector<std::int64_t> tile_limit_for_device(const Shape& shape, const Sharding& sharding, int device) {
  return tile_bounds_for_device(shape, sharding, device).limit;
}

bool divides_evenly(const Shape& shape, const Sharding& sharding) {
  if (!sharding.is_tiled()) return true;
  tile_shape(shape, sharding);  // rank check
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] % sharding.tile_assignment_dims()[d] != 0) return false;
  }
  return true;
}

Sharding split_sharding(const Shape& shape, const std::vector<std::int64_t>& partition_dimensions,
                        int num_logical_devices) {
  if (partition_dimensions.size() != shape.size()) {
    throw ValueError(
        fmt::format("Length of `partition_dimensions` must equal the rank of `tensor.shape` ({}). Received "
                    "len(partition_dimensions)={}.",
                    shape.size(), partition_dimensions.size()));
  }
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const std::int64_t parts = partition_dimensions[i];
    if (parts <= 0 || shape[i] % parts != 0) {
      throw ValueError(fmt::format(
          "Tensor shape at `partition_dimensions[{}]` must be divisible by corresponding value specified by "
          "`partition_dimensions` ({}). Received: {}.",
          i, parts, shape[i]));
    }
  }
  if (product(partition_dimensions) != num_logical_devices) {
    throw ValueError(
        fmt::format("The product of `partition_dimensions` should be the same as the number of logical devices (={}). "
                    "Received `partition_dimensions`=[{}], and number of logical devices per replica={}.",
                    num_logical_devices, fmt::join(partition_dimensions, ", "), num_logical_devices));
  }
  return Sharding::iota_tiled(partition_dimensions);
}

}  // namespace tpustrategy::spmd
