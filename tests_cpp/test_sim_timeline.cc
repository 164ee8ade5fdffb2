// The per-core step timeline (cpp/tpustrategy/sim/step_timeline.h): collectives start when their last participant
// arrives; step time, shares, MXU utilisation and the critical path.
#include <gtest/gtest.h>

#include <chrono>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/sim/step_timeline.h"

namespace tpustrategy::sim {
namespace {

// v5e-4 with no fixed costs, so the arithmetic is exact.
StepTimeline v5e_4() {
  CostParams p = CostParams::nominal();
  return StepTimeline(find_slice_preset("v5e-4"), p);
}

OpRecord matmul(int core, double flops) { return {core, "matmul", OpUnit::kMxu, flops, 0, MxuDType::kBFloat16}; }

TEST(Timeline, CollectiveStartsWhenTheLastParticipantArrives) {
  StepTimeline t = v5e_4();
  ASSERT_EQ(t.num_cores(), 4);
  t.add_op(matmul(0, 197e12 * 1e-3));  // 1 ms
  t.add_op(matmul(1, 197e12 * 3e-3));  // 3 ms: the straggler
  t.add_op(matmul(2, 197e12 * 2e-3));
  const int ar = t.add_collective({"grad_sum", CollectiveKind::kAllReduce, {0, 1, 2, 3}, 1e6});
  EXPECT_DOUBLE_EQ(t.record_start(ar), 3e-3);
  // 2x2 mesh, no wraparound: RS + AG over two lines of 2: 2 x (3/4) x 1 MB / (2 x 50 GB/s).
  const double duration = 2 * 0.75 * 1e6 / 100e9;
  EXPECT_NEAR(t.record_end(ar) - t.record_start(ar), duration, 1e-15);
  const StepSummary s = t.summarize();
  EXPECT_NEAR(s.step_time, 3e-3 + duration, 1e-15);
  EXPECT_DOUBLE_EQ(s.compute[1], 3e-3);
  EXPECT_NEAR(s.idle[0], 2e-3, 1e-15);
  EXPECT_NEAR(s.idle[3], 3e-3, 1e-15);
  EXPECT_NEAR(s.communication[2], duration, 1e-15);
  EXPECT_NEAR(s.compute_share + s.communication_share + s.idle_share, 1.0, 1e-12);
  EXPECT_NEAR(s.mxu_utilization, 6e-3 / (4 * s.step_time), 1e-12);
  // Critical path: core 1's matmul, then the all-reduce.
  ASSERT_EQ(s.critical_path.size(), 2u);
  EXPECT_EQ(s.critical_path[0].record, 1);
  EXPECT_EQ(s.critical_path[0].core, 1);
  EXPECT_EQ(s.critical_path[1].record, ar);
  EXPECT_DOUBLE_EQ(s.critical_compute, 3e-3);
  EXPECT_NEAR(s.critical_communication, duration, 1e-15);
}

TEST(Timeline, CriticalPathFollowsTheLatestArrivalAcrossCollectives) {
  StepTimeline t = v5e_4();
  t.add_op(matmul(0, 197e12 * 5e-3));                              // 0: core 0 slow first
  t.add_collective({"a", CollectiveKind::kAllGather, {0, 1}, 0});  // 1: waits for core 0
  t.add_op(matmul(1, 197e12 * 1e-3));                              // 2
  t.add_op(matmul(2, 197e12 * 7e-3));                              // 3: core 2 slower still
  t.add_collective({"b", CollectiveKind::kAllGather, {1, 2}, 0});  // 4: waits for core 2
  const StepSummary s = t.summarize();
  EXPECT_DOUBLE_EQ(s.step_time, 7e-3);
  std::vector<int> path;
  for (const auto& step : s.critical_path) path.push_back(step.record);
  EXPECT_EQ(path, (std::vector<int>{3, 4}));
  EXPECT_DOUBLE_EQ(t.record_start(1), 5e-3);
}

TEST(Timeline, BadRecordsLeaveItUnchanged) {
  StepTimeline t = v5e_4();
  t.add_op(matmul(0, 197e12 * 1e-3));
  EXPECT_THROW(t.add_op(matmul(4, 1)), ValueError);
  EXPECT_THROW(t.add_op({0, "bad", OpUnit::kMxu, -1, 0, MxuDType::kBFloat16}), ValueError);
  EXPECT_THROW(t.add_collective({"empty", CollectiveKind::kAllReduce, {}, 1}), ValueError);
  EXPECT_THROW(t.add_collective({"twice", CollectiveKind::kAllReduce, {0, 0}, 1}), ValueError);
  EXPECT_THROW(t.add_collective({"range", CollectiveKind::kAllReduce, {0, 9}, 1}), ValueError);
  EXPECT_THROW(t.add_collective({"neg", CollectiveKind::kAllReduce, {0, 1}, -1}), ValueError);
  EXPECT_EQ(t.num_records(), 1);
  EXPECT_DOUBLE_EQ(t.summarize().step_time, 1e-3);
  EXPECT_THROW(t.record_start(5), ValueError);
}

TEST(Timeline, EmptyStepIsZero) {
  const StepSummary s = v5e_4().summarize();
  EXPECT_EQ(s.step_time, 0);
  EXPECT_TRUE(s.critical_path.empty());
  EXPECT_EQ(s.compute.size(), 4u);
}

TEST(Timeline, DataParallelStepOnA4096ChipSliceIsFast) {
  // v4-8192: 4096 devices; 20 layers of forward/backward matmuls per core and one all-reduce per layer over all.
  const auto start = std::chrono::steady_clock::now();
  StepTimeline t(find_slice_preset("v4-8192"));
  ASSERT_EQ(t.num_cores(), 4096);
  std::vector<int> everyone(4096);
  for (int i = 0; i < 4096; ++i) everyone[static_cast<std::size_t>(i)] = i;
  for (int layer = 0; layer < 20; ++layer) {
    for (int core = 0; core < 4096; ++core) t.add_op(matmul(core, 2.0 * 1024 * 4096 * 4096));
    t.add_collective({"grads", CollectiveKind::kAllReduce, everyone, 4096.0 * 4096 * 2});
  }
  const StepSummary s = t.summarize();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 1.0);
  EXPECT_GT(s.mxu_utilization, 0.1);
  EXPECT_LT(s.mxu_utilization, 1.0);
  EXPECT_EQ(s.critical_path.size(), 40u);
  // Every all-reduce spans the whole 16x16x16 torus with wraparound.
  const double expected = collective_time(find_chip_spec("v4"), CollectiveKind::kAllReduce, 4096.0 * 4096 * 2,
                                          axes_by_name(t.geometry(), "xyz"))
                              .seconds;
  EXPECT_DOUBLE_EQ(t.record_end(4096) - t.record_start(4096), expected);
}

}  // namespace
}  // namespace tpustrategy::sim
