// The tape: what it records, watching, persistence, pausing, nesting, unconnected
// sources, output gradients and the dispatch point's behaviour without tapes.
#include <gtest/gtest.h>

#include <thread>

#include "gradient_check.h"
#include "tpustrategy/autodiff/dispatch.h"
#include "tpustrategy/autodiff/gradient_registry.h"
#include "tpustrategy/autodiff/op_trace_hook.h"

namespace tpustrategy {
namespace {

using testing::f64;
using testing::values;

std::vector<double> dense(const std::optional<Grad>& g) {
  if (!g) {
    ADD_FAILURE() << "no gradient";
    return {};
  }
  return values(to_dense(*g));
}

TEST(Tape, RecordsOnlyOpsReadingWatchedFloatTensors) {
  auto tape = std::make_shared<Tape>();
  TapeScope scope(tape);
  Tensor x = f64({1, 2}, {2}), c = f64({3, 4}, {2});
  op::mul(x, c);  // nothing watched yet
  EXPECT_EQ(tape->num_records(), 0u);
  tape->watch(x);
  Tensor y = op::mul(x, c);
  op::binary(BinaryOp::kGreater, x, c);  // bool output: not differentiable, not recorded
  op::add(c, c);                         // unrelated
  EXPECT_EQ(tape->num_records(), 1u);
  EXPECT_TRUE(tape->is_tracked(y));
  Tensor i = testing::i32({1, 2}, {2});
  tape->watch(i);
  op::add(i, i);  // integer ops are never recorded
  EXPECT_EQ(tape->num_records(), 1u);
}

TEST(Tape, NoTapeMeansNoRecording) {
  EXPECT_FALSE(recording());
  Tensor x = f64({1}, {1});
  EXPECT_EQ(values(op::add(x, x)), (std::vector<double>{2}));
}

TEST(Tape, UnconnectedAndIntegerSourcesGetNoneOrZeros) {
  auto tape = std::make_shared<Tape>(/*persistent=*/true);
  TapeScope scope(tape);
  Tensor x = f64({1, 2}, {2}), z = f64({5}, {1});
  Tensor i = testing::i32({3}, {1});
  tape->watch(x);
  tape->watch(z);
  tape->watch(i);
  Tensor y = op::reduce_sum(op::mul(x, x));
  auto none = tape->gradient({y}, {x, z, i});
  EXPECT_EQ(dense(none[0]), (std::vector<double>{2, 4}));
  EXPECT_FALSE(none[1].has_value());
  EXPECT_FALSE(none[2].has_value());
  auto zero = tape->gradient({y}, {z, i}, {}, UnconnectedGradients::kZero);
  EXPECT_EQ(dense(zero[0]), (std::vector<double>{0}));
  EXPECT_EQ(to_dense(*zero[1]).dtype(), DType::kInt32);
}

TEST(Tape, UnwatchedSourceHasNoGradientEvenIfUsed) {
  auto tape = std::make_shared<Tape>();
  TapeScope scope(tape);
  Tensor x = f64({1, 2}, {2});
  Tensor y = op::mul(x, x);
  EXPECT_FALSE(tape->gradient({y}, {x})[0].has_value());
}

TEST(Tape, SourceIsTargetAndDuplicateSources) {
  auto tape = std::make_shared<Tape>(true);
  TapeScope scope(tape);
  Tensor x = f64({1, 2}, {2});
  tape->watch(x);
  EXPECT_EQ(dense(tape->gradient({x}, {x})[0]), (std::vector<double>{1, 1}));
  Tensor y = op::mul(x, x);
  auto g = tape->gradient({y}, {x, x});
  EXPECT_EQ(dense(g[0]), dense(g[1]));
}

TEST(Tape, OutputGradientsWeightTheTargetsAndMultipleTargetsAdd) {
  auto tape = std::make_shared<Tape>(true);
  TapeScope scope(tape);
  Tensor x = f64({1, 2}, {2});
  tape->watch(x);
  Tensor y = op::mul(x, x), z = op::mul(x, f64({10, 10}, {2}));
  EXPECT_EQ(dense(tape->gradient({y}, {x}, {f64({3, 5}, {2})})[0]), (std::vector<double>{6, 20}));
  EXPECT_EQ(dense(tape->gradient({y, z}, {x})[0]), (std::vector<double>{12, 14}));
  EXPECT_THROW(tape->gradient({y}, {x}, {f64({1}, {1})}), InvalidArgumentError);
  EXPECT_THROW(tape->gradient({y}, {x}, {std::nullopt, std::nullopt}), ValueError);
}

TEST(Tape, WatchedIntermediateGetsItsOwnGradient) {
  auto tape = std::make_shared<Tape>();
  TapeScope scope(tape);
  Tensor x = f64({3}, {1});
  tape->watch(x);
  Tensor h = op::mul(x, x);
  Tensor y = op::mul(h, f64({2}, {1}));
  auto g = tape->gradient({y}, {h, x});
  EXPECT_EQ(dense(g[0]), (std::vector<double>{2}));
  EXPECT_EQ(dense(g[1]), (std::vector<double>{12}));
}

TEST(Tape, NonPersistentTapeIsSpentAfterOneGradient) {
  auto tape = std::make_shared<Tape>(false);
  TapeScope scope(tape);
  Tensor x = f64({3}, {1});
  tape->watch(x);
  Tensor y = op::mul(x, x);
  EXPECT_TRUE(tape->gradient({y}, {x})[0].has_value());
  EXPECT_EQ(tape->num_records(), 0u);
  EXPECT_FALSE(tape->is_tracked(x));
  EXPECT_TRUE(tape->spent());
  EXPECT_THROW(tape->gradient({y}, {x}), RuntimeError);
  EXPECT_THROW(tape->jacobian(y, {x}), RuntimeError);
  tape->reset();  // TF: reset gives a fresh tape
  EXPECT_FALSE(tape->spent());
}

TEST(Tape, JacobianAndBatchJacobian) {
  auto tape = std::make_shared<Tape>(true);
  TapeScope scope(tape);
  Tensor x = f64({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor w = f64({1, 0, 2, 0, 1, 0, 3, 3, 1, 1, 1, 1}, {3, 4});
  Tensor u = f64({7}, {1});
  tape->watch(x);
  tape->watch(u);
  Tensor y = op::matmul(op::mul(x, x), w);  // [2, 4]
  auto j = tape->jacobian(y, {x, u});
  ASSERT_TRUE(j[0].has_value());
  EXPECT_EQ(j[0]->shape(), (Shape{2, 4, 2, 3}));
  auto jv = values(*j[0]), xv = values(x), wv = values(w);
  for (int b = 0; b < 2; ++b)
    for (int o = 0; o < 4; ++o)
      for (int c = 0; c < 2; ++c)
        for (int i = 0; i < 3; ++i) {
          const double expected = b == c ? 2 * xv[c * 3 + i] * wv[i * 4 + o] : 0.0;
          EXPECT_EQ(jv[((b * 4 + o) * 2 + c) * 3 + i], expected);
        }
  EXPECT_FALSE(j[1].has_value());
  EXPECT_EQ(values(*tape->jacobian(y, {u}, UnconnectedGradients::kZero)[0]), std::vector<double>(8, 0.0));
  auto bj = tape->batch_jacobian(y, x);
  ASSERT_TRUE(bj.has_value());
  EXPECT_EQ(bj->shape(), (Shape{2, 4, 3}));
  auto bv = values(*bj);
  for (int b = 0; b < 2; ++b)
    for (int o = 0; o < 4; ++o)
      for (int i = 0; i < 3; ++i) EXPECT_EQ(bv[(b * 4 + o) * 3 + i], jv[((b * 4 + o) * 2 + b) * 3 + i]);
  EXPECT_THROW(tape->batch_jacobian(y, u), ValueError);
}

TEST(Tape, ResetForgetsRecordsAndPauseStopsRecording) {
  auto tape = std::make_shared<Tape>(true);
  TapeScope scope(tape);
  Tensor x = f64({3}, {1});
  tape->watch(x);
  Tensor y = op::mul(x, x);
  {
    PauseRecording pause;
    EXPECT_FALSE(recording());
    Tensor z = op::mul(y, y);
    EXPECT_EQ(tape->num_records(), 1u);
  }
  EXPECT_TRUE(recording());
  tape->reset();
  EXPECT_EQ(tape->num_records(), 0u);
  EXPECT_FALSE(tape->gradient({op::mul(x, x)}, {x})[0].has_value());
}

TEST(Tape, StopGradientCutsTheGraph) {
  auto tape = std::make_shared<Tape>();
  TapeScope scope(tape);
  Tensor x = f64({3}, {1});
  tape->watch(x);
  Tensor y = op::mul(x, op::stop_gradient(x));
  EXPECT_EQ(dense(tape->gradient({y}, {x})[0]), (std::vector<double>{3}));
}

int matmuls_traced = 0;
void count_matmuls(std::string_view op, std::span<const Tensor* const>, std::span<const Tensor>) {
  if (op == "BatchMatMulV2") ++matmuls_traced;
}

TEST(Tape, MatMulGradientSkipsTheGemmOfAnInputNoSourceNeeds) {
  // x is data (no source depends on it): as TF's skip_input_indices, dL/dx costs no GEMM.
  const Tensor x = f64({1, 2, 3, 4, 5, 6}, {2, 3}), w0 = f64({1, -1, 2, 0, 3, 1}, {3, 2});
  for (const bool watch_x : {false, true}) {
    auto tape = std::make_shared<Tape>();
    TapeScope scope(tape);
    Tensor w = op::identity(w0);
    tape->watch(w);
    if (watch_x) tape->watch(x);
    Tensor y = op::reduce_sum(op::matmul(x, w, false, false), std::nullopt, false);
    matmuls_traced = 0;
    const OpTraceHook previous = set_op_trace_hook(count_matmuls);
    auto grads = watch_x ? tape->gradient({y}, {w, x}) : tape->gradient({y}, {w});
    set_op_trace_hook(previous);
    EXPECT_EQ(matmuls_traced, watch_x ? 2 : 1);
    EXPECT_EQ(dense(grads[0]), (std::vector<double>{5, 5, 7, 7, 9, 9}));               // x^T @ ones
    if (watch_x) EXPECT_EQ(dense(grads[1]), (std::vector<double>{0, 2, 4, 0, 2, 4}));  // ones @ w^T
  }
  EXPECT_TRUE(gradient_input_needed(0));  // outside a backward pass every input is needed
}

TEST(Tape, NestedTapesGiveSecondDerivatives) {
  auto outer = std::make_shared<Tape>();
  TapeScope outer_scope(outer);
  Tensor x = f64({2}, {1});
  outer->watch(x);
  Tensor dy;
  {
    auto inner = std::make_shared<Tape>();
    TapeScope inner_scope(inner);
    inner->watch(x);
    Tensor y = op::mul(x, op::mul(x, x));
    dy = to_dense(*inner->gradient({y}, {x})[0]);  // 3x^2
  }
  EXPECT_EQ(values(dy), (std::vector<double>{12}));
  EXPECT_EQ(dense(outer->gradient({dy}, {x})[0]), (std::vector<double>{12}));  // 6x
}

TEST(Tape, OpReturningItsInputIsRecordedUnderANewId) {
  auto tape = std::make_shared<Tape>();
  TapeScope scope(tape);
  Tensor x = f64({3}, {1});
  tape->watch(x);
  Tensor y = op::identity(x);
  EXPECT_NE(y.id(), x.id());
  EXPECT_EQ(op::cast(x, DType::kFloat64).id(), x.id());  // same-dtype cast is x itself, as TF
  EXPECT_EQ(dense(tape->gradient({op::mul(y, y)}, {x})[0]), (std::vector<double>{6}));
}

TEST(Tape, MultipleTapesRecordIndependently) {
  auto a = std::make_shared<Tape>(true), b = std::make_shared<Tape>(true);
  TapeScope sa(a), sb(b);
  Tensor x = f64({1}, {1}), w = f64({2}, {1});
  a->watch(x);
  b->watch(w);
  Tensor y = op::mul(x, w);
  EXPECT_EQ(dense(a->gradient({y}, {x})[0]), (std::vector<double>{2}));
  // As TF: a source that is an input of a recorded op gets its gradient even if this tape never watched it.
  EXPECT_EQ(dense(a->gradient({y}, {w})[0]), (std::vector<double>{1}));
  EXPECT_FALSE(a->gradient({w}, {x})[0].has_value());
  EXPECT_EQ(dense(b->gradient({y}, {w})[0]), (std::vector<double>{1}));
}

TEST(Tape, EachThreadRecordsOnItsOwnStack) {
  // The C++ thread-per-replica runner gives each replica a thread, hence its own tape stack.
  constexpr int kThreads = 8;
  std::vector<double> results(kThreads, 0.0);
  std::vector<std::thread> threads;
  for (int r = 0; r < kThreads; ++r) {
    threads.emplace_back([r, &results] {
      auto tape = std::make_shared<Tape>();
      TapeScope scope(tape);
      Tensor x = f64({static_cast<double>(r + 1)}, {1});
      tape->watch(x);
      Tensor y = x;
      for (int k = 0; k < 50; ++k) y = op::mul(y, f64({1.0}, {1}));
      y = op::mul(op::mul(y, y), f64({static_cast<double>(r)}, {1}));
      results[r] = values(to_dense(*tape->gradient({y}, {x})[0]))[0];
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < kThreads; ++r) EXPECT_EQ(results[r], 2.0 * (r + 1) * r) << "replica " << r;
  EXPECT_FALSE(recording());
}

TEST(Tape, EachContextOnOneThreadRecordsOnItsOwnStack) {
  // Greenlet replicas share one thread: the stack lives in the bound context, switched with it.
  PlacementContext a, b;
  PlacementContext* previous = bound_placement();
  auto tape_a = std::make_shared<Tape>();
  auto tape_b = std::make_shared<Tape>();
  Tensor x = f64({3.0}, {1});
  bind_placement(&a);
  current_tape_stack().push(tape_a);
  tape_a->watch(x);
  bind_placement(&b);
  EXPECT_FALSE(recording());  // b sees none of a's tapes
  current_tape_stack().push(tape_b);
  tape_b->watch(x);
  Tensor yb = op::mul(x, f64({5.0}, {1}));  // recorded on b's tape only
  bind_placement(&a);
  Tensor ya = op::mul(x, x);  // on a's only
  EXPECT_EQ(tape_a->num_records(), 1u);
  EXPECT_EQ(tape_b->num_records(), 1u);
  EXPECT_EQ(values(to_dense(*tape_a->gradient({ya}, {x})[0]))[0], 6.0);
  EXPECT_EQ(values(to_dense(*tape_b->gradient({yb}, {x})[0]))[0], 5.0);
  current_tape_stack().remove(tape_a.get());
  bind_placement(&b);
  current_tape_stack().remove(tape_b.get());
  bind_placement(previous);
}

TEST(Tape, InvalidTensorsAreValueErrors) {
  auto tape = std::make_shared<Tape>();
  EXPECT_THROW(tape->watch(Tensor()), ValueError);
  EXPECT_THROW(tape->gradient({Tensor()}, {}), ValueError);
}

}  // namespace
}  // namespace tpustrategy
