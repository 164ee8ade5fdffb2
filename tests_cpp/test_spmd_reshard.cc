// spmd/reshard: every reshard kind on 1-D and 2-D logical meshes of 2, 4 and 8 cores moves real data through
// the Communicator and gives bitwise the unpartitioned tensor; the inserted collectives are XLA's (kind,
// groups, dimension), checked on the cases the cross-check (tools/crosscheck_xla.py) compares with XLA.
#include <gtest/gtest.h>

#include "spmd_test_util.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/spmd/reshard.h"
#include "tpustrategy/spmd/tile_grid.h"

namespace tpustrategy::spmd {
namespace {

using testing::expect_sharded_equal;
using testing::make_cores;
using testing::Mesh;
using testing::random_tensor;

std::vector<int> reversed(int n) {
  std::vector<int> out;
  for (int k = n - 1; k >= 0; --k) out.push_back(k);
  return out;
}

// The shardings of a rank-2 tensor on `mesh`: replicated, both 1-D tilings (iota and reversed devices),
// and on a 2-D mesh both 2-D tilings and the partially tiled ones.
std::vector<Sharding> catalogue(const Mesh& mesh) {
  const int n = mesh.cores();
  std::vector<Sharding> out = {Sharding::replicated(), Sharding::iota_tiled({n, 1}), Sharding::iota_tiled({1, n}),
                               Sharding::tiled({n, 1}, reversed(n)), Sharding::maximal(n - 1)};
  if (mesh.dims.size() == 2) {
    const auto a = mesh.dims[0], b = mesh.dims[1];
    out.push_back(Sharding::iota_tiled({a, b}));
    out.push_back(Sharding::iota_tiled({b, a}));
    out.push_back(Sharding::iota_tiled({a, 1, b}, true));
    out.push_back(Sharding::iota_tiled({1, b, a}, true));
    out.push_back(Sharding::tiled({a, b}, reversed(n)));
  }
  return out;
}

class ReshardOnMesh : public ::testing::TestWithParam<Mesh> {};

TEST_P(ReshardOnMesh, EveryPairIsBitwiseTheUnpartitionedTensor) {
  const Mesh mesh = GetParam();
  const auto cores = make_cores(mesh.cores());
  for (const Shape& shape : {Shape{16, 24}, Shape{7, 5}}) {
    const Tensor global = random_tensor(shape, 3);
    for (const auto& from : catalogue(mesh)) {
      for (const auto& to : catalogue(mesh)) {
        SpmdContext ctx(cores);
        const auto x = ShardedTensor::shard(global, from, cores);
        const auto y = reshard(ctx, x, to, "test");
        SCOPED_TRACE(fmt::format("{} -> {} on {}", from.to_string(), to.to_string(), shape_to_string(shape)));
        EXPECT_EQ(y.sharding(), normalized(to, 2, mesh.cores()));
        expect_sharded_equal(y, global);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Meshes, ReshardOnMesh, ::testing::ValuesIn(testing::meshes()),
                         [](const auto& info) { return info.param.name; });

std::vector<std::string> kinds(const SpmdRecord& record) {
  std::vector<std::string> out;
  for (const auto* e : record.collectives()) out.push_back(e->name);
  return out;
}

struct Fixture {
  explicit Fixture(int n, Shape shape = {16, 24}) : cores(make_cores(n)), ctx(cores), global(random_tensor(shape)) {}
  ShardedTensor run(const Sharding& from, const Sharding& to) {
    const auto y = reshard(ctx, ShardedTensor::shard(global, from, cores), to);
    expect_sharded_equal(y, global);
    return y;
  }
  std::vector<DevicePtr> cores;
  SpmdContext ctx;
  Tensor global;
};

TEST(Reshard, ReplicatedToTiledIsALocalSliceWithoutCollectives) {
  for (int n : {2, 4, 8}) {
    Fixture f(n);
    f.run(Sharding::replicated(), Sharding::iota_tiled({n, 1}));
    EXPECT_TRUE(kinds(f.ctx.record()).empty());
    ASSERT_EQ(f.ctx.record().entries.size(), 1u);
    EXPECT_EQ(f.ctx.record().entries[0].name, "dynamic-slice");
  }
}

TEST(Reshard, TiledToReplicatedIsOneAllGatherOverEveryCore) {
  for (int n : {2, 4, 8}) {
    Fixture f(n);
    const auto y = f.run(Sharding::iota_tiled({1, n}), Sharding::replicated());
    ASSERT_EQ(kinds(f.ctx.record()), std::vector<std::string>{"all-gather"});
    const auto* e = f.ctx.record().collectives()[0];
    EXPECT_EQ(e->dimension, 1);
    ASSERT_EQ(e->groups.size(), 1u);
    EXPECT_EQ(e->groups[0].size(), static_cast<std::size_t>(n));
    // Each core now holds the whole tensor: its HBM is charged the full size.
    for (int k = 0; k < n; ++k) EXPECT_EQ(y.bytes_per_device()[k], f.global.nbytes());
  }
}

TEST(Reshard, TwoDimensionalTilingGathersTheMinorDimensionFirst) {
  Fixture f(8);
  f.run(Sharding::iota_tiled({2, 4}), Sharding::replicated());
  ASSERT_EQ(kinds(f.ctx.record()), (std::vector<std::string>{"all-gather", "all-gather"}));
  const auto c = f.ctx.record().collectives();
  EXPECT_EQ(c[0]->dimension, 1);
  EXPECT_EQ(c[0]->groups, (std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(c[1]->dimension, 0);
  EXPECT_EQ(c[1]->groups, (std::vector<std::vector<int>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
}

TEST(Reshard, MovingTheShardedDimensionIsOneAllToAll) {
  for (int n : {2, 4, 8}) {
    Fixture f(n);
    f.run(Sharding::iota_tiled({n, 1}), Sharding::iota_tiled({1, n}));
    ASSERT_EQ(kinds(f.ctx.record()), std::vector<std::string>{"all-to-all"});
    EXPECT_EQ(f.ctx.record().collectives()[0]->dimension, 1);
  }
}

TEST(Reshard, AllToAllOnOneAxisOfATwoDimensionalMesh) {
  Fixture f(8, {16, 24, 8});
  f.run(Sharding::iota_tiled({2, 4, 1}), Sharding::iota_tiled({2, 1, 4}));
  ASSERT_EQ(kinds(f.ctx.record()), std::vector<std::string>{"all-to-all"});
  EXPECT_EQ(f.ctx.record().collectives()[0]->groups, (std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
}

TEST(Reshard, SwappingTheMeshAxesIsASubAxisAllToAllThenAPermute) {
  // [a, b] -> [b, a] on a 2 x 4 mesh (XLA: all-to-all over the minor 2-core sub-axis of b, then a permute).
  Fixture f(8);
  f.run(Sharding::iota_tiled({2, 4}), Sharding::tiled({4, 2}, {0, 4, 1, 5, 2, 6, 3, 7}));
  ASSERT_EQ(kinds(f.ctx.record()), (std::vector<std::string>{"all-to-all", "collective-permute"}));
  const auto c = f.ctx.record().collectives();
  EXPECT_EQ(c[0]->groups, (std::vector<std::vector<int>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(c[1]->pairs,
            (std::vector<std::pair<int, int>>{{0, 0}, {1, 1}, {2, 4}, {3, 5}, {4, 2}, {5, 3}, {6, 6}, {7, 7}}));
}

TEST(Reshard, AFactorOfTheTilesMovesByOneAllToAllOverThatSubAxis) {
  for (int n : {4, 8}) {
    // [n, 1] -> [2, n / 2]: the minor n / 2 tiles of the rows become column tiles; no permute (same order).
    Fixture f(n);
    f.run(Sharding::iota_tiled({n, 1}), Sharding::iota_tiled({2, n / 2}));
    ASSERT_EQ(kinds(f.ctx.record()), std::vector<std::string>{"all-to-all"});
    EXPECT_EQ(f.ctx.record().collectives()[0]->groups.size(), 2u);
    EXPECT_EQ(f.ctx.record().collectives()[0]->groups[0].size(), static_cast<std::size_t>(n / 2));
  }
}

TEST(Reshard, OtherDeviceOrderIsOneCollectivePermute) {
  for (int n : {2, 4, 8}) {
    Fixture f(n);
    f.run(Sharding::iota_tiled({n, 1}), Sharding::tiled({n, 1}, reversed(n)));
    ASSERT_EQ(kinds(f.ctx.record()), std::vector<std::string>{"collective-permute"});
    const auto* e = f.ctx.record().collectives()[0];
    ASSERT_EQ(e->pairs.size(), static_cast<std::size_t>(n));
    for (auto [s, t] : e->pairs) EXPECT_EQ(t, n - 1 - s);
  }
}

TEST(Reshard, PartialReplicationGathersOneAxisAndSlicesLocally) {
  Fixture f(8);
  f.run(Sharding::iota_tiled({2, 4}), Sharding::iota_tiled({2, 1, 4}, true));
  ASSERT_EQ(kinds(f.ctx.record()), std::vector<std::string>{"all-gather"});
  EXPECT_EQ(f.ctx.record().collectives()[0]->groups, (std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  Fixture g(8);
  g.run(Sharding::iota_tiled({2, 1, 4}, true), Sharding::iota_tiled({2, 4}));
  EXPECT_TRUE(kinds(g.ctx.record()).empty());
}

TEST(Reshard, UnevenTilesArePaddedForTheCollectiveAndCropped) {
  Fixture f(4, {7, 5});
  f.run(Sharding::iota_tiled({4, 1}), Sharding::replicated());
  EXPECT_EQ(f.ctx.record().collectives()[0]->operand_shape, (Shape{2, 5}));
}

TEST(Reshard, MaximalSourceIsBroadcast) {
  Fixture f(4);
  f.run(Sharding::maximal(2), Sharding::iota_tiled({1, 4}));
  EXPECT_EQ(kinds(f.ctx.record())[0], "broadcast");
}

TEST(Reshard, NoRuleLeftIsAFullRematerializationWithANote) {
  Fixture f(8);
  // The copies of each tile sit on cores that do not hold the target's tiles: no local slice, no single step.
  f.run(Sharding::tiled({2, 1, 4}, {0, 2, 4, 6, 1, 3, 5, 7}, true), Sharding::iota_tiled({2, 4}));
  bool noted = false;
  for (const auto& e : f.ctx.record().entries)
    noted |= e.kind == SpmdEntryKind::kNote && e.rule.find("involuntary full rematerialization") != std::string::npos;
  EXPECT_TRUE(noted) << f.ctx.record().to_text();
}

TEST(Reshard, RecordPrintsLikeAnHloListing) {
  Fixture f(8);
  f.run(Sharding::iota_tiled({2, 4}), Sharding::replicated());
  const auto text = f.ctx.record().to_text();
  EXPECT_NE(text.find("all-gather(f32[8,6]), replica_groups={{0,1,2,3},{4,5,6,7}}, dimensions={1}"), std::string::npos)
      << text;
}

TEST(Reshard, BadTargetsAreValueErrors) {
  Fixture f(4);
  const auto x = ShardedTensor::shard(f.global, Sharding::replicated(), f.cores);
  EXPECT_THROW(reshard(f.ctx, x, Sharding::iota_tiled({8, 1}), "t"), ValueError);
  EXPECT_THROW(reshard(f.ctx, x, Sharding::iota_tiled({4}), "t"), ValueError);
  SpmdContext other(make_cores(2));
  EXPECT_THROW(reshard(other, x, Sharding::replicated(), "t"), ValueError);
}

TEST(TileGrid, MergeAndSplitAreInverse) {
  const TileGrid grid = TileGrid::from(Sharding::iota_tiled({2, 4}), 2, 8);
  const TileGrid merged = merge_into_replication(grid, 1);
  EXPECT_EQ(merged.to_sharding(8), Sharding::tiled({2, 1, 4}, {0, 1, 2, 3, 4, 5, 6, 7}, true));
  EXPECT_EQ(split_from_replication(merged, 1, 4).devices, grid.devices);
  EXPECT_EQ(merge_into_replication(merged, 0).to_sharding(8), Sharding::replicated());
  const TileGrid t = transpose_grid(grid, {1, 0});
  EXPECT_EQ(t.to_sharding(8), Sharding::tiled({4, 2}, {0, 4, 1, 5, 2, 6, 3, 7}));
}

}  // namespace
}  // namespace tpustrategy::spmd
