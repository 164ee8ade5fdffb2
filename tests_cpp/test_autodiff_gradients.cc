// Every gradient function against central finite differences in float64.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <span>
#include <string>
#include <tuple>

#include "gradient_check.h"
#include "tpustrategy/autodiff/gradient_registry.h"
#include "tpustrategy/autodiff/op_trace_hook.h"
#include "tpustrategy/ops/relu_grad.h"

namespace tpustrategy {
namespace {

using testing::expect_gradients_match;
using testing::uniform;
using V = const std::vector<Tensor>&;

Tensor un(UnaryOp k, const Tensor& x) { return op::unary(k, x); }
Tensor bin(BinaryOp k, const Tensor& a, const Tensor& b) { return op::binary(k, a, b); }

TEST(UnaryGradients, SmoothOps) {
  const Tensor any = uniform({2, 3}, -2, 2);
  const Tensor pos = uniform({2, 3}, 0.5, 3);
  for (UnaryOp k : {UnaryOp::kNegative, UnaryOp::kSquare, UnaryOp::kExp, UnaryOp::kTanh, UnaryOp::kSigmoid}) {
    SCOPED_TRACE(std::string(op_name(k)));
    expect_gradients_match([k](V x) { return un(k, x[0]); }, {any});
  }
  for (UnaryOp k : {UnaryOp::kLog, UnaryOp::kSqrt, UnaryOp::kRsqrt}) {
    SCOPED_TRACE(std::string(op_name(k)));
    expect_gradients_match([k](V x) { return un(k, x[0]); }, {pos});
  }
}

TEST(UnaryGradients, PiecewiseOpsAwayFromKinks) {
  const Tensor x = testing::f64({-1.5, -0.3, 0.2, 2.0, -0.7, 1.1}, {2, 3});
  for (UnaryOp k : {UnaryOp::kAbs, UnaryOp::kRelu, UnaryOp::kSign}) {
    SCOPED_TRACE(std::string(op_name(k)));
    expect_gradients_match([k](V in) { return un(k, in[0]); }, {x});
  }
}

TEST(UnaryGradients, FloorAndCeilHaveNone) {
  for (UnaryOp k : {UnaryOp::kFloor, UnaryOp::kCeil}) {
    auto tape = std::make_shared<Tape>();
    Tensor x = uniform({3}, -2, 2);
    TapeScope scope(tape);
    tape->watch(x);
    Tensor y = un(k, x);
    EXPECT_FALSE(tape->gradient({y}, {x})[0].has_value()) << op_name(k);
  }
}

TEST(BinaryGradients, BroadcastingArithmetic) {
  const Tensor a = uniform({2, 3}, -2, 2, 1), row = uniform({3}, 0.5, 2, 2), col = uniform({2, 1}, 0.5, 2, 3);
  for (BinaryOp k : {BinaryOp::kAdd, BinaryOp::kSubtract, BinaryOp::kMultiply, BinaryOp::kDivide}) {
    SCOPED_TRACE(std::string(op_name(k)));
    expect_gradients_match([k](V x) { return bin(k, x[0], x[1]); }, {a, row});
    expect_gradients_match([k](V x) { return bin(k, x[0], x[1]); }, {col, a});
    expect_gradients_match([k](V x) { return bin(k, x[0], x[1]); }, {col, row});  // both broadcast
    expect_gradients_match([k](V x) { return bin(k, x[0], x[1]); }, {a, testing::f64({1.5}, {})});
  }
}

TEST(BinaryGradients, PowMaximumMinimumFloorMod) {
  const Tensor base = uniform({2, 3}, 0.5, 2, 4), expo = uniform({3}, -1.5, 2, 5);
  expect_gradients_match([](V x) { return bin(BinaryOp::kPow, x[0], x[1]); }, {base, expo});
  const Tensor a = testing::f64({1, -2, 3, 0.5, -0.25, 4}, {2, 3}), b = testing::f64({0.3, -1, 5}, {3});
  expect_gradients_match([](V x) { return bin(BinaryOp::kMaximum, x[0], x[1]); }, {a, b});
  expect_gradients_match([](V x) { return bin(BinaryOp::kMinimum, x[0], x[1]); }, {a, b});
  const Tensor m = testing::f64({5.3, -2.6, 7.1, 1.2, -0.4, 3.3}, {2, 3}), d = testing::f64({2.0, 1.5, -2.5}, {3});
  expect_gradients_match([](V x) { return bin(BinaryOp::kFloorMod, x[0], x[1]); }, {m, d});
}

TEST(BinaryGradients, PowOfNonPositiveBaseHasZeroExponentGradient) {
  auto tape = std::make_shared<Tape>();
  Tensor x = testing::f64({0.0, -2.0}, {2}), y = testing::f64({2.0, 2.0}, {2});
  TapeScope scope(tape);
  tape->watch(x);
  tape->watch(y);
  auto g = tape->gradient({op::binary(BinaryOp::kPow, x, y)}, {x, y});
  EXPECT_EQ(testing::values(to_dense(*g[0])), (std::vector<double>{0.0, -4.0}));
  EXPECT_EQ(testing::values(to_dense(*g[1])), (std::vector<double>{0.0, 0.0}));
}

TEST(CastGradient, FloatToFloatCastsBack) {
  auto tape = std::make_shared<Tape>(/*persistent=*/true);
  Tensor x = testing::f64({1.0, 2.0}, {2});
  TapeScope scope(tape);
  tape->watch(x);
  Tensor y = op::mul(op::cast(x, DType::kFloat32), testing::f32({3, 4}, {2}));
  auto g = tape->gradient({y}, {x});
  Tensor dense = to_dense(*g[0]);
  EXPECT_EQ(dense.dtype(), DType::kFloat64);
  EXPECT_EQ(testing::values(dense), (std::vector<double>{3, 4}));
  // Through an integer cast nothing flows (TF: None).
  Tensor z = op::cast(op::cast(x, DType::kInt32), DType::kFloat64);
  EXPECT_FALSE(tape->gradient({z}, {x})[0].has_value());
}

TEST(ReduceGradients, SumMeanOverAxes) {
  const Tensor x = uniform({2, 3, 4}, -1, 1);
  for (ReduceKind k : {ReduceKind::kSum, ReduceKind::kMean}) {
    expect_gradients_match([k](V in) { return op::reduce(k, in[0]); }, {x});
    expect_gradients_match([k](V in) { return op::reduce(k, in[0], std::vector<std::int64_t>{1}); }, {x});
    expect_gradients_match([k](V in) { return op::reduce(k, in[0], std::vector<std::int64_t>{0, -1}, true); }, {x});
    expect_gradients_match([k](V in) { return op::reduce(k, in[0], std::vector<std::int64_t>{}); }, {x});
  }
}

TEST(ReduceGradients, MaxMinDistinctValues) {
  const Tensor x = uniform({3, 4}, -1, 1, 9);
  for (ReduceKind k : {ReduceKind::kMax, ReduceKind::kMin}) {
    expect_gradients_match([k](V in) { return op::reduce(k, in[0], std::vector<std::int64_t>{1}); }, {x});
    expect_gradients_match([k](V in) { return op::reduce(k, in[0]); }, {x});
  }
}

TEST(ReduceGradients, MaxSharesTiesEvenlyAsTF) {
  auto tape = std::make_shared<Tape>();
  Tensor x = testing::f64({1, 3, 3, 2}, {4});
  TapeScope scope(tape);
  tape->watch(x);
  auto g = tape->gradient({op::reduce(ReduceKind::kMax, x)}, {x});
  EXPECT_EQ(testing::values(to_dense(*g[0])), (std::vector<double>{0, 0.5, 0.5, 0}));
}

TEST(ReduceGradients, ProdIncludingZeros) {
  expect_gradients_match([](V in) { return op::reduce(ReduceKind::kProd, in[0], std::vector<std::int64_t>{1}); },
                         {uniform({2, 3, 2}, 0.5, 1.5)});
  expect_gradients_match(
      [](V in) {
        return op::reduce(ReduceKind::kProd, in[0], std::vector<std::int64_t>{0, 2});
      },
      {uniform({2, 3, 2}, -1.5, 1.5)});
  // One zero: only that element gets a gradient (the product of the others); two zeros: all zero.
  expect_gradients_match([](V in) { return op::reduce(ReduceKind::kProd, in[0]); }, {testing::f64({2, 0, 3, -1}, {4})});
  expect_gradients_match([](V in) { return op::reduce(ReduceKind::kProd, in[0]); },
                         {testing::f64({2, 0, 3, 0}, {2, 2})});
}

TEST(MatMulGradients, TransposeFlagsAndBatching) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "ta=" << ta << " tb=" << tb);
      const Tensor a = uniform(ta ? Shape{4, 3} : Shape{3, 4}, -1, 1, 1);
      const Tensor b = uniform(tb ? Shape{5, 4} : Shape{4, 5}, -1, 1, 2);
      expect_gradients_match([=](V x) { return op::matmul(x[0], x[1], ta, tb); }, {a, b});
      const Tensor ba = uniform(ta ? Shape{2, 4, 3} : Shape{2, 3, 4}, -1, 1, 3);
      expect_gradients_match([=](V x) { return op::matmul(x[0], x[1], ta, tb); }, {ba, b});  // b broadcast
    }
  }
  const Tensor a = uniform({1, 3, 2, 4}, -1, 1, 5), b = uniform({2, 1, 4, 3}, -1, 1, 6);
  expect_gradients_match([](V x) { return op::matmul(x[0], x[1]); }, {a, b});
}

TEST(ShapeGradients, ReshapeLikeAndTranspose) {
  const Tensor x = uniform({2, 1, 3}, -1, 1);
  expect_gradients_match([](V in) { return op::reshape(in[0], {3, -1}); }, {x});
  expect_gradients_match([](V in) { return op::expand_dims(in[0], -1); }, {x});
  expect_gradients_match([](V in) { return op::squeeze(in[0]); }, {x});
  expect_gradients_match([](V in) { return op::transpose(in[0], {2, 0, 1}); }, {x});
  expect_gradients_match([](V in) { return op::transpose(in[0]); }, {x});
  expect_gradients_match([](V in) { return op::identity(in[0]); }, {x});
}

TEST(ShapeGradients, ConcatStackSplitUnstack) {
  const Tensor a = uniform({2, 3}, -1, 1, 1), b = uniform({2, 2}, -1, 1, 2), c = uniform({2, 3}, -1, 1, 3);
  expect_gradients_match([](V in) { return op::concat({in[0], in[1]}, 1); }, {a, b});
  expect_gradients_match([](V in) { return op::concat({in[0], in[1]}, -1); }, {a, b});
  expect_gradients_match([](V in) { return op::stack({in[0], in[1]}, 1); }, {a, c});
  expect_gradients_match([](V in) { return op::stack({in[0], in[1]}, -1); }, {a, c});
  // Only some outputs used: the others get zero gradient.
  expect_gradients_match([](V in) { return op::mul(op::unstack(in[0], 1)[2], op::unstack(in[0], 1)[0]); }, {a});
  expect_gradients_match([](V in) { return op::split(in[0], 3, 1)[1]; }, {a});
  expect_gradients_match([](V in) { return op::split_sizes(in[0], {1, -1}, 1)[1]; }, {a});
}

TEST(ShapeGradients, TileBroadcastToSlicePad) {
  const Tensor x = uniform({2, 3}, -1, 1);
  expect_gradients_match([](V in) { return op::tile(in[0], {2, 3}); }, {x});
  expect_gradients_match([](V in) { return op::broadcast_to(in[0], {4, 2, 3}); }, {x});
  expect_gradients_match([](V in) { return op::broadcast_to(in[0], {2, 2, 3}); }, {uniform({2, 1, 3}, -1, 1)});
  expect_gradients_match([](V in) { return op::slice(in[0], {1, 1}, {1, -1}); }, {x});
  expect_gradients_match([](V in) { return op::pad(in[0], {1, 0, 2, 1}); }, {x});
}

TEST(ShapeGradients, StridedSliceItems) {
  const Tensor x = uniform({4, 5}, -1, 1);
  using I = IndexItem;
  const std::vector<std::vector<I>> specs = {
      {I::at(1)},
      {I::range(std::nullopt, std::nullopt, -1), I::at(-2)},
      {I::range(1, std::nullopt, 2), I::new_axis(), I::range(std::nullopt, -1)},
      {I::ellipsis(), I::range(4, 0, -2)},
      {I::range(3, 1)},  // empty
  };
  for (const auto& items : specs) {
    expect_gradients_match([items](V in) { return op::get_item(in[0], items); }, {x});
  }
  // The gradient op is itself differentiable (second order through a slice).
  expect_gradients_match(
      [](V in) {
        return op::strided_slice_grad(in[0], {4, 5}, {I::range(1, 3)});
      },
      {uniform({2, 5}, -1, 1)});
}

TEST(ShapeGradients, GatherDenseAndSparse) {
  const Tensor x = uniform({4, 3}, -1, 1);
  const Tensor idx = testing::i32({2, 0, 2, 3, 2, 1}, {2, 3});  // repeats add
  expect_gradients_match([idx](V in) { return op::gather(in[0], idx, 0); }, {x});
  expect_gradients_match([idx](V in) { return op::gather(in[0], idx, 1); }, {uniform({2, 4, 2}, -1, 1)});
  expect_gradients_match([idx](V in) { return op::gather(in[0], idx, -1); }, {uniform({2, 4}, -1, 1)});
  const Tensor ids = testing::i64({1, -1, 0, 1}, {4});
  expect_gradients_match([ids](V in) { return op::unsorted_segment_sum(in[0], ids, 3); }, {uniform({4, 2}, -1, 1)});
}

TEST(ShapeGradients, GatherAxisZeroGivesIndexedSlices) {
  auto tape = std::make_shared<Tape>();
  Tensor x = uniform({4, 2}, -1, 1);
  TapeScope scope(tape);
  tape->watch(x);
  Tensor y = op::add(op::gather(x, testing::i32({3, 1}, {2}), 0), op::gather(x, testing::i32({3}, {1}), 0));
  auto g = tape->gradient({y}, {x});
  ASSERT_TRUE(std::holds_alternative<IndexedSlices>(*g[0]));
  const auto& s = std::get<IndexedSlices>(*g[0]);
  EXPECT_EQ(testing::values(s.indices), (std::vector<double>{3, 1, 3}));
  EXPECT_EQ(s.dense_shape, (Shape{4, 2}));
  // Row 3: once from the first gather, twice from the second (its [1, 2] row is broadcast over 2 rows).
  EXPECT_EQ(testing::values(to_dense(*g[0])), (std::vector<double>{0, 0, 1, 1, 0, 0, 3, 3}));
}

TEST(SelectAndFillGradients, WhereBroadcastsAndFillSums) {
  const Tensor cond = testing::b8({true, false, true}, {3});
  expect_gradients_match([cond](V in) { return op::where(cond, in[0], in[1]); },
                         {uniform({2, 3}, -1, 1, 1), uniform({1}, -1, 1, 2)});
  expect_gradients_match([](V in) { return op::fill({2, 3}, in[0]); }, {testing::f64({0.7}, {})});
}

TEST(NnGradients, SoftmaxAndLogSoftmaxOverAxes) {
  const Tensor x = uniform({3, 4}, -2, 2);
  for (std::int64_t axis : {-1, 0}) {
    expect_gradients_match([axis](V in) { return op::softmax(in[0], axis); }, {x});
    expect_gradients_match([axis](V in) { return op::log_softmax(in[0], axis); }, {x});
  }
}

TEST(HigherOrder, SecondDerivativesMatchFiniteDifferencesOfTheFirst) {
  // f'(x) computed on an inner tape is itself recorded by the outer tape.
  auto first = [](const Tensor& x, const std::function<Tensor(const Tensor&)>& f) {
    auto inner = std::make_shared<Tape>();
    TapeScope scope(inner);
    inner->watch(x);
    return to_dense(*inner->gradient({op::reduce_sum(f(x))}, {x})[0]);
  };
  const std::vector<std::function<Tensor(const Tensor&)>> fns = {
      [](const Tensor& x) { return op::mul(x, op::mul(x, x)); },
      [](const Tensor& x) { return un(UnaryOp::kTanh, x); },
      [](const Tensor& x) {
        return op::softmax(op::reshape(x, {2, 3}), -1);
      },
      [](const Tensor& x) {
        return op::matmul(op::reshape(x, {2, 3}), op::reshape(x, {3, 2}));
      },
      [](const Tensor& x) { return op::reduce(ReduceKind::kProd, op::unary(UnaryOp::kSigmoid, x)); },
  };
  for (const auto& f : fns) {
    expect_gradients_match([&](V in) { return first(in[0], f); }, {uniform({6}, -1, 1)}, 1e-5);
  }
}

TEST(Registry, EveryOpATapeCanRecordHasAGradientFunction) {
  // Runs every dispatched op with a watched float input and checks each recorded op type.
  auto tape = std::make_shared<Tape>();
  TapeScope scope(tape);
  Tensor x = uniform({2, 3}, 0.5, 1.5), v = uniform({3}, 0.5, 1.5);
  tape->watch(x);
  tape->watch(v);
  const Tensor idx = testing::i32({1, 0}, {2});
  for (int k = 0; k <= static_cast<int>(UnaryOp::kSign); ++k) op::unary(static_cast<UnaryOp>(k), x);
  for (int k = 0; k <= static_cast<int>(BinaryOp::kMinimum); ++k) op::binary(static_cast<BinaryOp>(k), x, v);
  for (int k = 0; k <= static_cast<int>(ReduceKind::kProd); ++k) op::reduce(static_cast<ReduceKind>(k), x);
  op::cast(x, DType::kFloat32);
  op::matmul(x, x, false, true);
  op::reshape(x, {3, 2});
  op::expand_dims(x, 0);
  op::squeeze(op::expand_dims(x, 0));
  op::transpose(x);
  op::concat({x, x}, 0);
  op::stack({x, x});
  op::unstack(x);
  op::split(x, 3, 1);
  op::split_sizes(x, {1, 2}, 1);
  op::tile(x, {1, 2});
  op::broadcast_to(v, {2, 3});
  op::slice(x, {0, 1}, {1, 1});
  op::gather(x, idx, 0);
  op::get_item(x, {IndexItem::at(0)});
  op::pad(x, {0, 1, 1, 0});
  op::unsorted_segment_sum(x, idx, 2);
  op::strided_slice_grad(v, {4}, {IndexItem::range(1, std::nullopt)});
  op::fill({2}, op::reduce_sum(v));
  op::where(testing::b8({true, false, true}, {3}), v, v);
  op::identity(x);
  op::softmax(x);
  op::log_softmax(x);
  std::set<std::string_view> seen;
  for (const auto& rec : tape->records()) seen.insert(rec->op);
  EXPECT_GE(seen.size(), 45u);
  for (std::string_view name : seen) EXPECT_NE(find_gradient(name), nullptr) << name;
}

TEST(Registry, ListsTheDifferentiableOps) {
  const auto names = ops_with_gradients();
  for (std::string_view op : {"AddV2", "BatchMatMulV2", "GatherV2", "Softmax", "StridedSlice", "Prod", "Tile"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), op), names.end()) << op;
  }
  EXPECT_EQ(find_gradient("NoSuchOp"), nullptr);
}

// The fused ReluGrad kernel: gradients where features > 0, else 0 (-0, NaN and negative features give 0).
TEST(ReluGradKernel, SelectsWherePositiveInEveryFloatingDtype) {
  const double nan = std::nan("");
  for (DType dt : {DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64}) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    const Tensor g = testing::typed(dt, {1.5, -2.0, 3.0, 4.0, -5.0, 6.0, INFINITY}, {7});
    const Tensor y = testing::typed(dt, {0.5, 0.0, -0.0, -1.0, 2.0, nan, 1.0}, {7});
    const std::vector<double> got = testing::values(relu_grad(g, y));
    EXPECT_EQ(got, (std::vector<double>{1.5, 0.0, 0.0, 0.0, -5.0, 0.0, INFINITY}));
  }
}

TEST(ReluGradKernel, SplitsLargeInputsOverThePool) {
  const Tensor y = uniform({300, 257}, -1, 1, 7), g = uniform({300, 257}, -3, 3, 8);
  const std::vector<double> got = testing::values(relu_grad(g, y)), gv = testing::values(g), yv = testing::values(y);
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], yv[i] > 0 ? gv[i] : 0.0) << i;
}

TEST(ReluGradKernel, RejectsMismatchedShapesAndDtypes) {
  const Tensor g = testing::f32({1, 2, 3}, {3});
  EXPECT_THROW(relu_grad(g, testing::f32({1, 2}, {2})), InvalidArgumentError);
  EXPECT_THROW(relu_grad(g, testing::f64({1, 2, 3}, {3})), InvalidArgumentError);
  EXPECT_THROW(relu_grad(testing::i32({1, 2, 3}, {3}), testing::i32({1, 2, 3}, {3})), InvalidArgumentError);
  EXPECT_THROW(relu_grad(Tensor(), g), ValueError);
}

TEST(ReluGradKernel, TheTapeRecordsOneReluGradWhoseGradientMatchesTheMask) {
  // Under an outer tape the relu gradient is itself recorded (as TF's ReluGrad) and differentiable.
  const Tensor x = testing::f64({-1.5, 0.5, 2.0, -0.2}, {4});
  auto outer = std::make_shared<Tape>(), inner = std::make_shared<Tape>();
  TapeScope outer_scope(outer);
  outer->watch(x);
  Tensor y;
  {
    TapeScope inner_scope(inner);
    inner->watch(x);
    y = op::mul(op::unary(UnaryOp::kRelu, x), x);  // x * relu(x): d/dx = relu(x) + x * [x > 0]
  }
  const Tensor dx = to_dense(*inner->gradient({y}, {x})[0]);
  EXPECT_EQ(testing::values(dx), (std::vector<double>{0.0, 1.0, 4.0, 0.0}));
  std::size_t relu_grads = 0;
  for (const auto& rec : outer->records()) relu_grads += rec->op == "ReluGrad" ? 1 : 0;
  EXPECT_EQ(relu_grads, 1u);
  EXPECT_EQ(testing::values(to_dense(*outer->gradient({dx}, {x})[0])), (std::vector<double>{0.0, 2.0, 2.0, 0.0}));
}

// The ops a gradient computation ran, by name (the op-trace hook sees every dispatched op).
std::vector<std::string>& traced_ops() {
  static std::vector<std::string> names;
  return names;
}

// A binary op's gradient skips the operand the tape does not need (y - target: no Neg for the target), and still
// gives the one it needs.
TEST(BinaryGradients, SkipTheOperandTheTapeDropsButGiveTheOther) {
  const Tensor target = testing::f64({1.0, 2.0}, {2});
  for (auto [k, name, expected] : {std::tuple{BinaryOp::kSubtract, "Neg", std::vector<double>{0.0, 0.0}},
                                   std::tuple{BinaryOp::kMultiply, "Mul", std::vector<double>{2.0, 4.0}}}) {
    SCOPED_TRACE(std::string(op_name(k)));
    const Tensor x = testing::f64({3.0, -4.0}, {2});
    auto tape = std::make_shared<Tape>();
    Tensor y;
    {
      TapeScope scope(tape);
      tape->watch(x);
      y = op::add(op::binary(k, x, target), op::binary(k, target, x));
    }
    traced_ops().clear();
    const OpTraceHook previous = set_op_trace_hook([](std::string_view op, std::span<const Tensor* const>,
                                                      std::span<const Tensor>) { traced_ops().emplace_back(op); });
    auto grads = tape->gradient({y}, {x});  // the target is no source: its side is not needed
    set_op_trace_hook(previous);
    EXPECT_EQ(testing::values(to_dense(*grads[0])), expected);
    // One product / negation per use of x; none for the target's side (two before the skip).
    EXPECT_EQ(std::count(traced_ops().begin(), traced_ops().end(), name), k == BinaryOp::kSubtract ? 1 : 2);
  }
}

}  // namespace
}  // namespace tpustrategy
