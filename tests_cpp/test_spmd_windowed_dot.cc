// spmd/ windowed einsum: above the context's threshold a dot that would all-gather its large operand runs XLA's
// windowed loop instead — P local dots and P − 1 ring collective-permutes, no all-gather — with the same
// result and the kept operand's tiling, for the lhs or the rhs kept and windows along the non-contracting or
// the contracting dimension, on 2, 4 and 8 cores; below the threshold the all-gather plan is unchanged.
#include <gtest/gtest.h>

#include "spmd_test_util.h"
#include "tpustrategy/ops/matmul.h"
#include "tpustrategy/spmd/partitioned_dot.h"

namespace tpustrategy::spmd {
namespace {

using testing::expect_close;
using testing::make_cores;
using testing::random_tensor;

struct WindowCase {
  const char* name;
  int cores;
  std::vector<std::int64_t> a, b;  // tile grids of lhs [16, 24] and rhs [24, 32]
  const char* rule;
};

class Windowed : public ::testing::TestWithParam<WindowCase> {};

TEST_P(Windowed, LoopOfLocalDotsAndRingPermutesEqualsTheProduct) {
  const auto c = GetParam();
  const auto cores = make_cores(c.cores);
  const Tensor a = random_tensor({16, 24}, 1), b = random_tensor({24, 32}, 2);
  const auto sa = ShardedTensor::shard(a, Sharding::iota_tiled(c.a), cores);
  const auto sb = ShardedTensor::shard(b, Sharding::iota_tiled(c.b), cores);
  SpmdContext ctx(cores);
  ctx.set_windowed_einsum_threshold_bytes(0);
  const auto y = matmul(ctx, sa, sb);
  expect_close(y.assemble(), tpustrategy::matmul(a, b), 1e-5f);
  int permutes = 0, dots = 0;
  for (const auto& e : ctx.record().entries) {
    permutes += e.name == "collective-permute";
    dots += e.name == "dot";
    EXPECT_NE(e.name, "all-gather");
    if (e.name == "dot") EXPECT_NE(e.rule.find(c.rule), std::string::npos) << e.rule;
  }
  EXPECT_EQ(dots, c.cores);
  EXPECT_EQ(permutes, c.cores - 1);
  // Ring: every core sends one window to one neighbour per step.
  const auto* first = ctx.record().collectives().front();
  EXPECT_EQ(first->pairs.size(), static_cast<std::size_t>(c.cores));
  // The result keeps the kept operand's tiling; each core holds 1/P of it.
  EXPECT_EQ(y.sharding(), std::string(c.rule).rfind("lhs kept", 0) == 0 ? sa.sharding() : sb.sharding());

  SpmdContext plain(cores);  // the default threshold (256 MiB): XLA's all-gather plan
  const auto z = matmul(plain, sa, sb);
  expect_close(z.assemble(), tpustrategy::matmul(a, b), 1e-5f);
  for (const auto* e : plain.record().collectives()) EXPECT_NE(e->name, "collective-permute");
}

INSTANTIATE_TEST_SUITE_P(
    Cases, Windowed,
    ::testing::Values(
        WindowCase{"lhs_rows_rhs_cols_2", 2, {2, 1}, {1, 2}, "lhs kept, rhs windows along its non-contracting"},
        WindowCase{"lhs_rows_rhs_cols_8", 8, {8, 1}, {1, 8}, "lhs kept, rhs windows along its non-contracting"},
        WindowCase{"lhs_rows_rhs_contracting_4", 4, {4, 1}, {4, 1}, "lhs kept, rhs windows along its contracting"},
        WindowCase{"rhs_cols_lhs_contracting_8", 8, {1, 8}, {1, 8}, "rhs kept, lhs windows along its contracting"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Windowed, PartialTilingsKeepTheAllGatherPlan) {
  // 2 x 4 mesh: the lhs rows over 2 of 8 cores is not "over all partitions", so XLA does not window.
  const auto cores = make_cores(8);
  const Tensor a = random_tensor({16, 24}, 1), b = random_tensor({24, 32}, 2);
  SpmdContext ctx(cores);
  ctx.set_windowed_einsum_threshold_bytes(0);
  const auto y = matmul(ctx, ShardedTensor::shard(a, Sharding::iota_tiled({2, 1, 4}, true), cores),
                        ShardedTensor::shard(b, Sharding::iota_tiled({1, 8}), cores));
  expect_close(y.assemble(), tpustrategy::matmul(a, b), 1e-5f);
  for (const auto& e : ctx.record().entries) EXPECT_EQ(e.rule.find("windowed"), std::string::npos) << e.rule;
}

}  // namespace
}  // namespace tpustrategy::spmd
