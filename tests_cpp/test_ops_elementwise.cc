#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops_test_util.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/broadcast.h"
#include "tpustrategy/ops/cast.h"
#include "tpustrategy/ops/elementwise.h"

namespace tpustrategy {
namespace {

using namespace tpustrategy::testing;
using V = std::vector<double>;

TEST(Broadcast, Shapes) {
  EXPECT_EQ(broadcast_shapes({2, 3}, {3}, "t"), (Shape{2, 3}));
  EXPECT_EQ(broadcast_shapes({}, {4, 1}, "t"), (Shape{4, 1}));
  EXPECT_EQ(broadcast_shapes({4, 1}, {1, 5}, "t"), (Shape{4, 5}));
  EXPECT_EQ(broadcast_shapes({0, 1}, {1, 3}, "t"), (Shape{0, 3}));
  EXPECT_EQ(broadcast_shapes({2, 1, 3}, {5, 1}, "t"), (Shape{2, 5, 3}));
  try {
    broadcast_shapes({2, 3}, {4}, "AddV2");
    FAIL();
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("Incompatible shapes: [2,3] vs. [4]"), std::string::npos) << e.what();
  }
}

TEST(Broadcast, PlanCollapsesContiguousDims) {
  auto plan = plan_broadcast({{2, 3, 4}, {2, 3, 4}}, {2, 3, 4});
  EXPECT_EQ(plan.dims, (Shape{24}));
  plan = plan_broadcast({{2, 3, 4}, {}}, {2, 3, 4});
  EXPECT_EQ(plan.dims, (Shape{24}));
  EXPECT_EQ(plan.strides[1], (std::vector<std::int64_t>{0}));
  plan = plan_broadcast({{2, 3, 4}, {3, 1}}, {2, 3, 4});
  EXPECT_EQ(plan.dims, (Shape{2, 3, 4}));
}

TEST(Binary, AddSameShapeAndBroadcast) {
  auto a = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(values(add(a, f32({10, 20, 30}, {3}))), (V{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(values(add(a, f32({100, 200}, {2, 1}))), (V{101, 102, 103, 204, 205, 206}));
  EXPECT_EQ(values(add(a, f32({1}, {}))), (V{2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(values(add(f32({1}, {}), a)), (V{2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(values(subtract(f32({1}, {}), a)), (V{0, -1, -2, -3, -4, -5}));
  auto outer = multiply(f32({1, 2, 3}, {3, 1}), f32({1, 10}, {1, 2}));
  EXPECT_EQ(outer.shape(), (Shape{3, 2}));
  EXPECT_EQ(values(outer), (V{1, 10, 2, 20, 3, 30}));
  // Rank mismatch with broadcasting on both sides.
  auto r = add(f32({1, 2}, {2, 1, 1}), f32({10, 20, 30}, {3}));
  EXPECT_EQ(r.shape(), (Shape{2, 1, 3}));
  EXPECT_EQ(values(r), (V{11, 21, 31, 12, 22, 32}));
}

TEST(Binary, ZeroSizedDims) {
  auto r = add(f32({}, {0, 3}), f32({1, 2, 3}, {3}));
  EXPECT_EQ(r.shape(), (Shape{0, 3}));
  EXPECT_EQ(r.num_elements(), 0);
  r = add(f32({}, {0, 1}), f32({1, 2, 3}, {1, 3}));
  EXPECT_EQ(r.shape(), (Shape{0, 3}));
  // Integer division by zero is not raised when nothing is computed.
  EXPECT_EQ(floordiv(i32({}, {0}), i32({0}, {})).num_elements(), 0);
}

TEST(Binary, IncompatibleShapesAndDtypes) {
  EXPECT_THROW(add(f32({1, 2, 3}, {3}), f32({1, 2}, {2})), InvalidArgumentError);
  try {
    add(f32({1}, {}), i32({1}, {}));
    FAIL();
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot compute AddV2 as input #1(zero-based) was expected to be a float32 "
                                         "tensor but is a int32 tensor"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(add(b8({true}, {}), b8({true}, {})), TypeError);
  EXPECT_THROW(logical_and(f32({1}, {}), f32({1}, {})), TypeError);
  EXPECT_THROW(add(Tensor(), f32({1}, {})), ValueError);
}

TEST(Binary, DivisionRules) {
  auto q = divide(i32({7, -7, 1}, {3}), i32({2, 2, 0}, {3}));
  EXPECT_EQ(q.dtype(), DType::kFloat64);
  auto v = values(q);
  EXPECT_EQ(v[0], 3.5);
  EXPECT_EQ(v[1], -3.5);
  EXPECT_TRUE(std::isinf(v[2]));
  EXPECT_EQ(divide(i64({1}, {}), i64({4}, {})).dtype(), DType::kFloat64);
  EXPECT_EQ(values(floordiv(i32({7, -7, 7, -7}, {4}), i32({2, 2, -2, -2}, {4}))), (V{3, -4, -4, 3}));
  EXPECT_EQ(values(floormod(i32({7, -7, 7, -7}, {4}), i32({2, 2, -2, -2}, {4}))), (V{1, 1, -1, -1}));
  EXPECT_EQ(values(floordiv(f32({7, -7}, {2}), f32({2, 2}, {2}))), (V{3, -4}));
  EXPECT_EQ(values(floormod(f64({7.5, -7.5}, {2}), f64({2, 2}, {2}))), (V{1.5, 0.5}));
  // INT_MIN // -1 wraps instead of trapping.
  const auto mn = std::numeric_limits<std::int32_t>::min();
  EXPECT_EQ(values(floordiv(i32({mn}, {}), i32({-1}, {})))[0], mn);
  try {
    floordiv(i32({1, 2}, {2}), i32({0}, {}));
    FAIL();
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("Integer division by zero"), std::string::npos);
  }
  EXPECT_THROW(floormod(i64({1}, {1}), i64({0}, {1})), InvalidArgumentError);
}

TEST(Binary, Pow) {
  EXPECT_EQ(values(pow(i32({2, 3, -2, 5}, {4}), i32({10, 0, 3, 1}, {4}))), (V{1024, 1, -8, 5}));
  EXPECT_THROW(pow(i32({2}, {}), i32({-1}, {})), InvalidArgumentError);
  auto p = values(pow(f32({4, 2}, {2}), f32({0.5, -1}, {2})));
  EXPECT_FLOAT_EQ(p[0], 2.0f);
  EXPECT_FLOAT_EQ(p[1], 0.5f);
}

TEST(Binary, MaxMinPropagateNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto m = values(maximum(f64({1, nan, 3}, {3}), f64({2, 0, nan}, {3})));
  EXPECT_EQ(m[0], 2);
  EXPECT_TRUE(std::isnan(m[1]));
  EXPECT_TRUE(std::isnan(m[2]));
  EXPECT_EQ(values(minimum(i32({1, 5, 3}, {3}), i32({2}, {}))), (V{1, 2, 2}));
  EXPECT_EQ(values(maximum(f32({1, 5, 3}, {3}), f32({2}, {}))), (V{2, 5, 3}));
}

TEST(Binary, ComparisonsReturnBool) {
  auto a = i32({1, 2, 3}, {3});
  auto b = i32({2}, {});
  auto lt = less(a, b);
  EXPECT_EQ(lt.dtype(), DType::kBool);
  EXPECT_EQ(values(lt), (V{1, 0, 0}));
  EXPECT_EQ(values(less_equal(a, b)), (V{1, 1, 0}));
  EXPECT_EQ(values(greater(a, b)), (V{0, 0, 1}));
  EXPECT_EQ(values(greater_equal(a, b)), (V{0, 1, 1}));
  EXPECT_EQ(values(equal(a, b)), (V{0, 1, 0}));
  EXPECT_EQ(values(not_equal(a, b)), (V{1, 0, 1}));
  EXPECT_EQ(values(equal(b8({true, false}, {2}), b8({true}, {}))), (V{1, 0}));
  EXPECT_EQ(values(logical_or(b8({true, false}, {2}), b8({false}, {}))), (V{1, 0}));
  EXPECT_THROW(less(b8({true}, {}), b8({true}, {})), TypeError);
}

TEST(Binary, IntegerArithmeticWraps) {
  const auto mx = std::numeric_limits<std::int32_t>::max();
  EXPECT_EQ(values(add(i32({mx}, {}), i32({1}, {})))[0], std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(values(multiply(i64({3, 4}, {2}), i64({5}, {}))), (V{15, 20}));
}

class EveryNumericDType : public ::testing::TestWithParam<DType> {};

TEST_P(EveryNumericDType, ArithmeticKeepsDtype) {
  const DType dt = GetParam();
  auto a = typed(dt, {1, 2, 3, 4}, {2, 2});
  auto b = typed(dt, {2, 1}, {2});
  auto s = add(a, b);
  EXPECT_EQ(s.dtype(), dt);
  EXPECT_EQ(values(s), (V{3, 3, 5, 5}));
  EXPECT_EQ(values(multiply(a, b)), (V{2, 2, 6, 4}));
  EXPECT_EQ(values(subtract(a, b)), (V{-1, 1, 1, 3}));
  EXPECT_EQ(values(maximum(a, b)), (V{2, 2, 3, 4}));
  EXPECT_EQ(values(negative(a)), (V{-1, -2, -3, -4}));
  EXPECT_EQ(values(abs(negative(a))), (V{1, 2, 3, 4}));
  EXPECT_EQ(values(square(a)), (V{1, 4, 9, 16}));
  EXPECT_EQ(values(relu(subtract(a, typed(dt, {2}, {})))), (V{0, 0, 1, 2}));
  EXPECT_EQ(values(floordiv(a, b)), (V{0, 2, 1, 4}));
  EXPECT_EQ(values(equal(a, b)), (V{0, 0, 0, 0}));
}

INSTANTIATE_TEST_SUITE_P(Ops, EveryNumericDType,
                         ::testing::Values(DType::kInt32, DType::kInt64, DType::kFloat16, DType::kBFloat16,
                                           DType::kFloat32, DType::kFloat64),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(HalfPrecision, RoundsOnceToNearestEven) {
  // 1 + 2^-11 is not representable in float16; the sum rounds to 1 (ties to even).
  auto h = add(typed(DType::kFloat16, {1.0}, {}), typed(DType::kFloat16, {std::ldexp(1.0, -11)}, {}));
  EXPECT_EQ(values(h)[0], 1.0);
  auto h2 = add(typed(DType::kFloat16, {1.0}, {}), typed(DType::kFloat16, {3 * std::ldexp(1.0, -11)}, {}));
  EXPECT_EQ(values(h2)[0], 1.0 + std::ldexp(1.0, -9));
  // bfloat16 has 8 significant bits: 1 + 2^-8 rounds to 1, 1 + 3*2^-8 rounds to 1 + 2^-6.
  auto b = add(typed(DType::kBFloat16, {1.0}, {}), typed(DType::kBFloat16, {std::ldexp(1.0, -8)}, {}));
  EXPECT_EQ(values(b)[0], 1.0);
  EXPECT_EQ(values(typed(DType::kBFloat16, {1.0 + 3 * std::ldexp(1.0, -8)}, {}))[0], 1.0 + std::ldexp(1.0, -6));
  EXPECT_NEAR(values(exp(typed(DType::kFloat16, {1.0}, {})))[0], 2.71875, 1e-9);
}

TEST(Unary, MathFunctions) {
  auto x = f64({0.0, 1.0, 4.0}, {3});
  auto e = values(exp(x));
  EXPECT_DOUBLE_EQ(e[1], std::exp(1.0));
  EXPECT_DOUBLE_EQ(values(sqrt(x))[2], 2.0);
  EXPECT_DOUBLE_EQ(values(log(x))[2], std::log(4.0));
  EXPECT_TRUE(std::isinf(values(log(x))[0]));
  EXPECT_DOUBLE_EQ(values(tanh(x))[1], std::tanh(1.0));
  auto s = values(sigmoid(f32({0.0f, -100.0f, 100.0f}, {3})));
  EXPECT_FLOAT_EQ(s[0], 0.5f);
  EXPECT_NEAR(s[1], 0.0, 1e-30);
  EXPECT_FLOAT_EQ(s[2], 1.0f);
  EXPECT_EQ(values(unary(UnaryOp::kFloor, f32({1.5, -1.5}, {2}))), (V{1, -2}));
  EXPECT_EQ(values(unary(UnaryOp::kSign, i32({-3, 0, 4}, {3}))), (V{-1, 0, 1}));
  EXPECT_EQ(values(logical_not(b8({true, false}, {2}))), (V{0, 1}));
}

TEST(Unary, DtypeErrors) {
  EXPECT_THROW(log(i32({1}, {})), TypeError);
  EXPECT_THROW(sqrt(i64({1}, {})), TypeError);
  EXPECT_THROW(exp(b8({true}, {})), TypeError);
  EXPECT_THROW(negative(b8({true}, {})), TypeError);
  EXPECT_THROW(logical_not(f32({1}, {})), TypeError);
}

TEST(Cast, Conversions) {
  EXPECT_EQ(values(cast(f32({1.9f, -1.9f, 0.0f}, {3}), DType::kInt32)), (V{1, -1, 0}));
  EXPECT_EQ(values(cast(f32({2.0f, 0.0f}, {2}), DType::kBool)), (V{1, 0}));
  EXPECT_EQ(values(cast(b8({true, false}, {2}), DType::kFloat16)), (V{1, 0}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(values(cast(f64({nan, 1e30, -1e30}, {3}), DType::kInt32)),
            (V{0, double(std::numeric_limits<std::int32_t>::max()), double(std::numeric_limits<std::int32_t>::min())}));
  EXPECT_EQ(values(cast(typed(DType::kFloat16, {0.5, 65504}, {2}), DType::kBFloat16)), (V{0.5, 65536}));
  auto x = f32({1}, {});
  EXPECT_EQ(cast(x, DType::kFloat32).buffer(), x.buffer());  // same dtype: no copy
}

TEST(LargeSizes, PoolPathMatchesScalarMath) {
  const std::int64_t n = 1 << 20;
  std::vector<float> a(n), b(n / 1024);
  for (std::int64_t i = 0; i < n; ++i) a[i] = static_cast<float>(i % 1000);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i);
  auto ta = f32(a, {1024, 1024});
  auto tb = f32(b, {1024, 1});
  auto r = add(ta, tb).to_vector<float>();
  for (std::int64_t i = 0; i < n; i += 997) ASSERT_EQ(r[i], a[i] + b[i / 1024]) << i;
  ASSERT_EQ(r[n - 1], a[n - 1] + b[1023]);
  auto e = exp(multiply(ta, f32({-0.001f}, {}))).to_vector<float>();
  for (std::int64_t i = 0; i < n; i += 4099) ASSERT_NEAR(e[i], std::exp(-0.001f * a[i]), 1e-6) << i;
  auto c = cast(ta, DType::kBFloat16);
  auto back = cast(c, DType::kFloat32).to_vector<float>();
  for (std::int64_t i = 0; i < n; i += 1031) ASSERT_EQ(back[i], static_cast<float>(Eigen::bfloat16(a[i])));
}

}  // namespace
}  // namespace tpustrategy
