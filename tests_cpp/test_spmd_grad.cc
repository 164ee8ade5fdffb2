// spmd/ partitioned backward of the data-movement ops on 1-D and 2-D meshes of 2, 4 and 8 cores: the slice
// gradient is a local pad (bitwise the unpartitioned one, in the operand's sharding, no collective when dy
// arrives in the slice's sharding) and the table gradient of a vocabulary-sharded gather is a local
// scatter-add per vocabulary tile (duplicates summed, no collective).
#include <gtest/gtest.h>

#include "spmd_test_util.h"
#include "tpustrategy/ops/scatter.h"
#include "tpustrategy/ops/shape_ops.h"
#include "tpustrategy/spmd/partitioned_grad.h"
#include "tpustrategy/spmd/partitioned_shape.h"

namespace tpustrategy::spmd {
namespace {

using testing::expect_close;
using testing::expect_sharded_equal;
using testing::make_cores;
using testing::Mesh;
using testing::random_tensor;
using testing::rank2;

class GradOnMesh : public ::testing::TestWithParam<Mesh> {
 protected:
  std::vector<DevicePtr> cores = make_cores(GetParam().cores());
  ShardedTensor on(const Tensor& t, const Sharding& s) { return ShardedTensor::shard(t, s, cores); }
};

TEST_P(GradOnMesh, SliceGradientIsALocalPadInTheOperandsSharding) {
  const Tensor x = random_tensor({16, 32}, 1);
  const std::vector<std::int64_t> begin{2, 8}, size{8, 16};
  const Tensor dy = random_tensor({8, 16}, 2);
  const Tensor expected = pad(dy, {2, 6, 8, 8});
  for (const auto& sharding : rank2(GetParam())) {
    SCOPED_TRACE(sharding.to_string());
    SpmdContext ctx(cores);
    const auto sx = on(x, sharding);
    const auto y = slice(ctx, sx, begin, size);
    const std::size_t forward = ctx.record().collectives().size();
    const auto dx = slice_grad(ctx, sx, begin, on(dy, y.sharding()));
    EXPECT_EQ(dx.sharding(), sx.sharding());
    expect_sharded_equal(dx, expected);
    EXPECT_EQ(ctx.record().collectives().size(), forward) << ctx.record().to_text();  // pad + slice: local
  }
}

TEST_P(GradOnMesh, GatherTableGradientIsALocalScatterAddPerVocabularyTile) {
  const Tensor table = random_tensor({16, 8}, 3);
  const Tensor ids = Tensor::from_vector(std::vector<std::int32_t>{3, 15, 3, 0, 8, 3}, {6});
  const Tensor dy = random_tensor({6, 8}, 4);
  const Tensor expected = unsorted_segment_sum(dy, ids, 16);
  for (const auto& sharding : rank2(GetParam())) {
    SCOPED_TRACE(sharding.to_string());
    SpmdContext ctx(cores);
    const auto st = on(table, sharding);
    const auto sids = on(ids, Sharding::replicated());
    const auto y = gather(ctx, st, sids);
    const std::size_t forward = ctx.record().collectives().size();
    const auto dt = gather_table_grad(ctx, st, sids, on(dy, y.sharding()));
    EXPECT_EQ(dt.sharding(), st.sharding());
    expect_close(dt.assemble(), expected, 1e-6f);
    EXPECT_EQ(ctx.record().collectives().size(), forward) << ctx.record().to_text();
    EXPECT_EQ(ctx.record().entries.back().name, "scatter");
  }
}

INSTANTIATE_TEST_SUITE_P(Meshes, GradOnMesh, ::testing::ValuesIn(testing::meshes()),
                         [](const auto& info) { return info.param.name; });

TEST(GradErrors, BadArgumentsAreTypedErrors) {
  const auto cores = make_cores(2);
  SpmdContext ctx(cores);
  const auto x = ShardedTensor::shard(random_tensor({4, 4}), Sharding::iota_tiled({2, 1}), cores);
  const auto dy = ShardedTensor::shard(random_tensor({2, 4}), Sharding::replicated(), cores);
  EXPECT_THROW(slice_grad(ctx, x, {3, 0}, dy), InvalidArgumentError);  // rows [3, 5) of 4
  EXPECT_THROW(slice_grad(ctx, x, {0}, dy), InvalidArgumentError);
  const auto ids =
      ShardedTensor::shard(Tensor::from_vector(std::vector<std::int32_t>{1, 2}, {2}), Sharding::replicated(), cores);
  EXPECT_THROW(gather_table_grad(ctx, x, ids, x), InvalidArgumentError);  // dy must be [2, 4]
}

}  // namespace
}  // namespace tpustrategy::spmd
