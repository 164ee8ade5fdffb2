// spmd/ partitioned ops: on 1-D and 2-D meshes of 2, 4 and 8 cores each op gives the unpartitioned result
// (bitwise for elementwise and data movement, within tolerance for dots and reductions), carries XLA's
// result sharding, and inserts the collectives of XLA's rules; the partitioned gradients equal the
// unpartitioned ones.
#include <gtest/gtest.h>

#include "spmd_test_util.h"
#include "tpustrategy/ops/cast.h"
#include "tpustrategy/ops/creation.h"
#include "tpustrategy/ops/matmul.h"
#include "tpustrategy/ops/nn.h"
#include "tpustrategy/ops/shape_ops.h"
#include "tpustrategy/spmd/partitioned_dot.h"
#include "tpustrategy/spmd/partitioned_elementwise.h"
#include "tpustrategy/spmd/partitioned_grad.h"
#include "tpustrategy/spmd/partitioned_reduce.h"
#include "tpustrategy/spmd/partitioned_shape.h"
#include "tpustrategy/spmd/reshard.h"
#include "tpustrategy/spmd/tile_grid.h"

namespace tpustrategy::spmd {
namespace {

using testing::bitwise_equal;
using testing::expect_close;
using testing::expect_sharded_equal;
using testing::make_cores;
using testing::Mesh;
using testing::random_tensor;
using testing::rank2;

std::vector<std::string> kinds(const SpmdRecord& record) {
  std::vector<std::string> out;
  for (const auto* e : record.collectives()) out.push_back(e->name);
  return out;
}

class OpsOnMesh : public ::testing::TestWithParam<Mesh> {
 protected:
  std::vector<DevicePtr> cores = make_cores(GetParam().cores());
  ShardedTensor on(const Tensor& t, const Sharding& s) { return ShardedTensor::shard(t, s, cores); }
};

TEST_P(OpsOnMesh, ElementwiseIsBitwiseAndPicksTheMoreTiledSharding) {
  const Tensor a = random_tensor({16, 24}, 1), b = random_tensor({16, 24}, 2), bias = random_tensor({24}, 3);
  for (const auto& sa : rank2(GetParam())) {
    for (const auto& sb : rank2(GetParam())) {
      SpmdContext ctx(cores);
      const auto y = binary(ctx, BinaryOp::kMultiply, on(a, sa), on(b, sb));
      expect_sharded_equal(y, multiply(a, b));
      EXPECT_EQ(y.sharding().num_tiles(), std::max(sa.num_tiles(), sb.num_tiles()));
      const auto r = unary(ctx, UnaryOp::kRelu, y);
      expect_sharded_equal(r, relu(multiply(a, b)));
      EXPECT_EQ(r.sharding(), y.sharding());
    }
    SpmdContext ctx(cores);
    const auto z = binary(ctx, BinaryOp::kAdd, on(a, sa), on(bias, Sharding::replicated()));
    expect_sharded_equal(z, add(a, bias));
    EXPECT_TRUE(kinds(ctx.record()).empty()) << "a replicated bias is cut locally";
  }
}

TEST_P(OpsOnMesh, ReductionOverATiledAxisIsLocalPlusOneAllReduce) {
  const Tensor x = random_tensor({16, 24});
  for (const auto& s : rank2(GetParam())) {
    for (std::vector<std::int64_t> axes : {std::vector<std::int64_t>{0}, {1}, {}}) {
      for (ReduceKind kind : {ReduceKind::kSum, ReduceKind::kMax, ReduceKind::kMean}) {
        SpmdContext ctx(cores);
        const auto y = reduce(ctx, kind, on(x, s), axes);
        expect_close(y.assemble(), tpustrategy::reduce(kind, x, axes.empty() ? std::nullopt : std::optional(axes)));
        const TileGrid g = TileGrid::from(s, 2, GetParam().cores());
        std::size_t tiled = 0;  // one all-reduce per tiled reduced axis (XLA's plan)
        for (int d = 0; d < 2; ++d)
          tiled += g.dims[d] > 1 && (axes.empty() || std::find(axes.begin(), axes.end(), d) != axes.end());
        EXPECT_EQ(kinds(ctx.record()), std::vector<std::string>(tiled, "all-reduce"));
      }
    }
  }
}

TEST_P(OpsOnMesh, MatmulEqualsTheUnpartitionedProductForEveryOperandPair) {
  const Tensor a = random_tensor({16, 32}, 4), b = random_tensor({32, 8}, 5);
  const Tensor expected = tpustrategy::matmul(a, b);
  for (const auto& sa : rank2(GetParam())) {
    for (const auto& sb : rank2(GetParam())) {
      SpmdContext ctx(cores);
      const auto y = matmul(ctx, on(a, sa), on(b, sb));
      SCOPED_TRACE(sa.to_string() + " x " + sb.to_string() + "\n" + ctx.record().to_text());
      expect_close(y.assemble(), expected);
    }
  }
}

TEST_P(OpsOnMesh, DataMovementOpsAreBitwise) {
  const Tensor x = random_tensor({16, 24}), w = random_tensor({16, 8});
  for (const auto& s : rank2(GetParam())) {
    SpmdContext ctx(cores);
    const auto sx = on(x, s);
    expect_sharded_equal(transpose(ctx, sx, {1, 0}), tpustrategy::transpose(x, {1, 0}));
    expect_sharded_equal(reshape(ctx, sx, {16, 4, 6}), tpustrategy::reshape(x, {16, 4, 6}));
    expect_sharded_equal(reshape(ctx, sx, {384}), tpustrategy::reshape(x, {384}));
    expect_sharded_equal(reshape(ctx, sx, {4, 4, 24}), tpustrategy::reshape(x, {4, 4, 24}));
    expect_sharded_equal(slice(ctx, sx, {2, 0}, {8, 24}), tpustrategy::slice(x, {2, 0}, {8, 24}));
    expect_sharded_equal(slice(ctx, sx, {0, 3}, {16, 12}), tpustrategy::slice(x, {0, 3}, {16, 12}));
    expect_sharded_equal(concat(ctx, {sx, on(w, Sharding::replicated())}, 1), tpustrategy::concat({x, w}, 1));
    expect_close(softmax(ctx, sx, -1).assemble(), tpustrategy::softmax(x, -1), 1e-5f);
    expect_close(softmax(ctx, sx, 0).assemble(), tpustrategy::softmax(x, 0), 1e-5f);
  }
}

TEST_P(OpsOnMesh, ReshapeKeepsTheRowTilingWithoutCollectives) {
  const int n = GetParam().cores();
  const Tensor x = random_tensor({16, 24});
  SpmdContext ctx(cores);
  const auto y = reshape(ctx, on(x, Sharding::iota_tiled({n, 1})), {16, 4, 6});
  EXPECT_EQ(y.sharding(), Sharding::iota_tiled({n, 1, 1}));
  EXPECT_TRUE(kinds(ctx.record()).empty());
}

TEST_P(OpsOnMesh, CrossEntropyAndEmbeddingWithAVocabularyShardedTable) {
  const int n = GetParam().cores();
  const Tensor logits = random_tensor({8, 32}, 7);
  const Tensor labels = Tensor::from_vector<std::int32_t>({0, 5, 31, 17, 8, 9, 30, 1}, {8});
  std::vector<float> expected;
  const Tensor lsm = log_softmax(logits, -1);
  for (int i = 0; i < 8; ++i)
    expected.push_back(-lsm.to_vector<float>()[static_cast<std::size_t>(i * 32 + labels.to_vector<int>()[i])]);
  for (const auto& s :
       {Sharding::iota_tiled({1, n}), Sharding::iota_tiled({n > 4 ? 4 : n, 1}), Sharding::replicated()}) {
    SpmdContext ctx(cores);
    const auto loss = sparse_softmax_cross_entropy(ctx, on(logits, s), on(labels, Sharding::replicated()));
    expect_close(loss.assemble(), Tensor::from_vector(expected, {8}), 1e-5f);
    if (s == Sharding::iota_tiled({1, n}))
      EXPECT_EQ(kinds(ctx.record()), (std::vector<std::string>{"all-reduce", "all-reduce", "all-reduce"}));
  }
  const Tensor table = random_tensor({32, 8}, 8);
  const Tensor ids = Tensor::from_vector<std::int32_t>({3, 31, 0, 16, 16, 7}, {2, 3});
  for (const auto& s : {Sharding::iota_tiled({n, 1}), Sharding::iota_tiled({1, n}), Sharding::replicated()}) {
    SpmdContext ctx(cores);
    const auto y = gather(ctx, on(table, s), on(ids, Sharding::replicated()));
    expect_sharded_equal(y, tpustrategy::gather(table, ids, 0));
    EXPECT_EQ(kinds(ctx.record()),
              s == Sharding::iota_tiled({n, 1}) ? std::vector<std::string>{"all-reduce"} : std::vector<std::string>{});
  }
}

TEST_P(OpsOnMesh, GradientsEqualTheUnpartitionedOnes) {
  const int n = GetParam().cores();
  const Tensor x = random_tensor({16, 32}, 11), w1 = random_tensor({32, 16}, 12), w2 = random_tensor({16, 8}, 13);
  // Megatron-style MLP: x replicated, w1 column-split, w2 row-split; loss = sum(relu(x w1) w2).
  SpmdContext ctx(cores);
  const auto sx = on(x, Sharding::replicated()), s1 = on(w1, Sharding::iota_tiled({1, n})),
             s2 = on(w2, Sharding::iota_tiled({n, 1}));
  const auto h = matmul(ctx, sx, s1);
  const auto r = unary(ctx, UnaryOp::kRelu, h);
  const auto y = matmul(ctx, r, s2);
  EXPECT_EQ(kinds(ctx.record()), std::vector<std::string>{"all-reduce"}) << ctx.record().to_text();
  const auto loss = reduce(ctx, ReduceKind::kSum, y);
  const auto dy = reduce_grad(ctx, ReduceKind::kSum, y, {}, on(Tensor::scalar<float>(1.0f), Sharding::replicated()));
  const auto g2 = matmul_grad(ctx, r, s2, dy);
  const auto dh = unary_grad(ctx, UnaryOp::kRelu, h, *g2.da);
  const auto g1 = matmul_grad(ctx, sx, s1, dh, {.da = false, .db = true});
  EXPECT_FALSE(g1.da.has_value());
  // Unpartitioned reference.
  const Tensor hr = tpustrategy::matmul(x, w1), rr = relu(hr);
  const Tensor dyr = ones_like(tpustrategy::matmul(rr, w2));
  const Tensor dw2 = tpustrategy::matmul(rr, dyr, true, false);
  const Tensor dr = tpustrategy::matmul(dyr, w2, false, true);
  const Tensor dhr = where(greater(hr, zeros_like(hr)), dr, zeros_like(dr));
  const Tensor dw1 = tpustrategy::matmul(x, dhr, true, false);
  expect_close(loss.assemble(), tpustrategy::reduce_sum(tpustrategy::matmul(rr, w2)));
  expect_close(g2.db->assemble(), dw2);
  expect_close(g1.db->assemble(), dw1);
  EXPECT_EQ(g1.db->sharding(), s1.sharding());
  EXPECT_EQ(g2.db->sharding(), s2.sharding());
  const auto [da, db] = binary_grad(ctx, BinaryOp::kMultiply, h, h, dh);
  expect_close(da.assemble(), multiply(dhr, hr));
  const auto dmean =
      reduce_grad(ctx, ReduceKind::kMean, sx, {1}, on(ones({16}), Sharding::iota_tiled({n > 4 ? 4 : n})));
  expect_close(dmean.assemble(), fill({16, 32}, Tensor::scalar<float>(1.0f / 32)));
  const Tensor labels = Tensor::from_vector<std::int32_t>({0, 5, 31, 17, 8, 9, 30, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {16});
  const auto dl =
      sparse_softmax_cross_entropy_grad(ctx, on(x, Sharding::iota_tiled({1, n})), on(labels, Sharding::replicated()),
                                        on(ones({16}), Sharding::replicated()));
  const Tensor expect_dl = subtract(tpustrategy::softmax(x, -1),
                                    one_hot(labels, 32, Tensor::scalar<float>(1), Tensor::scalar<float>(0), -1));
  expect_close(dl.assemble(), expect_dl, 1e-5f);
}

INSTANTIATE_TEST_SUITE_P(Meshes, OpsOnMesh, ::testing::ValuesIn(testing::meshes()),
                         [](const auto& info) { return info.param.name; });

// ---- XLA's dot rules, one by one (8 cores) ----
struct DotCase {
  Sharding a, b;
  std::optional<Sharding> out;
  std::vector<std::string> collectives;
  Sharding result;
};

TEST(DotRules, EachRuleInsertsXlasCollectives) {
  const auto cores = make_cores(8);
  const Tensor a = random_tensor({16, 32}, 4), b = random_tensor({32, 8}, 5);
  const std::vector<DotCase> cases = {
      // lhs rows tiled, rhs replicated: local, rows tiled
      {Sharding::iota_tiled({8, 1}), Sharding::replicated(), std::nullopt, {}, Sharding::iota_tiled({8, 1})},
      // rhs columns tiled, lhs replicated: local, columns tiled
      {Sharding::replicated(), Sharding::iota_tiled({1, 8}), std::nullopt, {}, Sharding::iota_tiled({1, 8})},
      // contracting tiled on both: local + all-reduce
      {Sharding::iota_tiled({1, 8}),
       Sharding::iota_tiled({8, 1}),
       std::nullopt,
       {"all-reduce"},
       Sharding::replicated()},
      // ... with a row-tiled output: reduce-scatter
      {Sharding::iota_tiled({1, 8}),
       Sharding::iota_tiled({8, 1}),
       Sharding::iota_tiled({8, 1}),
       {"reduce-scatter"},
       Sharding::iota_tiled({8, 1})},
      // contracting tiled on lhs only: rhs sliced locally, all-reduce
      {Sharding::iota_tiled({1, 8}), Sharding::replicated(), std::nullopt, {"all-reduce"}, Sharding::replicated()},
      // lhs rows and rhs columns tiled: all-gather of the rhs
      {Sharding::iota_tiled({8, 1}),
       Sharding::iota_tiled({1, 8}),
       std::nullopt,
       {"all-gather"},
       Sharding::iota_tiled({8, 1})},
      // 2-D: lhs [2 rows, 4 contracting], rhs replicated: slice, all-reduce over the groups of 4
      {Sharding::iota_tiled({2, 4}),
       Sharding::replicated(),
       std::nullopt,
       {"all-reduce"},
       Sharding::iota_tiled({2, 1, 4}, true)},
  };
  for (const auto& c : cases) {
    SpmdContext ctx(cores);
    const auto y = matmul(ctx, ShardedTensor::shard(a, c.a, cores), ShardedTensor::shard(b, c.b, cores), c.out);
    SCOPED_TRACE(c.a.to_string() + " x " + c.b.to_string() + "\n" + ctx.record().to_text());
    EXPECT_EQ(kinds(ctx.record()), c.collectives);
    EXPECT_EQ(y.sharding(), c.result);
    expect_close(y.assemble(), tpustrategy::matmul(a, b));
  }
}

TEST(DotRules, BatchPartitionedAlikeIsLocal) {
  const auto cores = make_cores(4);
  const Tensor a = random_tensor({4, 8, 6}, 1), b = random_tensor({4, 6, 5}, 2);
  SpmdContext ctx(cores);
  const auto y = matmul(ctx, ShardedTensor::shard(a, Sharding::iota_tiled({4, 1, 1}), cores),
                        ShardedTensor::shard(b, Sharding::iota_tiled({4, 1, 1}), cores));
  EXPECT_TRUE(kinds(ctx.record()).empty());
  EXPECT_EQ(y.sharding(), Sharding::iota_tiled({4, 1, 1}));
  expect_close(y.assemble(), tpustrategy::matmul(a, b));
}

TEST(PartitionedOps, PerCoreHbmHoldsTheShards) {
  const auto cores = make_cores(8);
  const Tensor x = random_tensor({64, 64});
  SpmdContext ctx(cores);
  const auto before = cores[3]->memory_info().current;
  const auto sx = ShardedTensor::shard(x, Sharding::iota_tiled({8, 1}), cores);
  const auto y = unary(ctx, UnaryOp::kExp, sx);
  EXPECT_EQ(y.bytes_per_device()[3], x.nbytes() / 8);
  EXPECT_GE(cores[3]->memory_info().current - before, 2 * x.nbytes() / 8);  // input shard + output shard
}

TEST(PartitionedOps, RecordHasShapesFlopsAndRules) {
  const auto cores = make_cores(4);
  SpmdContext ctx(cores);
  matmul(ctx, ShardedTensor::shard(random_tensor({8, 16}), Sharding::iota_tiled({1, 4}), cores),
         ShardedTensor::shard(random_tensor({16, 4}), Sharding::iota_tiled({4, 1}), cores));
  const auto& e = ctx.record().entries;
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].name, "dot");
  EXPECT_EQ(e[0].shard_shapes[1], (Shape{8, 4}));
  EXPECT_EQ(e[0].flops[1], 2 * 8 * 4 * 4);
  EXPECT_EQ(e[1].name, "all-reduce");
  EXPECT_EQ(e[1].groups, (std::vector<std::vector<int>>{{0, 1, 2, 3}}));
  EXPECT_NE(e[1].rule.find("contracting"), std::string::npos);
  EXPECT_GT(ctx.record().collective_bytes(0), 0);
}

}  // namespace
}  // namespace tpustrategy::spmd
