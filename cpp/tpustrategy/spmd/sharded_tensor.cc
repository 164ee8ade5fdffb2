#include "tpustrategy/spmd/sharded_tensor.h"

#include <fmt/format.h>

#include <cstring>

#include "tpustrategy/core/errors.h"

namespace tpustrategy::spmd {

namespace {

void check_fits(const Shape& shape, const Sharding& sharding, std::size_t num_devices) {
  tile_shape(shape, sharding);  // rank check
  if (num_devices == 0) fail<ValueError>("ShardedTensor", "a sharded tensor needs at least one logical device");
  if (sharding.min_num_devices() > static_cast<int>(num_devices)) {
    fail<ValueError>("ShardedTensor", "{} names device {} but there are only {} logical devices", sharding.to_string(),
                     sharding.min_num_devices() - 1, num_devices);
  }
}

}  // namespace

void copy_box(const void* src, const Shape& src_shape, const std::vector<std::int64_t>& src_offset, void* dst,
              const Shape& dst_shape, const std::vector<std::int64_t>& dst_offset, const Shape& extent,
              std::size_t element_size) {
  if (num_elements(extent) == 0) return;
  const int rank = static_cast<int>(extent.size());
  if (rank == 0) {
    std::memcpy(dst, src, element_size);
    return;
  }
  const auto src_strides = row_major_strides(src_shape);
  const auto dst_strides = row_major_strides(dst_shape);
  const std::size_t run_bytes = static_cast<std::size_t>(extent[rank - 1]) * element_size;
  // Odometer over every dimension but the innermost; each step copies one contiguous run.
  std::vector<std::int64_t> index(static_cast<std::size_t>(rank), 0);
  const auto* src_bytes = static_cast<const char*>(src);
  auto* dst_bytes = static_cast<char*>(dst);
  while (true) {
    std::int64_t src_element = 0, dst_element = 0;
    for (int d = 0; d < rank; ++d) {
      src_element += (src_offset[d] + index[d]) * src_strides[d];
      dst_element += (dst_offset[d] + index[d]) * dst_strides[d];
    }
    std::memcpy(dst_bytes + dst_element * static_cast<std::int64_t>(element_size),
                src_bytes + src_element * static_cast<std::int64_t>(element_size), run_bytes);
    int d = rank - 2;
    while (d >= 0 && ++index[d] == extent[d]) index[d--] = 0;
    if (d < 0) return;
  }
}

ShardedTensor::ShardedTensor(Shape global_shape, DType dtype, Sharding sharding, std::vector<DevicePtr> logical_devices,
                             std::vector<Tensor> shards)
    : global_shape_(std::move(global_shape)),
      dtype_(dtype),
      sharding_(std::move(sharding)),
      logical_devices_(std::move(logical_devices)),
      shards_(std::move(shards)) {
  check_fits(global_shape_, sharding_, logical_devices_.size());
  if (shards_.size() != logical_devices_.size()) {
    fail<ValueError>("ShardedTensor", "{} shards for {} logical devices", shards_.size(), logical_devices_.size());
  }
  for (int k = 0; k < num_logical_devices(); ++k) {
    const Tensor& shard = shards_[k];
    if (shard.valid() != sharding_.holds_data(k)) {
      fail<ValueError>("ShardedTensor", "logical device {} {} a shard under {}", k,
                       shard.valid() ? "must not hold" : "needs", sharding_.to_string());
    }
    if (!shard.valid()) continue;
    const Shape expected = tile_bounds_for_device(global_shape_, sharding_, k).extent();
    if (shard.shape() != expected || shard.dtype() != dtype_) {
      fail<ValueError>("ShardedTensor", "shard {} is {} {}, expected {} {}", k, dtype_name(shard.dtype()),
                       shape_to_string(shard.shape()), dtype_name(dtype_), shape_to_string(expected));
    }
  }
}

ShardedTensor ShardedTensor::shard(const Tensor& global, const Sharding& sharding,
                                   const std::vector<DevicePtr>& logical_devices) {
  check_fits(global.shape(), sharding, logical_devices.size());
  std::vector<Tensor> shards(logical_devices.size());
  for (std::size_t k = 0; k < logical_devices.size(); ++k) {
    if (!sharding.holds_data(static_cast<int>(k))) continue;
    const TileBounds bounds = tile_bounds_for_device(global.shape(), sharding, static_cast<int>(k));
    const Shape extent = bounds.extent();
    // Allocating on the logical device's core is what charges that core's HBM.
    Tensor tile = Tensor::empty(global.dtype(), extent, logical_devices[k]);
    copy_box(global.raw_data(), global.shape(), bounds.offset, tile.mutable_raw_data(), extent,
             std::vector<std::int64_t>(extent.size(), 0), extent, dtype_size(global.dtype()));
    shards[k] = std::move(tile);
  }
  return {global.shape(), global.dtype(), sharding, logical_devices, std::move(shards)};
}

Tensor ShardedTensor::assemble(DevicePtr device) const {
  Tensor out = Tensor::empty(dtype_, global_shape_, std::move(device));
  // Every element is covered by at least one holder; copies of a replicated tile are identical, so the
  // last writer wins harmlessly. Non-tiled shardings have one full shard per holder: copy one.
  for (int k = 0; k < num_logical_devices(); ++k) {
    const Tensor& shard = shards_[k];
    if (!shard.valid()) continue;
    const TileBounds bounds = tile_bounds_for_device(global_shape_, sharding_, k);
    copy_box(shard.raw_data(), shard.shape(), std::vector<std::int64_t>(shard.shape().size(), 0),
             out.mutable_raw_data(), global_shape_, bounds.offset, shard.shape(), dtype_size(dtype_));
    if (!sharding_.is_tiled()) break;
  }
  return out;
}

std::vector<std::int64_t> ShardedTensor::bytes_per_device() const {
  std::vector<std::int64_t> out;
  out.reserve(shards_.size());
  for (const Tensor& shard : shards_) out.push_back(shard.valid() ? shard.nbytes() : 0);
  return out;
}

std::int64_t ShardedTensor::total_bytes() const {
  std::int64_t total = 0;
  for (auto bytes : bytes_per_device()) total += bytes;
  return total;
}

}  // namespace tpustrategy::spmd
