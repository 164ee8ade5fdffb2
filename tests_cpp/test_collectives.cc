// Cross-replica kernels over raw buffers: every op x dtype against hand-computed values, sizes on
// both sides of the inline / pooled split, subgroup-sized groups, orderings and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "tpustrategy/collectives/kernels.h"
#include "tpustrategy/collectives/reduce_op.h"
#include "tpustrategy/core/errors.h"

namespace tpustrategy {
namespace {

template <typename T>
std::vector<const void*> inputs_of(const std::vector<std::vector<T>>& buffers) {
  std::vector<const void*> ptrs;
  for (const auto& b : buffers) ptrs.push_back(b.data());
  return ptrs;
}

template <typename T>
std::vector<void*> outputs_of(std::vector<std::vector<T>>& buffers) {
  std::vector<void*> ptrs;
  for (auto& b : buffers) ptrs.push_back(b.data());
  return ptrs;
}

template <typename T>
std::vector<T> reduce(const std::vector<std::vector<T>>& in, CollectiveOp op) {
  std::vector<T> out(in[0].size());
  all_reduce(dtype_of<T>(), inputs_of(in), static_cast<std::int64_t>(out.size()), op, out.data());
  return out;
}

// ---- names ----

TEST(ReduceOpTest, NamesRoundTrip) {
  for (CollectiveOp op : kAllCollectiveOps) EXPECT_EQ(collective_op_from_name(collective_op_name(op)), op);
  EXPECT_EQ(collective_op_from_name("mean"), CollectiveOp::kMean);
  EXPECT_EQ(collective_op_name(CollectiveOp::kProd), "PROD");
  EXPECT_THROW(collective_op_from_name("AVG"), ValueError);
}

// ---- all_reduce: every op x numeric dtype, hand-computed ----

template <typename T>
class AllReduceNumericTest : public ::testing::Test {};
using NumericTypes = ::testing::Types<std::int32_t, std::int64_t, float, double>;
TYPED_TEST_SUITE(AllReduceNumericTest, NumericTypes);

TYPED_TEST(AllReduceNumericTest, EveryOpMatchesHandComputedValues) {
  using T = TypeParam;
  const std::vector<std::vector<T>> in = {{2, -7, 3, 1}, {5, 4, -1, 1}, {-3, -4, 2, 1}};
  EXPECT_EQ(reduce(in, CollectiveOp::kSum), (std::vector<T>{4, -7, 4, 3}));
  EXPECT_EQ(reduce(in, CollectiveOp::kMax), (std::vector<T>{5, 4, 3, 1}));
  EXPECT_EQ(reduce(in, CollectiveOp::kMin), (std::vector<T>{-3, -7, -1, 1}));
  EXPECT_EQ(reduce(in, CollectiveOp::kProd), (std::vector<T>{-30, 112, -6, 1}));
  std::vector<T> mean = reduce(in, CollectiveOp::kMean);
  if constexpr (std::is_integral_v<T>) {
    // TF's integer Div truncates toward zero: -7 / 3 = -2, not -3.
    EXPECT_EQ(mean, (std::vector<T>{1, -2, 1, 1}));
  } else {
    EXPECT_EQ(mean, (std::vector<T>{T(4) / T(3), T(-7) / T(3), T(4) / T(3), T(1)}));
  }
}

TYPED_TEST(AllReduceNumericTest, SingleParticipantIsIdentityAndMeanDividesByOne) {
  using T = TypeParam;
  const std::vector<std::vector<T>> in = {{3, -1, 8}};
  for (CollectiveOp op : kAllCollectiveOps) EXPECT_EQ(reduce(in, op), in[0]) << collective_op_name(op);
}

TEST(AllReduceTest, IntegerSumWrapsAroundLikeTF) {
  const std::vector<std::vector<std::int32_t>> in = {{INT32_MAX, INT32_MIN}, {1, -1}};
  EXPECT_EQ(reduce(in, CollectiveOp::kSum), (std::vector<std::int32_t>{INT32_MIN, INT32_MAX}));
  const std::vector<std::vector<std::int64_t>> big = {{INT64_MAX}, {2}};
  EXPECT_EQ(reduce(big, CollectiveOp::kProd), (std::vector<std::int64_t>{-2}));
}

TEST(AllReduceTest, FloatMaxAndMinPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<std::vector<float>> in = {{1, nan}, {nan, 2}, {0, 3}};
  for (CollectiveOp op : {CollectiveOp::kMax, CollectiveOp::kMin}) {
    std::vector<float> out = reduce(in, op);
    EXPECT_TRUE(std::isnan(out[0]) && std::isnan(out[1])) << collective_op_name(op);
  }
}

// ---- half types: accumulate in float32, round once ----

template <typename T>
class AllReduceHalfTest : public ::testing::Test {};
using HalfTypes = ::testing::Types<Eigen::half, Eigen::bfloat16>;
TYPED_TEST_SUITE(AllReduceHalfTest, HalfTypes);

TYPED_TEST(AllReduceHalfTest, EveryOpMatchesHandComputedValues) {
  using T = TypeParam;
  auto v = [](std::initializer_list<float> xs) {
    std::vector<T> out;
    for (float x : xs) out.push_back(T(x));
    return out;
  };
  const std::vector<std::vector<T>> in = {v({1.5f, -2.f, 4.f}), v({2.f, 3.f, -0.5f}), v({-0.5f, 1.f, 2.f})};
  EXPECT_EQ(reduce(in, CollectiveOp::kSum), v({3.f, 2.f, 5.5f}));
  EXPECT_EQ(reduce(in, CollectiveOp::kMax), v({2.f, 3.f, 4.f}));
  EXPECT_EQ(reduce(in, CollectiveOp::kMin), v({-0.5f, -2.f, -0.5f}));
  EXPECT_EQ(reduce(in, CollectiveOp::kProd), v({-1.5f, -6.f, -4.f}));
  // MEAN rounds the float32 quotient once: 2/3 and 5.5/3 are not representable.
  EXPECT_EQ(reduce(in, CollectiveOp::kMean), (std::vector<T>{T(1.f), T(2.f / 3.f), T(5.5f / 3.f)}));
}

TYPED_TEST(AllReduceHalfTest, AccumulatesInFloat32) {
  using T = TypeParam;
  // Spacing of representable values is 2 at 2048 (float16) and at 256 (bfloat16). Adding the ones one
  // at a time in the narrow type would round each partial sum back down; float32 accumulation keeps them.
  const float big = std::is_same_v<T, Eigen::half> ? 2048.f : 256.f;
  const std::vector<std::vector<T>> in = {{T(big)}, {T(1.f)}, {T(1.f)}};
  EXPECT_EQ(static_cast<float>(T(big + 1.f)), big);  // the narrow type really rounds
  EXPECT_EQ(static_cast<float>(reduce(in, CollectiveOp::kSum)[0]), big + 2.f);
  EXPECT_EQ(static_cast<float>(reduce(in, CollectiveOp::kMean)[0]), static_cast<float>(T((big + 2.f) / 3.f)));
}

// ---- bool: or / and ----

TEST(AllReduceTest, BoolSumMaxAreOrProdMinAreAnd) {
  bool a[] = {false, true, false, true};
  bool b[] = {false, false, true, true};
  const void* in[] = {a, b};
  bool out[4];
  for (CollectiveOp op : {CollectiveOp::kSum, CollectiveOp::kMax}) {
    all_reduce(DType::kBool, in, 4, op, out);
    EXPECT_EQ(std::vector<bool>(out, out + 4), (std::vector<bool>{false, true, true, true}));
  }
  for (CollectiveOp op : {CollectiveOp::kProd, CollectiveOp::kMin}) {
    all_reduce(DType::kBool, in, 4, op, out);
    EXPECT_EQ(std::vector<bool>(out, out + 4), (std::vector<bool>{false, false, false, true}));
  }
  EXPECT_THROW(all_reduce(DType::kBool, in, 4, CollectiveOp::kMean, out), InvalidArgumentError);
}

TEST(AllReduceTest, BoolLargeBufferPooledPath) {
  const std::int64_t count = 300001;
  std::vector<std::unique_ptr<bool[]>> bufs;
  std::vector<const void*> in;
  for (int i = 0; i < 3; ++i) {
    bufs.emplace_back(new bool[count]);
    for (std::int64_t k = 0; k < count; ++k) bufs.back()[k] = (k % 3) == i || (k % 7) == 0;
    in.push_back(bufs.back().get());
  }
  std::unique_ptr<bool[]> out(new bool[count]);
  all_reduce(DType::kBool, in, count, CollectiveOp::kMin, out.get());
  for (std::int64_t k = 0; k < count; ++k) ASSERT_EQ(out[k], k % 7 == 0) << k;
  all_reduce(DType::kBool, in, count, CollectiveOp::kSum, out.get());
  for (std::int64_t k = 0; k < count; ++k) ASSERT_TRUE(out[k]) << k;
}

// ---- sizes across the inline / pooled split, participant counts, in place ----

struct SizeCase {
  std::int64_t count;
  int n;
};

class AllReduceSizeTest : public ::testing::TestWithParam<SizeCase> {};

TEST_P(AllReduceSizeTest, EveryOpMatchesElementwiseReference) {
  const auto [count, n] = GetParam();
  // Small integers stored as floats sum exactly in any order, so the reference is exact.
  std::vector<std::vector<float>> in(n, std::vector<float>(count));
  std::vector<std::vector<std::int64_t>> in64(n, std::vector<std::int64_t>(count));
  for (int i = 0; i < n; ++i) {
    for (std::int64_t k = 0; k < count; ++k) {
      in[i][k] = static_cast<float>((k * 7 + i * 13) % 17 - 8);
      in64[i][k] = (k * 5 + i * 11) % 23 - 11;
    }
  }
  for (CollectiveOp op : kAllCollectiveOps) {
    std::vector<float> got = reduce(in, op);
    std::vector<std::int64_t> got64 = reduce(in64, op);
    for (std::int64_t k = 0; k < count; ++k) {
      double acc = in[0][k];
      std::int64_t acc64 = in64[0][k];
      for (int i = 1; i < n; ++i) {
        switch (op) {
          case CollectiveOp::kSum:
          case CollectiveOp::kMean:
            acc += in[i][k], acc64 += in64[i][k];
            break;
          case CollectiveOp::kMax:
            acc = std::max<double>(acc, in[i][k]), acc64 = std::max(acc64, in64[i][k]);
            break;
          case CollectiveOp::kMin:
            acc = std::min<double>(acc, in[i][k]), acc64 = std::min(acc64, in64[i][k]);
            break;
          case CollectiveOp::kProd:
            acc *= in[i][k], acc64 *= in64[i][k];
            break;
        }
      }
      if (op == CollectiveOp::kMean) acc = static_cast<float>(acc) / static_cast<float>(n), acc64 /= n;
      ASSERT_EQ(got[k], static_cast<float>(acc)) << collective_op_name(op) << " k=" << k;
      ASSERT_EQ(got64[k], acc64) << collective_op_name(op) << " k=" << k;
    }
  }
}

TEST_P(AllReduceSizeTest, InPlaceIntoOneInput) {
  const auto [count, n] = GetParam();
  std::vector<std::vector<std::int32_t>> in(n, std::vector<std::int32_t>(count));
  for (int i = 0; i < n; ++i) std::iota(in[i].begin(), in[i].end(), i);
  const int target = n - 1;  // the last input is read last in each block: the hardest alias
  all_reduce(DType::kInt32, inputs_of(in), count, CollectiveOp::kSum, in[target].data());
  for (std::int64_t k = 0; k < count; ++k) {
    ASSERT_EQ(in[target][k], n * k + n * (n - 1) / 2) << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, AllReduceSizeTest,
                         ::testing::Values(SizeCase{0, 3}, SizeCase{1, 1}, SizeCase{1, 8}, SizeCase{7, 2},
                                           SizeCase{4095, 3}, SizeCase{4096, 4}, SizeCase{4097, 5}, SizeCase{16385, 8},
                                           SizeCase{100003, 3}, SizeCase{(1 << 20) + 3, 8}, SizeCase{(1 << 18) + 1, 1},
                                           SizeCase{(1 << 18) + 1, 2}),
                         [](const auto& info) {
                           return "count" + std::to_string(info.param.count) + "_n" + std::to_string(info.param.n);
                         });

// ---- reduce_scatter ----

TEST(ReduceScatterTest, HandComputed) {
  const std::vector<std::vector<float>> in = {{1, 2, 3, 4}, {10, 20, 30, 40}};
  std::vector<std::vector<float>> out(2, std::vector<float>(2));
  reduce_scatter(DType::kFloat32, inputs_of(in), 4, CollectiveOp::kSum, outputs_of(out));
  EXPECT_EQ(out[0], (std::vector<float>{11, 22}));
  EXPECT_EQ(out[1], (std::vector<float>{33, 44}));
  reduce_scatter(DType::kFloat32, inputs_of(in), 4, CollectiveOp::kMean, outputs_of(out));
  EXPECT_EQ(out[0], (std::vector<float>{5.5f, 11}));
}

TEST(ReduceScatterTest, LargeHalfMatchesAllReduceChunks) {
  const int n = 4;
  const std::int64_t chunk = 50001, count = chunk * n;
  std::vector<std::vector<Eigen::half>> in(n, std::vector<Eigen::half>(count));
  for (int i = 0; i < n; ++i) {
    for (std::int64_t k = 0; k < count; ++k) in[i][k] = Eigen::half(static_cast<float>((k + i) % 9) * 0.25f);
  }
  std::vector<Eigen::half> full = reduce(in, CollectiveOp::kMean);
  std::vector<std::vector<Eigen::half>> out(n, std::vector<Eigen::half>(chunk));
  reduce_scatter(DType::kFloat16, inputs_of(in), count, CollectiveOp::kMean, outputs_of(out));
  for (int j = 0; j < n; ++j) {
    for (std::int64_t k = 0; k < chunk; ++k) ASSERT_EQ(out[j][k], full[j * chunk + k]) << j << "," << k;
  }
}

TEST(ReduceScatterTest, CountMustBeDivisible) {
  const std::vector<std::vector<float>> in = {{1, 2, 3}, {4, 5, 6}};
  std::vector<std::vector<float>> out(2, std::vector<float>(2));
  EXPECT_THROW(reduce_scatter(DType::kFloat32, inputs_of(in), 3, CollectiveOp::kSum, outputs_of(out)),
               InvalidArgumentError);
}

// ---- copies: all_gather, broadcast, all_to_all, collective_permute ----

TEST(AllGatherTest, ConcatenatesInParticipantOrder) {
  const std::vector<std::vector<std::int64_t>> in = {{1, 2}, {3, 4}, {5, 6}};
  std::vector<std::int64_t> out(6);
  all_gather(DType::kInt64, inputs_of(in), 2, out.data());
  EXPECT_EQ(out, (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}));
  all_gather(DType::kInt64, inputs_of(in), 0, nullptr);  // empty is fine
}

TEST(AllGatherTest, LargeBuffersPooled) {
  const int n = 5;
  const std::int64_t count = 123457;
  std::vector<std::vector<double>> in(n, std::vector<double>(count));
  for (int i = 0; i < n; ++i) std::iota(in[i].begin(), in[i].end(), 1e6 * i);
  std::vector<double> out(count * n);
  all_gather(DType::kFloat64, inputs_of(in), count, out.data());
  for (int i = 0; i < n; ++i) {
    for (std::int64_t k = 0; k < count; ++k) ASSERT_EQ(out[i * count + k], 1e6 * i + k);
  }
}

TEST(BroadcastTest, CopiesSourceIntoEveryOutputIncludingItself) {
  std::vector<std::vector<std::int32_t>> bufs = {{0, 0, 0}, {7, 8, 9}, {0, 0, 0}};
  broadcast(DType::kInt32, bufs[1].data(), 3, outputs_of(bufs));
  for (const auto& b : bufs) EXPECT_EQ(b, (std::vector<std::int32_t>{7, 8, 9}));
}

TEST(AllToAllTest, ChunkJOfParticipantIGoesToParticipantJAtPositionI) {
  std::vector<std::vector<std::int32_t>> in(3, std::vector<std::int32_t>(6));
  for (int i = 0; i < 3; ++i) std::iota(in[i].begin(), in[i].end(), 10 * i);
  std::vector<std::vector<std::int32_t>> out(3, std::vector<std::int32_t>(6));
  all_to_all(DType::kInt32, inputs_of(in), 6, outputs_of(out));
  EXPECT_EQ(out[0], (std::vector<std::int32_t>{0, 1, 10, 11, 20, 21}));
  EXPECT_EQ(out[1], (std::vector<std::int32_t>{2, 3, 12, 13, 22, 23}));
  EXPECT_EQ(out[2], (std::vector<std::int32_t>{4, 5, 14, 15, 24, 25}));
  EXPECT_THROW(all_to_all(DType::kInt32, inputs_of(in), 5, outputs_of(out)), InvalidArgumentError);
}

TEST(AllToAllTest, LargeBuffersPooled) {
  const int n = 4;
  const std::int64_t chunk = 70001, count = chunk * n;
  std::vector<std::vector<float>> in(n, std::vector<float>(count));
  for (int i = 0; i < n; ++i) std::iota(in[i].begin(), in[i].end(), static_cast<float>(i * count));
  std::vector<std::vector<float>> out(n, std::vector<float>(count));
  all_to_all(DType::kFloat32, inputs_of(in), count, outputs_of(out));
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      for (std::int64_t k = 0; k < chunk; k += 997) ASSERT_EQ(out[j][i * chunk + k], in[i][j * chunk + k]);
    }
  }
}

TEST(CollectivePermuteTest, PairsMoveBuffersAndUntargetedGetZeros) {
  std::vector<std::vector<float>> in = {{1, 1}, {2, 2}, {3, 3}, {4, 4}};
  std::vector<std::vector<float>> out(4, std::vector<float>(2, -1));
  const std::vector<std::pair<int, int>> pairs = {{0, 1}, {1, 2}, {2, 3}};
  collective_permute(DType::kFloat32, inputs_of(in), 2, pairs, outputs_of(out));
  EXPECT_EQ(out[0], (std::vector<float>{0, 0}));
  EXPECT_EQ(out[1], (std::vector<float>{1, 1}));
  EXPECT_EQ(out[2], (std::vector<float>{2, 2}));
  EXPECT_EQ(out[3], (std::vector<float>{3, 3}));
  // A full ring, as SPMD halo exchanges use.
  const std::vector<std::pair<int, int>> ring = {{0, 3}, {1, 0}, {2, 1}, {3, 2}};
  collective_permute(DType::kFloat32, inputs_of(in), 2, ring, outputs_of(out));
  EXPECT_EQ(out[0], (std::vector<float>{2, 2}));
  EXPECT_EQ(out[3], (std::vector<float>{1, 1}));
}

TEST(CollectivePermuteTest, RejectsDuplicateAndOutOfRangePairs) {
  std::vector<std::vector<float>> in = {{1}, {2}, {3}};
  std::vector<std::vector<float>> out(3, std::vector<float>(1));
  auto run = [&](std::vector<std::pair<int, int>> pairs) {
    collective_permute(DType::kFloat32, inputs_of(in), 1, pairs, outputs_of(out));
  };
  EXPECT_THROW(run({{0, 1}, {0, 2}}), InvalidArgumentError);
  EXPECT_THROW(run({{0, 2}, {1, 2}}), InvalidArgumentError);
  EXPECT_THROW(run({{0, 3}}), InvalidArgumentError);
  EXPECT_THROW(run({{-1, 0}}), InvalidArgumentError);
  EXPECT_NO_THROW(run({}));
}

// ---- argument errors are raised before any work ----

TEST(KernelErrorsTest, BadArgumentsAreInvalidArgumentErrorsNamingTheProblem) {
  std::vector<float> a(4), b(4), out(4);
  const void* two[] = {a.data(), b.data()};
  const void* with_null[] = {a.data(), nullptr};
  EXPECT_THROW(all_reduce(DType::kFloat32, {}, 4, CollectiveOp::kSum, out.data()), InvalidArgumentError);
  EXPECT_THROW(all_reduce(DType::kFloat32, two, -1, CollectiveOp::kSum, out.data()), InvalidArgumentError);
  EXPECT_THROW(all_reduce(DType::kFloat32, two, 4, CollectiveOp::kSum, nullptr), InvalidArgumentError);
  try {
    all_reduce(DType::kFloat32, with_null, 4, CollectiveOp::kSum, out.data());
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("[all_reduce]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("participant 1"), std::string::npos) << e.what();
  }
  void* one_output[] = {out.data()};
  EXPECT_THROW(all_to_all(DType::kFloat32, two, 4, one_output), InvalidArgumentError);
  EXPECT_NO_THROW(all_reduce(DType::kFloat32, with_null, 0, CollectiveOp::kSum, nullptr));
}

}  // namespace
}  // namespace tpustrategy
