// spmd/ partitioned conv2d: inputs split over height and width (the seed's [1, 2, 4, 1] over 8 cores and
// 1-D / 2-D splits over 2 and 4) exchange halos by collective-permute and give the unpartitioned
// convolution; the halos are exactly the neighbours' edge rows (zeros at the border), and the filter
// gradient equals the unpartitioned one. Strided and dilated windows keep the tiling when the output tiles line
// up (halos of `before` and K − s − before) and gather otherwise; the input gradient sends the halos back.
#include <gtest/gtest.h>

#include "spmd_test_util.h"
#include "tpustrategy/ops/conv.h"
#include "tpustrategy/ops/window.h"
#include "tpustrategy/spmd/partitioned_conv.h"
#include "tpustrategy/spmd/reshard.h"

namespace tpustrategy::spmd {
namespace {

using testing::expect_close;
using testing::make_cores;
using testing::random_tensor;

// Direct SAME / VALID convolution, stride 1 (the reference).
Tensor reference_conv(const Tensor& x, const Tensor& f, bool same) {
  const auto& s = x.shape();
  const auto& k = f.shape();
  const std::int64_t ph = same ? (k[0] - 1) / 2 : 0, pw = same ? (k[1] - 1) / 2 : 0;
  const std::int64_t oh = same ? s[1] : s[1] - k[0] + 1, ow = same ? s[2] : s[2] - k[1] + 1;
  const auto xv = x.to_vector<float>(), fv = f.to_vector<float>();
  std::vector<float> out(static_cast<std::size_t>(s[0] * oh * ow * k[3]), 0.0f);
  for (std::int64_t n = 0; n < s[0]; ++n)
    for (std::int64_t i = 0; i < oh; ++i)
      for (std::int64_t j = 0; j < ow; ++j)
        for (std::int64_t o = 0; o < k[3]; ++o) {
          double acc = 0;
          for (std::int64_t a = 0; a < k[0]; ++a)
            for (std::int64_t b = 0; b < k[1]; ++b)
              for (std::int64_t c = 0; c < k[2]; ++c) {
                const std::int64_t y = i + a - ph, z = j + b - pw;
                if (y < 0 || y >= s[1] || z < 0 || z >= s[2]) continue;
                acc += xv[((n * s[1] + y) * s[2] + z) * s[3] + c] * fv[((a * k[1] + b) * k[2] + c) * k[3] + o];
              }
          out[((n * oh + i) * ow + j) * k[3] + o] = static_cast<float>(acc);
        }
  return Tensor::from_vector(out, {s[0], oh, ow, k[3]});
}

struct Split {
  const char* name;
  int cores;
  std::vector<std::int64_t> dims;
};

class ConvSplit : public ::testing::TestWithParam<Split> {};

TEST_P(ConvSplit, SpatiallySplitConvolutionEqualsTheUnpartitionedOne) {
  const auto split = GetParam();
  const auto cores = make_cores(split.cores);
  const Tensor x = random_tensor({2, 8, 16, 3}, 1), f = random_tensor({3, 3, 3, 4}, 2);
  for (bool same : {true, false}) {
    SpmdContext ctx(cores);
    const auto sx = ShardedTensor::shard(x, Sharding::iota_tiled(split.dims), cores);
    const auto sf = ShardedTensor::shard(f, Sharding::replicated(), cores);
    const auto y = conv2d(ctx, sx, sf, {same ? "SAME" : "VALID"});
    expect_close(y.assemble(), reference_conv(x, f, same), 1e-5f);
    if (same) {
      EXPECT_EQ(y.sharding(), Sharding::iota_tiled(split.dims));
      int permutes = 0;
      for (const auto* e : ctx.record().collectives()) permutes += e->name == "collective-permute";
      int tiled_spatial = (split.dims[1] > 1) + (split.dims[2] > 1);
      EXPECT_EQ(permutes, 2 * tiled_spatial) << ctx.record().to_text();
      // Each core holds 1/L of the output activations.
      EXPECT_EQ(y.bytes_per_device()[0] * split.cores, 2 * 8 * 16 * 4 * 4);
    }
    // Filter gradient (dy = ones).
    std::vector<float> ones(static_cast<std::size_t>(num_elements(y.shape())), 1.0f);
    const Tensor dy = Tensor::from_vector(ones, y.shape());
    const auto df =
        conv2d_filter_grad(ctx, sx, sf, ShardedTensor::shard(dy, y.sharding(), cores), {same ? "SAME" : "VALID"});
    // Reference: d/dF of sum(conv(x, F)) = conv of x with ones, per filter tap: sum over windows of x.
    std::vector<float> ref(static_cast<std::size_t>(num_elements(f.shape())), 0.0f);
    for (std::int64_t idx = 0; idx < num_elements(f.shape()); ++idx) {
      std::vector<float> e(static_cast<std::size_t>(num_elements(f.shape())), 0.0f);
      e[static_cast<std::size_t>(idx)] = 1.0f;
      const auto r = reference_conv(x, Tensor::from_vector(e, f.shape()), same).to_vector<float>();
      double total = 0;
      for (float v : r) total += v;
      ref[static_cast<std::size_t>(idx)] = static_cast<float>(total);
    }
    expect_close(df.assemble(), Tensor::from_vector(ref, f.shape()), 1e-4f);
  }
}

INSTANTIATE_TEST_SUITE_P(Splits, ConvSplit,
                         ::testing::Values(Split{"h2", 2, {1, 2, 1, 1}}, Split{"w4", 4, {1, 1, 4, 1}},
                                           Split{"h2w2", 4, {1, 2, 2, 1}}, Split{"seed_h2w4", 8, {1, 2, 4, 1}},
                                           Split{"batch2_w4", 8, {2, 1, 4, 1}}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(HaloExchange, HalosAreTheNeighboursEdgesAndZerosAtTheBorder) {
  const auto cores = make_cores(4);
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[i] = static_cast<float>(i + 1);
  const Tensor x = Tensor::from_vector(v, {16});
  SpmdContext ctx(cores);
  const auto haloed = halo_exchange(ctx, ShardedTensor::shard(x, Sharding::iota_tiled({4}), cores), 0, 1, 2);
  EXPECT_EQ(haloed[0].to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(haloed[1].to_vector<float>(), (std::vector<float>{4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(haloed[3].to_vector<float>(), (std::vector<float>{12, 13, 14, 15, 16, 0, 0}));
  const auto c = ctx.record().collectives();
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0]->pairs, (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 3}}));
  EXPECT_EQ(c[1]->pairs, (std::vector<std::pair<int, int>>{{1, 0}, {2, 1}, {3, 2}}));
  EXPECT_THROW(halo_exchange(ctx, ShardedTensor::shard(x, Sharding::iota_tiled({4}), cores), 0, 5, 0),
               InvalidArgumentError);
}

struct Strided {
  const char* name;
  int cores;
  std::vector<std::int64_t> dims;
  const char* padding;
  std::array<std::int64_t, 2> strides, dilations;
  Shape filter;
  int permutes;  // collective-permutes of the forward (0 when the window gathers instead)
  int gathers;   // spatial all-gathers of the forward
};

class ConvWindowSplit : public ::testing::TestWithParam<Strided> {};

// Forward, filter gradient and input gradient against the unpartitioned kernels, for strides and dilations.
TEST_P(ConvWindowSplit, ForwardAndBothGradientsEqualTheUnpartitionedOnes) {
  const auto c = GetParam();
  const auto cores = make_cores(c.cores);
  const Tensor x = random_tensor({2, 16, 16, 3}, 3), f = random_tensor(c.filter, 4);
  const Window2D win =
      make_window("test", 16, 16, c.filter[0], c.filter[1], c.strides, c.dilations, padding_kind(c.padding));
  const Tensor ref = tpustrategy::conv2d(x, f, win);
  const ConvWindow window{c.padding, c.strides, c.dilations};
  SpmdContext ctx(cores);
  const auto sx = ShardedTensor::shard(x, Sharding::iota_tiled(c.dims), cores);
  const auto sf = ShardedTensor::shard(f, Sharding::replicated(), cores);
  const auto y = conv2d(ctx, sx, sf, window);
  expect_close(y.assemble(), ref, 1e-5f);
  int permutes = 0, gathers = 0;
  for (const auto* e : ctx.record().collectives()) {
    permutes += e->name == "collective-permute";
    gathers += e->name == "all-gather";
  }
  EXPECT_EQ(permutes, c.permutes) << ctx.record().to_text();
  EXPECT_EQ(gathers, c.gathers) << ctx.record().to_text();
  const Tensor dy = random_tensor(ref.shape(), 5);
  const auto sdy = ShardedTensor::shard(dy, y.sharding(), cores);
  SpmdContext grad_ctx(cores);
  const auto dx = conv2d_input_grad(grad_ctx, sx, sf, sdy, window);
  EXPECT_EQ(dx.sharding(), sx.sharding());
  expect_close(dx.assemble(), conv2d_backprop_input(x.shape(), f, dy, win), 1e-4f);
  int back_permutes = 0;
  for (const auto* e : grad_ctx.record().collectives()) back_permutes += e->name == "collective-permute";
  // The transposed convolution exchanges dy's halos: one permute per forward one here (x's are not moved).
  EXPECT_EQ(back_permutes, c.permutes) << grad_ctx.record().to_text();
  const auto df = conv2d_filter_grad(grad_ctx, sx, sf, sdy, window);
  expect_close(df.assemble(), conv2d_backprop_filter(x, f.shape(), dy, win), 1e-4f);
}

INSTANTIATE_TEST_SUITE_P(
    Windows, ConvWindowSplit,
    ::testing::Values(
        // Stride 1 SAME, 3x3: halos of 1 each way per tiled dimension.
        Strided{"same_s1_h2", 2, {1, 2, 1, 1}, "SAME", {1, 1}, {1, 1}, {3, 3, 3, 4}, 2, 0},
        // Even kernel: halo 0 before, 1 after.
        Strided{"same_s1_k2_w4", 4, {1, 1, 4, 1}, "SAME", {1, 1}, {1, 1}, {2, 2, 3, 2}, 1, 0},
        // Strided SAME 3x3 / 2: TF pads 0 before, 1 after; halo after = 3 − 2 − 0 = 1.
        Strided{"same_s2_h2w4", 8, {1, 2, 4, 1}, "SAME", {2, 2}, {1, 1}, {3, 3, 3, 4}, 2, 0},
        // Strided SAME 5x5 / 2 (pads 1, 2): halos 1 before, 2 after.
        Strided{"same_s2_k5_w2", 2, {1, 1, 2, 1}, "SAME", {2, 2}, {1, 1}, {5, 5, 3, 2}, 2, 0},
        // Dilated SAME 3x3 rate 2 (span 5, pads 2, 2): halos of 2.
        Strided{"same_d2_h4", 4, {1, 4, 1, 1}, "SAME", {1, 1}, {2, 2}, {3, 3, 3, 2}, 2, 0},
        // 1x1 / 2: the stride skips the tile's last element (halo after −1 trims): no collective.
        Strided{"same_s2_k1_h2w2", 4, {1, 2, 2, 1}, "SAME", {2, 2}, {1, 1}, {1, 1, 3, 2}, 0, 0},
        // Patchify VALID 2x2 / 2: windows within tiles, no collective.
        Strided{"valid_patch_w4", 4, {1, 1, 4, 1}, "VALID", {2, 2}, {1, 1}, {2, 2, 3, 2}, 0, 0},
        // VALID 3x3 / 1: the output tiles do not line up, each tiled spatial dimension is gathered.
        Strided{"valid_s1_h2w2", 4, {1, 2, 2, 1}, "VALID", {1, 1}, {1, 1}, {3, 3, 3, 2}, 0, 2},
        // Stride 4 with tiles of 2 on 8 cores: misaligned, gathered.
        Strided{"same_s4_h8", 8, {1, 8, 1, 1}, "SAME", {4, 4}, {1, 1}, {3, 3, 3, 2}, 0, 1}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ConvInputGradient, StrideOneIsTheTransposedConvolutionOfHaloedDy) {
  // 1-D picture on 4 cores: dy = ones through a 3-tap SAME filter of ones gives dx = 3 inside, 2 at the ends.
  const auto cores = make_cores(4);
  std::vector<float> ones_x(8, 1.0f), ones_f(3, 1.0f);
  const Tensor x = Tensor::from_vector(ones_x, {1, 8, 1, 1}), f = Tensor::from_vector(ones_f, {3, 1, 1, 1});
  SpmdContext ctx(cores);
  const auto sx = ShardedTensor::shard(x, Sharding::iota_tiled({1, 4, 1, 1}), cores);
  const auto sf = ShardedTensor::shard(f, Sharding::replicated(), cores);
  const auto dy = ShardedTensor::shard(x, sx.sharding(), cores);
  const auto dx = conv2d_input_grad(ctx, sx, sf, dy);
  EXPECT_EQ(dx.assemble().to_vector<float>(), (std::vector<float>{2, 3, 3, 3, 3, 3, 3, 2}));
  EXPECT_EQ(dx.shards()[1].to_vector<float>(), (std::vector<float>{3, 3}));
  const auto c = ctx.record().collectives();
  ASSERT_EQ(c.size(), 2u);  // dy's halos, one each way
  EXPECT_EQ(c[0]->pairs, (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 3}}));
  EXPECT_EQ(c[1]->pairs, (std::vector<std::pair<int, int>>{{1, 0}, {2, 1}, {3, 2}}));
}

TEST(ConvInputGradient, StridedTakesTheDyHaloFromThePreviousTileOnly) {
  // 3 taps, stride 2, SAME on 8 elements (TF pads 0 before, 1 after): output o reads 2o, 2o+1, 2o+2, so the
  // first element of a tile is also read by the previous tile's last output: one dy element from the previous
  // tile, none from the next (the forward took one from the next). dx = how many windows cover each element.
  const auto cores = make_cores(4);
  std::vector<float> ones_x(8, 1.0f), ones_f(3, 1.0f), ones_y(4, 1.0f);
  const Tensor x = Tensor::from_vector(ones_x, {1, 8, 1, 1}), f = Tensor::from_vector(ones_f, {3, 1, 1, 1});
  SpmdContext ctx(cores);
  const auto sx = ShardedTensor::shard(x, Sharding::iota_tiled({1, 4, 1, 1}), cores);
  const auto sf = ShardedTensor::shard(f, Sharding::replicated(), cores);
  const auto dy = ShardedTensor::shard(Tensor::from_vector(ones_y, {1, 4, 1, 1}), sx.sharding(), cores);
  const ConvWindow window{"SAME", {2, 2}, {1, 1}};
  const auto dx = conv2d_input_grad(ctx, sx, sf, dy, window);
  EXPECT_EQ(dx.assemble().to_vector<float>(), (std::vector<float>{1, 1, 2, 1, 2, 1, 2, 1}));
  EXPECT_EQ(dx.shards()[1].to_vector<float>(), (std::vector<float>{2, 1}));
  const auto c = ctx.record().collectives();
  ASSERT_EQ(c.size(), 1u);
  EXPECT_NE(c[0]->rule.find("halo of 1 along dimension 1 from the previous tile"), std::string::npos) << c[0]->rule;
  EXPECT_EQ(c[0]->pairs, (std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {2, 3}}));
  EXPECT_EQ(c[0]->operand_shape, (Shape{1, 1, 1, 1}));
}

TEST(ConvWindowErrors, BadWindowsAreTypedErrors) {
  const auto cores = make_cores(2);
  const auto sx = ShardedTensor::shard(random_tensor({1, 4, 4, 2}), Sharding::iota_tiled({1, 2, 1, 1}), cores);
  const auto sf = ShardedTensor::shard(random_tensor({3, 3, 2, 1}), Sharding::replicated(), cores);
  SpmdContext ctx(cores);
  EXPECT_THROW(conv2d(ctx, sx, sf, {"SAME", {0, 1}, {1, 1}}), InvalidArgumentError);
  EXPECT_THROW(conv2d(ctx, sx, sf, {"SAME", {1, 1}, {1, -1}}), InvalidArgumentError);
  EXPECT_THROW(conv2d(ctx, sx, sf, {"FULL"}), InvalidArgumentError);
}

}  // namespace
}  // namespace tpustrategy::spmd
