// matmul's row split over the pool and its float16 / bfloat16 path: every row computed once, the same
// bits wherever the call runs, and half-precision products rounded exactly as cast(float32 product).
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "ops_test_util.h"
#include "tpustrategy/ops/cast.h"
#include "tpustrategy/ops/matmul.h"
#include "tpustrategy/parallel/worker_pool.h"

namespace tpustrategy {
namespace {

using namespace tpustrategy::testing;

Tensor random_f32(Shape shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> v(static_cast<std::size_t>(num_elements(shape)));
  for (auto& x : v) x = normal(rng);
  return f32(std::move(v), std::move(shape));
}

bool same_bits(const Tensor& x, const Tensor& y) {
  return x.dtype() == y.dtype() && x.shape() == y.shape() &&
         std::memcmp(x.raw_data(), y.raw_data(), static_cast<std::size_t>(x.nbytes())) == 0;
}

// Row counts around the task sizes (64 / 128 rows, one or two tasks per thread) and the per-task grain.
TEST(MatMulSplit, EveryRowMatchesADoubleReference) {
  for (std::int64_t m : {1, 63, 64, 65, 127, 128, 129, 255, 256, 257, 600}) {
    for (auto [n, k] : {std::pair<std::int64_t, std::int64_t>{96, 80}, {8, 5}, {300, 256}}) {
      const Tensor a = random_f32({m, k}, 1), b = random_f32({k, n}, 2);
      const std::vector<double> c = values(matmul(a, b)), av = values(a), bv = values(b);
      for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; j += 7) {
          double s = 0;
          for (std::int64_t p = 0; p < k; ++p) s += av[i * k + p] * bv[p * n + j];
          ASSERT_NEAR(c[i * n + j], s, 1e-4 * std::sqrt(double(k))) << "m=" << m << " n=" << n << " k=" << k;
        }
      }
    }
  }
}

// The split depends on the shapes and the pool size only: a call made inside a pool task (which runs
// inline, on one thread) gives the bits of the same call made from outside, split over the pool.
TEST(MatMulSplit, SameBitsInlineAndOnThePool) {
  for (std::int64_t size : {128, 256, 384}) {
    const Tensor a = random_f32({size, size}, 3), b = random_f32({size, size}, 4);
    for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kBFloat16}) {
      const Tensor x = cast(a, dt), y = cast(b, dt);
      const Tensor pooled = matmul(x, y, false, true);
      Tensor nested;
      parallel_for(2, 1, [&](std::int64_t begin, std::int64_t) {
        if (begin == 0) nested = matmul(x, y, false, true);
      });
      EXPECT_TRUE(same_bits(pooled, nested)) << size << " " << dtype_name(dt);
    }
  }
}

// float16 / bfloat16 round the float32 product once, each task its own rows: the bits of
// cast(matmul(float32 operands)), including NaN, infinities, overflow to inf and subnormal results.
TEST(MatMulSplit, HalfPrecisionRoundsLikeCastOfTheFloat32Product) {
  Tensor a = random_f32({2, 1, 200, 70}, 5), b = random_f32({3, 70, 130}, 6);
  float* pa = a.mutable_data<float>();
  pa[0] = std::numeric_limits<float>::quiet_NaN();
  pa[71] = std::numeric_limits<float>::infinity();
  pa[150] = 3e38f;  // the row's products overflow bfloat16 / float16
  pa[300] = 1e-39f;
  b.mutable_data<float>()[5] = 1e-30f;
  for (DType dt : {DType::kBFloat16, DType::kFloat16}) {
    const Tensor x = cast(a, dt), y = cast(b, dt);
    for (bool ta : {false, true}) {
      const Tensor xa = ta ? cast(random_f32({2, 1, 70, 200}, 7), dt) : x;
      for (bool tb : {false, true}) {
        const Tensor yb = tb ? cast(random_f32({3, 130, 70}, 8), dt) : y;
        const Tensor got = matmul(xa, yb, ta, tb);
        const Tensor expected = cast(matmul(cast(xa, DType::kFloat32), cast(yb, DType::kFloat32), ta, tb), dt);
        EXPECT_EQ(got.shape(), (Shape{2, 3, 200, 130}));
        EXPECT_TRUE(same_bits(got, expected)) << dtype_name(dt) << " ta=" << ta << " tb=" << tb;
      }
    }
  }
  EXPECT_EQ(matmul(Tensor::empty(DType::kBFloat16, {0, 4}), cast(random_f32({4, 3}, 9), DType::kBFloat16)).shape(),
            (Shape{0, 3}));
  EXPECT_EQ(values(matmul(cast(f32({}, {2, 0}), DType::kBFloat16), cast(f32({}, {0, 2}), DType::kBFloat16))),
            (std::vector<double>{0, 0, 0, 0}));
}

// Widening bfloat16 to float32 (vectorized on the raw bits) keeps every pattern, NaN payloads included.
TEST(MatMulSplit, BFloat16WideningKeepsEveryBitPattern) {
  Tensor all = Tensor::empty(DType::kBFloat16, {65536});
  auto* p = all.mutable_data<Eigen::bfloat16>();
  for (std::uint32_t i = 0; i < 65536; ++i) p[i] = Eigen::numext::bit_cast<Eigen::bfloat16>(std::uint16_t(i));
  const Tensor wide = cast(all, DType::kFloat32);
  const float* w = wide.data<float>();
  for (std::uint32_t i = 0; i < 65536; ++i) {
    const float expected = static_cast<float>(p[i]);
    ASSERT_EQ(std::memcmp(&w[i], &expected, sizeof(float)), 0) << "bits " << i;
  }
}

}  // namespace
}  // namespace tpustrategy
