// Recorded steps (cpp/tpustrategy/sim/step_record.h, step_recorder.h, step_estimate.h): what the op-dispatch point
// and the Communicator's observer hook record per replica, and the simulated time of a record on any preset.
#include <gtest/gtest.h>

#include <array>
#include <chrono>

#include "tpustrategy/autodiff/recorded_ops.h"
#include "tpustrategy/collectives/communicator.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/runtime/replica_context.h"
#include "tpustrategy/sim/slice_geometry.h"
#include "tpustrategy/sim/step_estimate.h"
#include "tpustrategy/sim/step_recorder.h"

namespace tpustrategy::sim {
namespace {

TEST(StepRecord, MatmulFlopsAndBytesFromShapes) {
  const StepEvent e = op_event({0, 0}, "BatchMatMulV2", {{8, 64, 32}, {8, 32, 16}}, {{8, 64, 16}}, DType::kBFloat16);
  EXPECT_EQ(e.unit, OpUnit::kMxu);
  EXPECT_DOUBLE_EQ(e.flops, 2.0 * 8 * 64 * 16 * 32);
  EXPECT_DOUBLE_EQ(e.bytes, 2.0 * (8 * 64 * 32 + 8 * 32 * 16 + 8 * 64 * 16));
  // a transposed ([k, m] = [32, 64]) gives the same k.
  const StepEvent t = op_event({0, 0}, "BatchMatMulV2", {{32, 64}, {32, 16}}, {{64, 16}}, DType::kFloat32);
  EXPECT_DOUBLE_EQ(t.flops, 2.0 * 64 * 16 * 32);
}

TEST(StepRecord, ShapeOnlyOpsMoveNoBytesOthersAreMemoryBound) {
  EXPECT_EQ(op_event({0, 0}, "Reshape", {{4, 4}}, {{16}}, DType::kFloat32).bytes, 0);
  const StepEvent add = op_event({0, 0}, "AddV2", {{4, 4}, {4, 4}}, {{4, 4}}, DType::kFloat32);
  EXPECT_EQ(add.unit, OpUnit::kVector);
  EXPECT_DOUBLE_EQ(add.bytes, 3 * 16 * 4);
  EXPECT_DOUBLE_EQ(add.flops, 16);
}

TEST(StepRecord, CountsReplicasAndRejectsBadCollectives) {
  StepRecord r;
  r.add_op({3, 1}, "Neg", {{2}}, {{2}}, DType::kFloat32);
  r.add_collective(CollectiveKind::kAllGather, {{0, 0}, {1, 0}}, DType::kFloat32, 10);
  EXPECT_EQ(r.num_replicas(), 4);
  EXPECT_EQ(r.logical_cores_per_replica(), 2);
  EXPECT_DOUBLE_EQ(r.events.back().bytes, 2 * 10 * 4);  // all-gather: the gathered array
  EXPECT_THROW(r.add_collective(CollectiveKind::kAllReduce, {}, DType::kFloat32, 1), ValueError);
  EXPECT_THROW(r.add_collective(CollectiveKind::kAllReduce, {{-1, 0}}, DType::kFloat32, 1), ValueError);
  EXPECT_THROW(r.add_op({0, -1}, "Neg", {}, {}, DType::kFloat32), ValueError);
  EXPECT_EQ(r.events.size(), 2u);
}

// Four replicas: a bf16 matmul each, then one all-reduce of 1 MB over all of them.
StepRecord data_parallel_step(int replicas) {
  StepRecord r;
  std::vector<CoreSlot> all;
  for (int i = 0; i < replicas; ++i) {
    r.add_op({i, 0}, "BatchMatMulV2", {{1024, 1024}, {1024, 1024}}, {{1024, 1024}}, DType::kBFloat16);
    all.push_back({i, 0});
  }
  r.add_collective(CollectiveKind::kAllReduce, all, DType::kFloat32, 250'000);
  return r;
}

TEST(StepEstimate, EqualsRooflinePlusCollectiveOnTheRecordedSlice) {
  const SlicePreset& preset = find_slice_preset("v5e-4");
  const StepEstimate e = estimate_step(data_parallel_step(4), preset);
  ASSERT_EQ(e.num_replicas, 4);
  const ChipSpec& chip = chip_spec(preset);
  const double op =
      op_time(chip, OpUnit::kMxu, 2.0 * 1024 * 1024 * 1024, 3.0 * 1024 * 1024 * 2, MxuDType::kBFloat16).seconds;
  const double ar =
      collective_time(chip, CollectiveKind::kAllReduce, 1e6, axes_by_name(geometry_of(preset), "xy")).seconds;
  EXPECT_NEAR(e.summary.step_time, op + ar, 1e-12);
  ASSERT_EQ(e.ops.size(), 1u);
  EXPECT_EQ(e.ops[0].count, 4);
  EXPECT_NEAR(e.ops[0].seconds, 4 * op, 1e-12);
  ASSERT_EQ(e.collectives.size(), 1u);
  EXPECT_EQ(e.collectives[0].group_size, 4);
  EXPECT_NEAR(e.collectives[0].seconds, ar, 1e-15);
  const BusBandwidth bw = bus_bandwidth(CollectiveKind::kAllReduce, 1e6, 4, ar);
  EXPECT_DOUBLE_EQ(e.collectives[0].algbw, bw.algbw);
  EXPECT_DOUBLE_EQ(e.collectives[0].busbw, bw.algbw * 2 * 3 / 4);
}

TEST(StepEstimate, WhatIfReplicatesTheProgramOntoALargerSlice) {
  const StepRecord r = data_parallel_step(4);
  const SlicePreset& v4 = find_slice_preset("v4-128");  // 64 chips, 4x4x4 with wraparound
  const StepEstimate e = estimate_step(r, v4);
  EXPECT_EQ(e.num_replicas, 64);
  ASSERT_EQ(e.collectives.size(), 1u);
  EXPECT_EQ(e.collectives[0].group_size, 64);
  EXPECT_EQ(e.ops[0].count, 64);
  const double ar =
      collective_time(chip_spec(v4), CollectiveKind::kAllReduce, 1e6, axes_by_name(geometry_of(v4), "xyz")).seconds;
  EXPECT_NEAR(e.collectives[0].seconds, ar, 1e-15);
  // Fewer replicas than cores, explicitly.
  EstimateOptions half;
  half.num_replicas = 32;
  EXPECT_EQ(estimate_step(r, v4, half).collectives[0].group_size, 32);
}

TEST(StepEstimate, SubgroupCollectivesRepeatPerBlock) {
  StepRecord r;
  r.add_collective(CollectiveKind::kAllReduce, {{0, 0}, {1, 0}}, DType::kFloat32, 1000);
  r.add_collective(CollectiveKind::kAllReduce, {{2, 0}, {3, 0}}, DType::kFloat32, 1000);
  const StepEstimate e = estimate_step(r, find_slice_preset("v4-32"));  // 16 replicas: 4 blocks of 4
  ASSERT_EQ(e.collectives.size(), 2u);
  EXPECT_EQ(e.collectives[0].instances, 4);
  EXPECT_EQ(e.collectives[0].group_size, 2);
  EstimateOptions six;
  six.num_replicas = 6;
  EXPECT_THROW(estimate_step(r, find_slice_preset("v4-32"), six), ValueError);
}

TEST(StepEstimate, RejectsBadPlacement) {
  const StepRecord r = data_parallel_step(4);
  const SlicePreset& preset = find_slice_preset("v5e-4");
  EstimateOptions too_many;
  too_many.num_replicas = 5;
  EXPECT_THROW(estimate_step(r, preset, too_many), ValueError);
  EstimateOptions repeated;
  repeated.core_of_slot = {0, 1, 1, 2};
  EXPECT_THROW(estimate_step(r, preset, repeated), ValueError);
  EstimateOptions outside;
  outside.core_of_slot = {0, 1, 2, 4};
  EXPECT_THROW(estimate_step(r, preset, outside), ValueError);
  EstimateOptions swapped;
  swapped.core_of_slot = {3, 2, 1, 0};
  swapped.keep_timeline = true;
  const StepEstimate e = estimate_step(r, preset, swapped);
  EXPECT_EQ(e.timeline.front().core, 3);  // replica 0's matmul on core 3
}

TEST(StepEstimate, AFourThousandChipWhatIfTakesUnderASecond) {
  StepRecord r;
  std::vector<CoreSlot> all;
  for (int i = 0; i < 8; ++i) all.push_back({i, 0});
  for (int layer = 0; layer < 20; ++layer) {
    for (int i = 0; i < 8; ++i) {
      r.add_op({i, 0}, "BatchMatMulV2", {{256, 512}, {512, 512}}, {{256, 512}}, DType::kBFloat16);
      r.add_op({i, 0}, "Relu", {{256, 512}}, {{256, 512}}, DType::kBFloat16);
    }
    r.add_collective(CollectiveKind::kAllReduce, all, DType::kFloat32, 512 * 512);
  }
  const auto start = std::chrono::steady_clock::now();
  const StepEstimate e = estimate_step(r, find_slice_preset("v4-8192"));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(e.num_replicas, 4096);
  EXPECT_EQ(e.collectives.front().group_size, 4096);
  EXPECT_LT(seconds, 1.0);
}

TEST(StepRecorder, RecordsOpsPerReplicaAndCollectivesWithTheirMembers) {
  StepRecorder::start();
  EXPECT_THROW(StepRecorder::start(), FailedPreconditionError);
  ReplicaContext replica2;
  replica2.mode = ReplicaMode::kReplica;
  replica2.replica_id = 2;
  replica2.num_replicas = 4;
  {
    ContextScope scope(&replica2);
    const Tensor a = Tensor::from_vector<float>(std::vector<float>(6, 1.0f), {2, 3});
    const Tensor b = Tensor::from_vector<float>(std::vector<float>(12, 1.0f), {3, 4});
    (void)op::matmul(a, b);
  }
  // Four ranks split into colours {0, 1, 0, 1}: the colour-1 group's members are ranks 1 and 3.
  std::shared_ptr<Communicator> world = make_in_process_communicator(4);
  const std::array<int, 4> colors{0, 1, 0, 1}, keys{0, 0, 0, 0};
  auto groups = world->split(colors, keys);
  std::array<float, 2> x{1, 2}, y{3, 4}, out{};
  const std::array<const void*, 2> inputs{x.data(), y.data()};
  groups.at(1)->all_reduce(DType::kFloat32, inputs, 2, CollectiveOp::kSum, out.data());
  EXPECT_FLOAT_EQ(out[0], 4);
  StepRecorder::stop();
  (void)op::neg(Tensor::from_vector<float>({1}, {1}));  // not recorded after stop
  const StepRecord r = StepRecorder::take("step", 7);
  EXPECT_EQ(r.step_num, 7);
  std::vector<const StepEvent*> matmuls, collectives;
  for (const StepEvent& e : r.events) {
    if (e.collective) collectives.push_back(&e);
    if (e.name == "BatchMatMulV2") matmuls.push_back(&e);
    EXPECT_NE(e.name, "Neg");
  }
  ASSERT_EQ(matmuls.size(), 1u);
  EXPECT_EQ(matmuls[0]->slot.replica, 2);
  EXPECT_DOUBLE_EQ(matmuls[0]->flops, 2.0 * 2 * 4 * 3);
  ASSERT_EQ(matmuls[0]->input_shapes.size(), 2u);
  EXPECT_EQ(matmuls[0]->input_shapes[1], (Shape{3, 4}));
  ASSERT_EQ(collectives.size(), 1u);
  EXPECT_EQ(collectives[0]->name, "all_reduce");
  ASSERT_EQ(collectives[0]->group.size(), 2u);
  EXPECT_EQ(collectives[0]->group[0].replica, 1);
  EXPECT_EQ(collectives[0]->group[1].replica, 3);
  EXPECT_DOUBLE_EQ(collectives[0]->bytes, 8);
  EXPECT_EQ(StepRecorder::num_events(), 0);
}

}  // namespace
}  // namespace tpustrategy::sim
