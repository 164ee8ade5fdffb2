// spmd/: the Sharding type, its tile math (exhaustively over every device of several tile assignments and
// uneven shapes) and ShardedTensor layout with per-core HBM accounting.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <string>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/spmd/sharded_tensor.h"
#include "tpustrategy/spmd/sharding.h"

namespace tpustrategy::spmd {
namespace {

template <typename Fn>
void expect_value_error(Fn&& fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "no ValueError; expected one containing: " << needle;
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

std::vector<DevicePtr> make_cores(int count, std::int64_t capacity = 1 << 20) {
  std::vector<DevicePtr> cores;
  for (int k = 0; k < count; ++k) {
    cores.push_back(std::make_shared<Device>(fmt::format("/job:worker/replica:0/task:0/device:TPU:{}", k), "TPU", 0, k,
                                             std::array<int, 4>{k / 2, 0, 0, k % 2}, capacity));
  }
  return cores;
}

std::int64_t used(const DevicePtr& device) { return device->memory_info().current; }

// Tile assignments covering iota, permuted, 1-D, rank-3 and partially tiled layouts.
std::vector<Sharding> sample_shardings() {
  return {
      Sharding::iota_tiled({1, 2, 4, 1}),
      Sharding::iota_tiled({8}),
      Sharding::tiled({2, 3}, {5, 0, 3, 1, 4, 2}),
      Sharding::tiled({2, 2}, {3, 1, 2, 0}),
      Sharding::iota_tiled({2, 1, 2}, /*last_tile_dim_replicate=*/true),
      Sharding::tiled({3, 2}, {1, 4, 0, 5, 2, 3}, /*last_tile_dim_replicate=*/true),
  };
}

// Shapes of the tiled rank of `sharding`: even, uneven (short last tile) and with empty tiles.
std::vector<Shape> sample_shapes(const Sharding& sharding) {
  const int rank = sharding.tiled_rank();
  std::vector<Shape> shapes;
  for (std::int64_t base : {1, 2, 5, 7, 8, 12}) {
    Shape shape;
    for (int d = 0; d < rank; ++d) shape.push_back(base + d);
    shapes.push_back(shape);
  }
  return shapes;
}

TEST(Sharding, TextAsXlaPrintsIt) {
  EXPECT_EQ(Sharding::replicated().to_string(), "{replicated}");
  EXPECT_EQ(Sharding::maximal(3).to_string(), "{maximal device=3}");
  EXPECT_EQ(Sharding::iota_tiled({1, 2, 4, 1}).to_string(), "{devices=[1,2,4,1]0,1,2,3,4,5,6,7}");
  EXPECT_EQ(Sharding::iota_tiled({2, 1, 2}, true).to_string(), "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}");
  EXPECT_EQ(Sharding::iota_tiled({2, 1, 2}, true).kind_name(), "partially_tiled");
  EXPECT_EQ(Sharding::maximal(0).kind_name(), "maximal");
}

TEST(Sharding, EqualityAndCounts) {
  EXPECT_EQ(Sharding::iota_tiled({2, 2}), Sharding::tiled({2, 2}, {0, 1, 2, 3}));
  EXPECT_NE(Sharding::iota_tiled({2, 2}), Sharding::tiled({2, 2}, {0, 2, 1, 3}));
  EXPECT_NE(Sharding::iota_tiled({2, 2}), Sharding::iota_tiled({2, 2}, true));
  EXPECT_NE(Sharding::maximal(1), Sharding::maximal(2));
  EXPECT_EQ(Sharding::replicated(), Sharding::replicated());
  EXPECT_NE(Sharding::replicated(), Sharding::maximal(0));
  const Sharding partial = Sharding::iota_tiled({2, 1, 2}, true);
  EXPECT_EQ(partial.tiled_rank(), 2);
  EXPECT_EQ(partial.num_tiles(), 2);
  EXPECT_EQ(partial.replication_factor(), 2);
  EXPECT_EQ(Sharding::maximal(5).min_num_devices(), 6);
  EXPECT_EQ(Sharding::tiled({2}, {7, 3}).min_num_devices(), 8);
}

TEST(Sharding, InvalidConstructionsAreValueErrors) {
  expect_value_error([] { Sharding::maximal(-1); }, "non-negative");
  expect_value_error([] { Sharding::tiled({2, 2}, {0, 1, 2}); }, "needs 4 devices");
  expect_value_error([] { Sharding::tiled({2}, {1, 1}); }, "distinct");
  expect_value_error([] { Sharding::tiled({0}, {}); }, "positive");
  expect_value_error([] { Sharding::replicated().maximal_device(); }, "not a maximal");
}

TEST(Sharding, SemanticsExampleOneTwoFourOne) {
  // [1,2,4,1] over 8 devices: devices 0-3 take width-half 0 and height quarters 0-3, devices 4-7 width-half 1.
  const Sharding s = Sharding::iota_tiled({1, 2, 4, 1});
  const Shape shape{2, 4, 8, 3};
  EXPECT_EQ(tile_shape(shape, s), (Shape{2, 2, 2, 3}));
  EXPECT_EQ(tile_index_for_device(s, 5), (std::vector<std::int64_t>{0, 1, 1, 0}));
  EXPECT_EQ(tile_offset_for_device(shape, s, 6), (std::vector<std::int64_t>{0, 2, 4, 0}));
  EXPECT_EQ(tile_limit_for_device(shape, s, 6), (std::vector<std::int64_t>{2, 4, 6, 3}));
  const std::vector<std::int64_t> index{0, 1, 3, 0};
  EXPECT_EQ(device_for_tile_index(s, index), 7);
}

TEST(Sharding, IndexAndDeviceAreInverseForEveryDevice) {
  for (const Sharding& s : sample_shardings()) {
    std::map<std::vector<std::int64_t>, std::vector<int>> holders;
    for (int device : s.tile_assignment_devices()) {
      const auto index = tile_index_for_device(s, device);
      ASSERT_EQ(static_cast<int>(index.size()), s.tiled_rank()) << s.to_string();
      holders[index].push_back(device);
    }
    EXPECT_EQ(static_cast<std::int64_t>(holders.size()), s.num_tiles()) << s.to_string();
    for (const auto& [index, devices] : holders) {
      EXPECT_EQ(devices_for_tile_index(s, index), devices) << s.to_string();
      EXPECT_EQ(device_for_tile_index(s, index), devices.front()) << s.to_string();
    }
    expect_value_error([&] { tile_index_for_device(s, 99); }, "holds no tile");
  }
}

TEST(Sharding, TilesCoverEveryElementExactlyReplicationTimes) {
  for (const Sharding& s : sample_shardings()) {
    for (const Shape& shape : sample_shapes(s)) {
      std::vector<int> hits(static_cast<std::size_t>(num_elements(shape)), 0);
      const auto strides = row_major_strides(shape);
      const Shape tile = tile_shape(shape, s);
      for (int device : s.tile_assignment_devices()) {
        const TileBounds b = tile_bounds_for_device(shape, s, device);
        const auto index = tile_index_for_device(s, device);
        for (std::size_t d = 0; d < shape.size(); ++d) {
          // Ceil-division tiles: full tiles, then one short tile, then empty tiles at the end.
          EXPECT_EQ(b.offset[d], std::min(index[d] * tile[d], shape[d]));
          EXPECT_LE(b.limit[d] - b.offset[d], tile[d]);
          EXPECT_GE(b.limit[d], b.offset[d]);
        }
        const Shape extent = b.extent();
        for (std::int64_t flat = 0; flat < num_elements(extent); ++flat) {
          std::int64_t rest = flat, global = 0;
          for (int d = static_cast<int>(extent.size()) - 1; d >= 0; --d) {
            global += (b.offset[d] + rest % extent[d]) * strides[d];
            rest /= extent[d];
          }
          ++hits[static_cast<std::size_t>(global)];
        }
      }
      for (int h : hits) ASSERT_EQ(h, s.replication_factor()) << s.to_string() << " " << shape_to_string(shape);
      EXPECT_EQ(divides_evenly(shape, s), [&] {
        for (std::size_t d = 0; d < shape.size(); ++d)
          if (shape[d] % s.tile_assignment_dims()[d]) return false;
        return true;
      }());
    }
  }
}

TEST(Sharding, DeviceGroupsAlongEachGridDimension) {
  using Groups = std::vector<std::vector<int>>;
  const Sharding grid = Sharding::iota_tiled({2, 4});
  EXPECT_EQ(device_groups_along(grid, 0), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_EQ(device_groups_along(grid, 1), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  const Sharding permuted = Sharding::tiled({2, 2}, {3, 1, 2, 0});
  EXPECT_EQ(device_groups_along(permuted, 0), (Groups{{3, 2}, {1, 0}}));
  // Partially tiled: the replication dimension groups the copies of each tile.
  const Sharding partial = Sharding::iota_tiled({2, 1, 2}, true);
  EXPECT_EQ(device_groups_along(partial, 2), (Groups{{0, 1}, {2, 3}}));
  EXPECT_EQ(device_groups_along(partial, 1), (Groups{{0}, {1}, {2}, {3}}));
  // Every sample: groups partition the devices, and members differ only along the dimension.
  for (const Sharding& s : sample_shardings()) {
    for (int d = 0; d < static_cast<int>(s.tile_assignment_dims().size()); ++d) {
      std::vector<int> seen;
      for (const auto& group : device_groups_along(s, d)) {
        EXPECT_EQ(static_cast<std::int64_t>(group.size()), s.tile_assignment_dims()[d]);
        seen.insert(seen.end(), group.begin(), group.end());
      }
      std::sort(seen.begin(), seen.end());
      std::vector<int> all = s.tile_assignment_devices();
      std::sort(all.begin(), all.end());
      EXPECT_EQ(seen, all) << s.to_string() << " dim " << d;
    }
  }
  expect_value_error([] { device_groups_along(Sharding::replicated(), 0); }, "no tile-grid dimension");
}

TEST(Sharding, ShortAndEmptyLastTiles) {
  const Sharding s = Sharding::iota_tiled({4});
  // 2 elements over 4 tiles: tile size 1; tiles 2 and 3 are empty.
  std::vector<Shape> extents;
  for (int d = 0; d < 4; ++d) extents.push_back(tile_bounds_for_device({2}, s, d).extent());
  EXPECT_EQ(extents, (std::vector<Shape>{{1}, {1}, {0}, {0}}));
  // 7 over 3: 3, 3, 1.
  const Sharding three = Sharding::iota_tiled({3});
  EXPECT_EQ(tile_bounds_for_device({7}, three, 2).extent(), (Shape{1}));
  EXPECT_EQ(tile_offset_for_device({7}, three, 2), (std::vector<std::int64_t>{6}));
}

TEST(Sharding, ReplicatedAndMaximalBounds) {
  const Shape shape{3, 5};
  EXPECT_EQ(tile_shape(shape, Sharding::replicated()), shape);
  EXPECT_EQ(tile_bounds_for_device(shape, Sharding::replicated(), 4).extent(), shape);
  EXPECT_EQ(tile_bounds_for_device(shape, Sharding::maximal(2), 2).extent(), shape);
  EXPECT_EQ(tile_bounds_for_device(shape, Sharding::maximal(2), 1).extent(), (Shape{0, 0}));
  EXPECT_TRUE(tile_index_for_device(Sharding::maximal(2), 2).empty());
  expect_value_error([&] { tile_shape(shape, Sharding::iota_tiled({2})); }, "rank 2");
}

TEST(Sharding, SplitValidatesInTheDocumentedOrder) {
  const Shape shape{2, 4, 8, 3};
  EXPECT_EQ(split_sharding(shape, {1, 2, 4, 1}, 8), Sharding::iota_tiled({1, 2, 4, 1}));
  expect_value_error(
      [&] {
        split_sharding(shape, {1, 2, 4}, 8);
      },
      "Length of `partition_dimensions` must equal the rank of `tensor.shape` (4)");
  expect_value_error(
      [&] {
        split_sharding({2, 5, 8, 3}, {1, 2, 4, 1}, 8);
      },
      "Tensor shape at `partition_dimensions[1]` must be divisible by corresponding value specified "
      "by `partition_dimensions` (2). Received: 5.");
  expect_value_error(
      [&] {
        split_sharding(shape, {1, 2, 2, 1}, 8);
      },
      "should be the same as the number of logical devices (=8). Received `partition_dimensions`="
      "[1, 2, 2, 1]");
  // Divisibility before product; rank before divisibility.
  expect_value_error([&] { split_sharding({2, 5, 8, 3}, {1, 2, 2, 1}, 8); }, "divisible");
  expect_value_error([&] { split_sharding({2, 5}, {1, 2, 2}, 8); }, "Length of");
  EXPECT_EQ(split_sharding({}, {}, 1).num_tiles(), 1);
}

// ---- ShardedTensor ----

Tensor patterned(DType dtype, const Shape& shape) {
  Tensor t = Tensor::empty(dtype, shape);
  auto* bytes = static_cast<unsigned char*>(t.mutable_raw_data());
  for (std::int64_t i = 0; i < t.nbytes(); ++i) bytes[i] = static_cast<unsigned char>((i * 7 + 3) % 251);
  if (dtype == DType::kBool) {
    for (std::int64_t i = 0; i < t.nbytes(); ++i) bytes[i] &= 1;
  }
  return t;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.raw_data(), b.raw_data(), static_cast<std::size_t>(a.nbytes())) == 0;
}

TEST(ShardedTensor, RoundTripForEveryDtypeAndLayout) {
  const auto cores = make_cores(8);
  std::vector<Sharding> layouts = sample_shardings();
  layouts.push_back(Sharding::replicated());
  layouts.push_back(Sharding::maximal(6));
  for (DType dtype : kAllDTypes) {
    for (const Sharding& s : layouts) {
      const int rank = s.is_tiled() ? s.tiled_rank() : 3;
      for (std::int64_t base : {1, 3, 8}) {
        Shape shape;
        for (int d = 0; d < rank; ++d) shape.push_back(base + 2 * d);
        const Tensor global = patterned(dtype, shape);
        const ShardedTensor sharded = ShardedTensor::shard(global, s, cores);
        for (int k = 0; k < 8; ++k) {
          const Tensor& shard = sharded.shards()[k];
          ASSERT_EQ(shard.valid(), s.holds_data(k));
          if (shard.valid()) {
            EXPECT_EQ(shard.device(), cores[k]);
          }
        }
        EXPECT_TRUE(same_bytes(sharded.assemble(), global)) << s.to_string() << " " << dtype_name(dtype);
      }
    }
  }
}

TEST(ShardedTensor, ShardHoldsItsTile) {
  const auto cores = make_cores(4);
  std::vector<float> values(4 * 6);
  std::iota(values.begin(), values.end(), 0.0f);
  const Tensor global = Tensor::from_vector(values, {4, 6});
  const ShardedTensor sharded = ShardedTensor::shard(global, Sharding::tiled({2, 2}, {3, 1, 2, 0}), cores);
  // Device 1 holds tile (0, 1): rows 0-1, columns 3-5.
  EXPECT_EQ(sharded.shards()[1].to_vector<float>(), (std::vector<float>{3, 4, 5, 9, 10, 11}));
  // Device 2 holds tile (1, 0): rows 2-3, columns 0-2.
  EXPECT_EQ(sharded.shards()[2].to_vector<float>(), (std::vector<float>{12, 13, 14, 18, 19, 20}));
}

TEST(ShardedTensor, HbmIsChargedPerCore) {
  const auto cores = make_cores(8);
  const Tensor global = Tensor::zeros(DType::kFloat32, {8, 16});  // 512 bytes, unaccounted (no device)
  {
    const ShardedTensor split = ShardedTensor::shard(global, Sharding::iota_tiled({8, 1}), cores);
    for (const auto& core : cores) EXPECT_EQ(used(core), 512 / 8);
    EXPECT_EQ(split.bytes_per_device(), std::vector<std::int64_t>(8, 64));
    EXPECT_EQ(split.total_bytes(), 512);
  }
  for (const auto& core : cores) EXPECT_EQ(used(core), 0);
  {
    const ShardedTensor replicated = ShardedTensor::shard(global, Sharding::replicated(), cores);
    for (const auto& core : cores) EXPECT_EQ(used(core), 512);
    EXPECT_EQ(replicated.total_bytes(), 8 * 512);
  }
  {
    const ShardedTensor maximal = ShardedTensor::shard(global, Sharding::maximal(3), cores);
    for (int k = 0; k < 8; ++k) EXPECT_EQ(used(cores[k]), k == 3 ? 512 : 0);
  }
  {
    const ShardedTensor partial = ShardedTensor::shard(global, Sharding::iota_tiled({2, 1, 4}, true), cores);
    for (const auto& core : cores) EXPECT_EQ(used(core), 256);
  }
  for (const auto& core : cores) EXPECT_EQ(used(core), 0);
}

TEST(ShardedTensor, OutOfMemoryOnACoreLeavesNothingCharged) {
  auto cores = make_cores(2, /*capacity=*/100);
  const Tensor global = Tensor::zeros(DType::kFloat32, {40});  // 160 bytes: 80 per half
  EXPECT_NO_THROW(ShardedTensor::shard(global, Sharding::iota_tiled({2}), cores));
  EXPECT_ANY_THROW(ShardedTensor::shard(global, Sharding::replicated(), cores));
  for (const auto& core : cores) EXPECT_EQ(used(core), 0);
}

TEST(ShardedTensor, ValidatesDevicesAndShards) {
  const auto cores = make_cores(2);
  const Tensor global = Tensor::zeros(DType::kFloat32, {4});
  expect_value_error([&] { ShardedTensor::shard(global, Sharding::maximal(2), cores); }, "only 2 logical devices");
  expect_value_error([&] { ShardedTensor::shard(global, Sharding::iota_tiled({2, 1}), cores); }, "rank 1");
  expect_value_error(
      [&] {
        ShardedTensor(Shape{4}, DType::kFloat32, Sharding::iota_tiled({2}), cores,
                      {Tensor::zeros(DType::kFloat32, {3}), Tensor::zeros(DType::kFloat32, {2})});
      },
      "expected float32 (2,)");
}

}  // namespace
}  // namespace tpustrategy::spmd
