#pragma once
// Shared helpers of the SPMD GoogleTests: simulated logical cores, random tensors, bitwise comparison of a
// sharded tensor with the unpartitioned value, and the meshes (1-D and 2-D over 2, 4, 8 cores) tested.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tpustrategy/spmd/sharded_tensor.h"
#include "tpustrategy/spmd/spmd_context.h"

namespace tpustrategy::spmd::testing {

inline std::vector<DevicePtr> make_cores(int count, std::int64_t capacity = 64 << 20) {
  std::vector<DevicePtr> cores;
  for (int k = 0; k < count; ++k) {
    cores.push_back(std::make_shared<Device>(fmt::format("/job:worker/replica:0/task:0/device:TPU:{}", k), "TPU", 0, k,
                                             std::array<int, 4>{k / 2, 0, 0, k % 2}, capacity));
  }
  return cores;
}

inline Tensor random_tensor(const Shape& shape, unsigned seed = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(static_cast<std::size_t>(num_elements(shape)));
  for (auto& v : values) v = dist(rng);
  return Tensor::from_vector(values, shape);
}

inline bool bitwise_equal(const Tensor& a, const Tensor& b) {
  // An empty shard (uneven tiling) may have no buffer at all: memcmp must not see its null pointer.
  return a.shape() == b.shape() && a.dtype() == b.dtype() &&
         (a.nbytes() == 0 || std::memcmp(a.raw_data(), b.raw_data(), static_cast<std::size_t>(a.nbytes())) == 0);
}

// The assembled value equals `expected` bit for bit and every shard equals the shard a fresh layout of
// `expected` under the result's sharding gives.
inline void expect_sharded_equal(const ShardedTensor& got, const Tensor& expected) {
  ASSERT_EQ(got.shape(), expected.shape());
  EXPECT_TRUE(bitwise_equal(got.assemble(), expected)) << got.sharding().to_string();
  const auto fresh = ShardedTensor::shard(expected, got.sharding(), got.logical_devices());
  for (int k = 0; k < got.num_logical_devices(); ++k) {
    ASSERT_EQ(got.shards()[k].valid(), fresh.shards()[k].valid()) << "core " << k;
    if (got.shards()[k].valid()) EXPECT_TRUE(bitwise_equal(got.shards()[k], fresh.shards()[k])) << "core " << k;
  }
}

inline void expect_close(const Tensor& got, const Tensor& expected, float tolerance = 1e-4f) {
  ASSERT_EQ(got.shape(), expected.shape());
  const auto a = got.to_vector<float>(), b = expected.to_vector<float>();
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_NEAR(a[i], b[i], tolerance * (1.0f + std::abs(b[i]))) << "element " << i;
  }
}

struct Mesh {
  std::string name;
  std::vector<std::int64_t> dims;  // 1-D {n} or 2-D {a, b}
  int cores() const {
    int n = 1;
    for (auto d : dims) n *= static_cast<int>(d);
    return n;
  }
};

inline std::vector<Mesh> meshes() {
  return {{"1d_2", {2}}, {"1d_4", {4}}, {"1d_8", {8}}, {"2d_2x2", {2, 2}}, {"2d_2x4", {2, 4}}, {"2d_4x2", {4, 2}}};
}

// Shardings of a rank-2 tensor on the mesh: replicated, row / column tiles, and 2-D tiles (plain and with the
// second mesh axis as replication) on a 2-D mesh.
inline std::vector<Sharding> rank2(const Mesh& mesh) {
  const int n = mesh.cores();
  std::vector<Sharding> out = {Sharding::replicated(), Sharding::iota_tiled({n, 1}), Sharding::iota_tiled({1, n})};
  if (mesh.dims.size() == 2) {
    out.push_back(Sharding::iota_tiled({mesh.dims[0], mesh.dims[1]}));
    out.push_back(Sharding::iota_tiled({mesh.dims[0], 1, mesh.dims[1]}, true));
  }
  return out;
}

}  // namespace tpustrategy::spmd::testing
