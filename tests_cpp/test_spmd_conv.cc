// spmd/ partitioned conv2d: inputs split over height and width (the seed's [1, 2, 4, 1] over 8 cores and
// 1-D / 2-D splits over 2 and 4) exchange halos by collective-permute and give the unpartitioned
// convolution; the halos are exactly the neighbours' edge rows (zeros at the border), and the filter
// gradient equals the unpartitioned one.
#include <gtest/gtest.h>

#include "spmd_test_util.h"
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
    const auto y = conv2d(ctx, sx, sf, same ? "SAME" : "VALID");
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
    const auto df = conv2d_filter_grad(ctx, sx, sf, ShardedTensor::shard(dy, y.sharding(), cores), same ? "SAME" : "VALID");
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
  EXPECT_THROW(halo_exchange(ctx, ShardedTensor::shard(x, Sharding::iota_tiled({4}), cores), 0, 5, 0), InvalidArgumentError);
}

}  // namespace
}  // namespace tpustrategy::spmd
