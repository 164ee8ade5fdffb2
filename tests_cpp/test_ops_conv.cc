// Convolutions, pooling, top_k and random kernels: forward values against direct loops, every gradient (and
// the backprops' own gradients) against float64 central differences, TF's errors, Philox known answers.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "gradient_check.h"
#include "tpustrategy/autodiff/gradient_registry.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/conv.h"
#include "tpustrategy/ops/pool.h"
#include "tpustrategy/ops/random.h"
#include "tpustrategy/ops/shape_ops.h"
#include "tpustrategy/ops/top_k.h"

namespace tpustrategy {
namespace {

using testing::expect_gradients_match;
using testing::uniform;
using testing::values;
using V = const std::vector<Tensor>&;

Window2D window(std::int64_t kh, std::int64_t kw, PaddingKind pad, const Shape& in, std::array<std::int64_t, 2> s,
                std::array<std::int64_t, 2> d = {1, 1}, std::array<std::int64_t, 4> pads = {0, 0, 0, 0}) {
  return make_window("test", in[1], in[2], kh, kw, s, d, pad, pads);
}

// The convolution by its definition (groups included), in double.
std::vector<double> reference_conv(const Tensor& x, const Tensor& f, const Window2D& w) {
  const Shape& s = x.shape();
  const std::int64_t n = s[0], h = s[1], wd = s[2], c = s[3];
  const std::int64_t cg = f.shape()[2], o = f.shape()[3], groups = c / cg, og = o / groups;
  const std::int64_t oh = w.out_h(h), ow = w.out_w(wd);
  const auto xv = values(x), fv = values(f);
  std::vector<double> out(static_cast<std::size_t>(n * oh * ow * o));
  for (std::int64_t b = 0; b < n; ++b)
    for (std::int64_t y = 0; y < oh; ++y)
      for (std::int64_t xx = 0; xx < ow; ++xx)
        for (std::int64_t oc = 0; oc < o; ++oc) {
          double acc = 0;
          const std::int64_t gi = oc / og;
          for (std::int64_t ky = 0; ky < w.kh; ++ky)
            for (std::int64_t kx = 0; kx < w.kw; ++kx) {
              const std::int64_t iy = y * w.sh - w.pt + ky * w.dh, ix = xx * w.sw - w.pl + kx * w.dw;
              if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
              for (std::int64_t ci = 0; ci < cg; ++ci)
                acc += xv[((b * h + iy) * wd + ix) * c + gi * cg + ci] * fv[((ky * w.kw + kx) * cg + ci) * o + oc];
            }
          out[((b * oh + y) * ow + xx) * o + oc] = acc;
        }
  return out;
}

// One convolution: input and filter shapes, padding, strides, dilations, explicit paddings.
struct ConvCase {
  Shape in, filter;
  PaddingKind pad;
  std::array<std::int64_t, 2> s, d;
  std::array<std::int64_t, 4> pads;
};

void expect_near_all(const std::vector<double>& a, const std::vector<double>& b, double tol) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol) << "element " << i;
}

TEST(Window, SameValidExplicitSizes) {
  // TF: SAME -> ceil(in / stride), padding split with the extra element after.
  Window2D w = window(3, 3, PaddingKind::kSame, {1, 5, 6, 1}, {2, 2});
  EXPECT_EQ(w.out_h(5), 3);
  EXPECT_EQ(w.out_w(6), 3);
  EXPECT_EQ(w.pt, 1);
  EXPECT_EQ(w.pb, 1);
  EXPECT_EQ(w.pl, 0);
  EXPECT_EQ(w.pr, 1);
  Window2D v = window(3, 3, PaddingKind::kValid, {1, 2, 2, 1}, {1, 1});
  EXPECT_EQ(v.out_h(2), 0);  // kernel larger than the input: empty output, as TF
  Window2D e = window(3, 3, PaddingKind::kExplicit, {1, 5, 5, 1}, {1, 1}, {1, 1}, {1, 2, 0, 1});
  EXPECT_EQ(e.out_h(5), 6);
  EXPECT_EQ(e.out_w(5), 4);
  EXPECT_THROW(padding_kind("same"), InvalidArgumentError);
  EXPECT_THROW(window(3, 3, PaddingKind::kSame, {1, 5, 5, 1}, {0, 1}), InvalidArgumentError);
  EXPECT_THROW(window(3, 3, PaddingKind::kExplicit, {1, 5, 5, 1}, {1, 1}, {1, 1}, {0, -1, 0, 0}), InvalidArgumentError);
}

TEST(Conv2D, MatchesDefinitionAcrossPaddingStridesDilationsGroups) {
  const ConvCase cases[] = {
      {{2, 5, 6, 3}, {3, 3, 3, 4}, PaddingKind::kSame, {1, 1}, {1, 1}, {}},
      {{1, 7, 7, 2}, {3, 2, 2, 3}, PaddingKind::kValid, {2, 3}, {1, 1}, {}},
      {{1, 7, 8, 2}, {3, 3, 2, 2}, PaddingKind::kSame, {1, 1}, {2, 2}, {}},
      {{1, 6, 6, 2}, {2, 2, 2, 2}, PaddingKind::kSame, {2, 2}, {2, 1}, {}},
      {{1, 5, 5, 2}, {3, 3, 2, 4}, PaddingKind::kExplicit, {1, 1}, {1, 1}, {0, 2, 1, 1}},
      {{2, 4, 4, 4}, {3, 3, 2, 6}, PaddingKind::kSame, {1, 1}, {1, 1}, {}},   // 2 groups
      {{2, 3, 3, 4}, {1, 1, 4, 5}, PaddingKind::kValid, {1, 1}, {1, 1}, {}},  // 1x1: no im2col
  };
  for (const ConvCase& c : cases) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      const Tensor x = cast(uniform(c.in, -1, 1, 3), dt), f = cast(uniform(c.filter, -1, 1, 4), dt);
      const Window2D w = window(c.filter[0], c.filter[1], c.pad, c.in, c.s, c.d, c.pads);
      const Tensor y = conv2d(x, f, w);
      EXPECT_EQ(y.dtype(), dt);
      EXPECT_EQ(y.shape(), (Shape{c.in[0], w.out_h(c.in[1]), w.out_w(c.in[2]), c.filter[3]}));
      expect_near_all(values(y), reference_conv(x, f, w), dt == DType::kFloat32 ? 1e-5 : 1e-12);
    }
  }
}

TEST(Conv2D, LargeBatchesRunInBlocksWithTheSameResult) {
  // 3 x 64 x 64 x 256 with a 3x3 filter: each item's im2col block is 9.4M elements, over the 2^24 cap for
  // two items, so the kernels run one batch item per block. Each item alone is the unblocked path.
  const Tensor x = uniform({3, 64, 64, 256}, -1, 1, 41), f = uniform({3, 3, 256, 2}, -1, 1, 42);
  const Window2D w = window(3, 3, PaddingKind::kSame, x.shape(), {1, 1});
  const Tensor y = conv2d(x, f, w);
  const Tensor dy = uniform(y.shape(), -1, 1, 43);
  const Tensor dx = conv2d_backprop_input(x.shape(), f, dy, w);
  const Tensor df = conv2d_backprop_filter(x, f.shape(), dy, w);
  std::vector<double> df_sum(static_cast<std::size_t>(f.num_elements()), 0.0);
  for (std::int64_t b = 0; b < 3; ++b) {
    const Tensor xb = slice(x, {b, 0, 0, 0}, {1, 64, 64, 256}), dyb = slice(dy, {b, 0, 0, 0}, {1, 64, 64, 2});
    EXPECT_EQ(values(conv2d(xb, f, w)), values(slice(y, {b, 0, 0, 0}, {1, 64, 64, 2})));
    EXPECT_EQ(values(conv2d_backprop_input(xb.shape(), f, dyb, w)), values(slice(dx, {b, 0, 0, 0}, {1, 64, 64, 256})));
    const auto part = values(conv2d_backprop_filter(xb, f.shape(), dyb, w));
    for (std::size_t i = 0; i < part.size(); ++i) df_sum[i] += part[i];
  }
  expect_near_all(values(df), df_sum, 1e-9);
}

TEST(Conv2D, RowBlocksOfTheReceptiveFieldMatrixGiveTheDefinition) {
  // 4 x 16 x 16 x 64 with a 3x3 filter: 1,024 rows of 576 elements, built a few hundred rows at a time (the last
  // block partial) for the forward GEMM and the filter gradient and, per batch item, for the input gradient.
  const Tensor x64 = uniform({4, 16, 16, 64}, -1, 1, 51), f64 = uniform({3, 3, 64, 8}, -1, 1, 52);
  const Window2D w = window(3, 3, PaddingKind::kSame, x64.shape(), {1, 1});
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    const Tensor x = cast(x64, dt), f = cast(f64, dt);
    expect_near_all(values(conv2d(x, f, w)), reference_conv(x, f, w), dt == DType::kFloat32 ? 1e-4 : 1e-11);
  }
  // <conv2d(x, f), y> == <x, backprop_input(y)> == <f, backprop_filter(x, y)>: the blocked gradients (the filter's
  // summed over blocks in chunks) are the forward's adjoints.
  const Tensor y = uniform(conv2d(x64, f64, w).shape(), -1, 1, 53);
  const auto dot = [](const Tensor& a, const Tensor& b) {
    const auto av = values(a), bv = values(b);
    double sum = 0;
    for (std::size_t i = 0; i < av.size(); ++i) sum += av[i] * bv[i];
    return sum;
  };
  const double lhs = dot(conv2d(x64, f64, w), y);
  EXPECT_NEAR(lhs, dot(x64, conv2d_backprop_input(x64.shape(), f64, y, w)), 1e-9 * std::abs(lhs));
  EXPECT_NEAR(lhs, dot(f64, conv2d_backprop_filter(x64, f64.shape(), y, w)), 1e-9 * std::abs(lhs));
}

TEST(Conv2D, HalfAndIntegerInputs) {
  const Tensor x = uniform({1, 4, 4, 2}, -1, 1, 5), f = uniform({2, 2, 2, 3}, -1, 1, 6);
  const Window2D w = window(2, 2, PaddingKind::kSame, x.shape(), {1, 1});
  const Tensor yh = conv2d(cast(x, DType::kFloat16), cast(f, DType::kFloat16), w);
  EXPECT_EQ(yh.dtype(), DType::kFloat16);
  expect_near_all(values(yh), reference_conv(x, f, w), 1e-2);
  const Tensor xi = testing::i32({1, 2, 3, 4}, {1, 2, 2, 1}), fi = testing::i32({1, 1, 1, 1}, {2, 2, 1, 1});
  EXPECT_EQ(values(conv2d(xi, fi, window(2, 2, PaddingKind::kValid, xi.shape(), {1, 1}))), (std::vector<double>{10}));
}

TEST(Conv2D, ErrorsAsTensorFlow) {
  const Tensor x = uniform({1, 5, 5, 2}, -1, 1), f = uniform({3, 3, 2, 4}, -1, 1);
  const Window2D w = window(3, 3, PaddingKind::kSame, x.shape(), {1, 1});
  EXPECT_THROW(conv2d(uniform({5, 5, 2}, 0, 1), f, w), InvalidArgumentError);
  EXPECT_THROW(conv2d(uniform({1, 5, 5, 3}, 0, 1), f, w), InvalidArgumentError);  // 3 % 2 != 0
  EXPECT_THROW(conv2d(x, cast(f, DType::kFloat32), w), InvalidArgumentError);     // dtypes differ
  EXPECT_THROW(conv2d(cast(x, DType::kInt64), cast(f, DType::kInt64), w), InvalidArgumentError);
  EXPECT_THROW(depthwise_conv2d(x, uniform({3, 3, 3, 2}, 0, 1), w), InvalidArgumentError);
  EXPECT_THROW(conv2d_backprop_input(x.shape(), f, uniform({1, 4, 5, 4}, 0, 1), w), InvalidArgumentError);
  EXPECT_THROW(avg_pool2d(cast(x, DType::kInt32), window(2, 2, PaddingKind::kSame, x.shape(), {1, 1})),
               InvalidArgumentError);
}

TEST(ConvGradients, Conv2DAllPaddingsStridesDilationsGroups) {
  const ConvCase cases[] = {
      {{2, 4, 5, 2}, {3, 3, 2, 3}, PaddingKind::kSame, {1, 1}, {1, 1}, {}},
      {{1, 5, 5, 2}, {2, 3, 2, 2}, PaddingKind::kValid, {2, 2}, {1, 1}, {}},
      {{1, 6, 5, 1}, {2, 2, 1, 2}, PaddingKind::kSame, {1, 1}, {2, 2}, {}},
      {{1, 4, 4, 2}, {3, 3, 2, 2}, PaddingKind::kExplicit, {2, 1}, {1, 1}, {1, 0, 2, 1}},
      {{1, 3, 3, 4}, {2, 2, 2, 4}, PaddingKind::kSame, {1, 1}, {1, 1}, {}},  // groups
  };
  for (const ConvCase& c : cases) {
    const Window2D w = window(c.filter[0], c.filter[1], c.pad, c.in, c.s, c.d, c.pads);
    expect_gradients_match([w](V v) { return op::conv2d(v[0], v[1], w); },
                           {uniform(c.in, -1, 1, 8), uniform(c.filter, -1, 1, 9)});
  }
}

TEST(ConvGradients, BackpropOpsAreDifferentiable) {
  // Second order: the backprops' own gradients, as nested tapes use them.
  const Shape in{1, 4, 4, 2}, fs{3, 3, 2, 2};
  const Window2D w = window(3, 3, PaddingKind::kSame, in, {2, 2});
  const Shape out{1, w.out_h(4), w.out_w(4), 2};
  expect_gradients_match([&](V v) { return op::conv2d_backprop_input(in, v[0], v[1], w); },
                         {uniform(fs, -1, 1, 1), uniform(out, -1, 1, 2)});
  expect_gradients_match([&](V v) { return op::conv2d_backprop_filter(v[0], fs, v[1], w); },
                         {uniform(in, -1, 1, 3), uniform(out, -1, 1, 4)});
  const Shape dfs{3, 3, 2, 2};
  const Shape dout{1, w.out_h(4), w.out_w(4), 4};
  expect_gradients_match([&](V v) { return op::depthwise_conv2d_backprop_input(in, v[0], v[1], w); },
                         {uniform(dfs, -1, 1, 5), uniform(dout, -1, 1, 6)});
  expect_gradients_match([&](V v) { return op::depthwise_conv2d_backprop_filter(v[0], dfs, v[1], w); },
                         {uniform(in, -1, 1, 7), uniform(dout, -1, 1, 8)});
}

TEST(DepthwiseConv2D, MatchesGroupedConvolutionAndGradients) {
  // depthwise with multiplier m equals a grouped convolution with one group per channel.
  const Tensor x = uniform({2, 5, 5, 3}, -1, 1, 11), f = uniform({3, 3, 3, 2}, -1, 1, 12);
  for (PaddingKind pad : {PaddingKind::kSame, PaddingKind::kValid}) {
    const Window2D w = window(3, 3, pad, x.shape(), {2, 2}, {1, 1});
    const Tensor grouped = op::reshape(f, {3, 3, 1, 6});
    expect_near_all(values(depthwise_conv2d(x, f, w)), values(conv2d(x, grouped, w)), 1e-12);
    expect_gradients_match([w](V v) { return op::depthwise_conv2d(v[0], v[1], w); }, {x, f});
  }
  const Window2D dil = window(2, 2, PaddingKind::kSame, x.shape(), {1, 1}, {2, 2});
  expect_gradients_match([dil](V v) { return op::depthwise_conv2d(v[0], v[1], dil); },
                         {x, uniform({2, 2, 3, 1}, -1, 1, 13)});
}

TEST(Pooling, ValuesAsTensorFlow) {
  // TF 2.21: avg_pool2d(range(16) as [1, 4, 4, 1], 3, 2, SAME) == [[5, 6.5], [11, 12.5]].
  std::vector<double> r(16);
  for (int i = 0; i < 16; ++i) r[i] = i;
  const Tensor x = testing::f64(r, {1, 4, 4, 1});
  const Window2D w = window(3, 3, PaddingKind::kSame, x.shape(), {2, 2});
  EXPECT_EQ(values(avg_pool2d(x, w)), (std::vector<double>{5, 6.5, 11, 12.5}));
  EXPECT_EQ(values(max_pool2d(x, w)), (std::vector<double>{10, 11, 14, 15}));
  const Tensor neg = testing::f64({-1, -2, -3, -4}, {1, 2, 2, 1});  // padding never wins a max
  EXPECT_EQ(values(max_pool2d(neg, window(3, 3, PaddingKind::kSame, neg.shape(), {1, 1}))),
            (std::vector<double>{-1, -1, -1, -1}));
  const Tensor xi = testing::i32({3, 1, 4, 1}, {1, 2, 2, 1});
  EXPECT_EQ(values(max_pool2d(xi, window(2, 2, PaddingKind::kValid, xi.shape(), {1, 1}))), (std::vector<double>{4}));
}

TEST(Pooling, Gradients) {
  const Tensor x = uniform({2, 5, 4, 2}, -1, 1, 21);  // distinct values: no ties at the max
  for (PaddingKind pad : {PaddingKind::kSame, PaddingKind::kValid}) {
    for (std::array<std::int64_t, 2> s : {std::array<std::int64_t, 2>{1, 1}, std::array<std::int64_t, 2>{2, 2}}) {
      const Window2D w = window(2, 3, pad, x.shape(), s);
      expect_gradients_match([w](V v) { return op::max_pool2d(v[0], w); }, {x});
      expect_gradients_match([w](V v) { return op::avg_pool2d(v[0], w); }, {x});
      const Shape out{2, w.out_h(5), w.out_w(4), 2};
      expect_gradients_match([&](V v) { return op::avg_pool2d_grad(x.shape(), v[0], w); }, {uniform(out, -1, 1, 2)});
      expect_gradients_match([&](V v) { return op::max_pool2d_grad(x, v[0], w); }, {uniform(out, -1, 1, 3)});
      expect_gradients_match([&](V v) { return op::max_pool2d_grad_grad(x, v[0], w); }, {uniform(x.shape(), -1, 1, 4)});
    }
  }
}

TEST(Pooling, MaxGradientGoesToFirstMaximum) {
  const Tensor x = testing::f64({2, 2, 1, 2}, {1, 2, 2, 1});
  const Window2D w = window(2, 2, PaddingKind::kValid, x.shape(), {1, 1});
  EXPECT_EQ(values(max_pool2d_grad(x, testing::f64({1}, {1, 1, 1, 1}), w)), (std::vector<double>{1, 0, 0, 0}));
}

TEST(ConvGradients, Registered) {
  const auto names = ops_with_gradients();
  const std::set<std::string_view> have(names.begin(), names.end());
  for (std::string_view op : {"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "DepthwiseConv2dNative",
                              "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter", "MaxPool",
                              "MaxPoolGrad", "MaxPoolGradGrad", "AvgPool", "AvgPoolGrad", "TopKV2"}) {
    EXPECT_TRUE(have.count(op)) << op;
  }
}

TEST(TopK, ValuesIndicesTiesAndErrors) {
  const Tensor x = testing::f64({1, 3, 3, -1, 2, 0.5, 0.5, 0.5, 0.5, 0.5}, {2, 5});
  auto [v, i] = top_k(x, 3);
  EXPECT_EQ(values(v), (std::vector<double>{3, 3, 2, 0.5, 0.5, 0.5}));
  EXPECT_EQ(values(i), (std::vector<double>{1, 2, 4, 0, 1, 2}));  // ties: lower index first
  EXPECT_EQ(i.dtype(), DType::kInt32);
  EXPECT_EQ(top_k(x, 0).first.shape(), (Shape{2, 0}));
  EXPECT_EQ(top_k(x, 2, DType::kInt64).second.dtype(), DType::kInt64);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto [nv, ni] = top_k(testing::f64({1, nan, 3, -1, nan}, {5}), 3);
  EXPECT_EQ(values(ni), (std::vector<double>{1, 4, 2}));  // NaNs first, by index: a well-defined order
  EXPECT_THROW(top_k(x, 6), InvalidArgumentError);
  EXPECT_THROW(top_k(x, -1), InvalidArgumentError);
  EXPECT_THROW(top_k(testing::f64({1}, {}), 1), InvalidArgumentError);
}

TEST(TopK, Gradient) {
  expect_gradients_match([](V v) { return op::top_k(v[0], 2).first; }, {uniform({3, 2, 5}, -1, 1, 31)});
  expect_gradients_match([](V v) { return op::top_k(v[0], 4).first; }, {uniform({4}, -1, 1, 32)});
}

TEST(Random, PhiloxKnownAnswer) {
  // Random123's known-answer vector for Philox4x32-10 with zero counter and key.
  const auto out = philox4x32({0, 0, 0, 0}, {0, 0});
  EXPECT_EQ(out, (std::array<std::uint32_t, 4>{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
}

TEST(Random, DeterministicAndDistributed) {
  const Tensor a = random_float({20000}, DType::kFloat64, RandomDistribution::kUniform, 42, 0);
  const Tensor b = random_float({20000}, DType::kFloat64, RandomDistribution::kUniform, 42, 0);
  const Tensor c = random_float({20000}, DType::kFloat64, RandomDistribution::kUniform, 42, 1);
  EXPECT_EQ(values(a), values(b));
  EXPECT_NE(values(a), values(c));
  double mean = 0;
  for (double v : values(a)) {
    ASSERT_GE(v, 0.0);
    ASSERT_LT(v, 1.0);
    mean += v / 20000;
  }
  EXPECT_NEAR(mean, 0.5, 0.01);
  const auto n = values(random_float({20000}, DType::kFloat32, RandomDistribution::kNormal, 7, 0));
  double m = 0, sq = 0;
  for (double v : n) m += v / n.size();
  for (double v : n) sq += (v - m) * (v - m) / n.size();
  EXPECT_NEAR(m, 0.0, 0.03);
  EXPECT_NEAR(sq, 1.0, 0.03);
  for (double v : values(random_float({5000}, DType::kFloat32, RandomDistribution::kTruncatedNormal, 7, 0))) {
    ASSERT_LE(std::abs(v), 2.0);
  }
  for (double v : values(random_int({5000}, DType::kInt32, -3, 4, 1, 0))) {
    ASSERT_GE(v, -3);
    ASSERT_LT(v, 4);
  }
  EXPECT_THROW(random_int({2}, DType::kInt32, 4, 4, 1, 0), InvalidArgumentError);
  EXPECT_THROW(random_float({2}, DType::kInt32, RandomDistribution::kNormal, 1, 0), TypeError);
}

}  // namespace
}  // namespace tpustrategy
