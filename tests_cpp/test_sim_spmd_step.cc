// SPMD steps in simulated time (cpp/tpustrategy/sim/spmd_step_events.h): the partitioner's per-logical-core ops and
// the collectives it inserts over logical-core subgroups become step events on the cores they ran on, and the
// estimate repeats them inside each replica; and the per-core HBM peak a recorded step carries to its estimate.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tpustrategy/autodiff/recorded_ops.h"
#include "tpustrategy/core/device.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/runtime/replica_context.h"
#include "tpustrategy/sim/spmd_step_events.h"
#include "tpustrategy/sim/step_estimate.h"
#include "tpustrategy/sim/step_recorder.h"

namespace tpustrategy::sim {
namespace {

spmd::SpmdEntry dot_entry() {
  spmd::SpmdEntry e;
  e.kind = spmd::SpmdEntryKind::kOp;
  e.name = "dot";
  e.dtype = DType::kBFloat16;
  e.shard_shapes = {{8, 16}, {8, 16}, {}, {8, 16}};
  e.holds = {true, true, false, true};
  e.flops = {100, 200, 0, 400};
  e.bytes = {10, 20, 0, 40};
  return e;
}

spmd::SpmdEntry collective_entry(const std::string& name, std::vector<std::vector<int>> groups) {
  spmd::SpmdEntry e;
  e.kind = spmd::SpmdEntryKind::kCollective;
  e.name = name;
  e.dtype = DType::kFloat32;
  e.operand_shape = {4, 8};
  e.groups = std::move(groups);
  return e;
}

TEST(SpmdStepEvents, OpsRunOnEveryHoldingCoreWithItsOwnCost) {
  const std::vector<StepEvent> events = spmd_entry_events(3, dot_entry());
  ASSERT_EQ(events.size(), 3u);  // core 2 holds nothing
  EXPECT_EQ(events[2].slot, (CoreSlot{3, 3}));
  EXPECT_EQ(events[2].unit, OpUnit::kMxu);
  EXPECT_DOUBLE_EQ(events[2].flops, 400);
  EXPECT_DOUBLE_EQ(events[2].bytes, 40);
  EXPECT_EQ(events[1].output_shapes.front(), (Shape{8, 16}));
  spmd::SpmdEntry add = dot_entry();
  add.name = "add";
  EXPECT_EQ(spmd_entry_events(0, add).front().unit, OpUnit::kVector);
}

TEST(SpmdStepEvents, CollectivesOnePerSubgroupOverTheReplicasLogicalCores) {
  const std::vector<StepEvent> events = spmd_entry_events(1, collective_entry("all-gather", {{0, 2}, {1, 3}}));
  ASSERT_EQ(events.size(), 2u);
  for (const StepEvent& e : events) {
    EXPECT_TRUE(e.collective);
    EXPECT_TRUE(e.spmd);
    EXPECT_EQ(e.kind, CollectiveKind::kAllGather);
    EXPECT_EQ(e.count, 32);
    EXPECT_DOUBLE_EQ(e.bytes, 2 * 32 * 4);  // all-gather: the gathered array
  }
  EXPECT_EQ(events[1].group, (std::vector<CoreSlot>{{1, 1}, {1, 3}}));
  // Groups of one move nothing; notes and unknown names give no events.
  EXPECT_TRUE(spmd_entry_events(0, collective_entry("all-reduce", {{0}, {1}})).empty());
  EXPECT_TRUE(spmd_entry_events(0, collective_entry("custom-call", {{0, 1}})).empty());
  spmd::SpmdEntry note;
  note.kind = spmd::SpmdEntryKind::kNote;
  EXPECT_TRUE(spmd_entry_events(0, note).empty());
}

TEST(SpmdStepEvents, HaloPermuteIsOneEventOverTheCoresThatExchange) {
  spmd::SpmdEntry permute = collective_entry("collective-permute", {});
  permute.pairs = {{0, 4}, {1, 5}, {2, 6}, {3, 7}};
  const std::vector<StepEvent> events = spmd_entry_events(0, permute);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, CollectiveKind::kCollectivePermute);
  EXPECT_EQ(events[0].group.size(), 8u);
  EXPECT_DOUBLE_EQ(events[0].bytes, 32 * 4);  // per member: its halo
  permute.pairs = {{2, 2}};                   // to itself: nothing moves
  EXPECT_TRUE(spmd_entry_events(0, permute).empty());
}

// Two recorded replicas of four logical cores: a dot on every core, then an all-reduce over cores {0, 1} and
// {2, 3} of each replica (the partitioner's subgroups).
StepRecord two_replica_spmd_step() {
  spmd::SpmdRecord spmd;
  spmd.num_cores = 4;
  spmd::SpmdEntry dot = dot_entry();
  dot.holds = {true, true, true, true};
  dot.flops = {1 << 20, 1 << 20, 1 << 20, 1 << 20};
  spmd.entries = {dot, collective_entry("all-reduce", {{0, 1}, {2, 3}})};
  StepRecord r;
  append_spmd_entries(r, 0, spmd);
  append_spmd_entries(r, 1, spmd);
  return r;
}

TEST(SpmdStepEstimate, SubgroupCollectivesStayInsideEachReplica) {
  const StepRecord r = two_replica_spmd_step();
  EXPECT_EQ(r.num_replicas(), 2);
  EXPECT_EQ(r.logical_cores_per_replica(), 4);
  EstimateOptions options;
  options.keep_timeline = true;
  // v4-32: 16 cores = 4 replicas of 4 logical cores; replicas 0 and 2 run recorded replica 0's program.
  const StepEstimate e = estimate_step(r, find_slice_preset("v4-32"), options);
  EXPECT_EQ(e.num_replicas, 4);
  ASSERT_EQ(e.collectives.size(), 4u);  // two recorded replicas x two subgroups
  for (const CollectiveStat& c : e.collectives) {
    EXPECT_EQ(c.group_size, 2);
    EXPECT_EQ(c.instances, 2);
  }
  // Every one of the 16 cores ran a dot and one all-reduce; the all-reduce members are cores of one replica.
  std::vector<int> collectives_per_core(16, 0);
  for (const TimedEvent& t : e.timeline)
    if (r.events[static_cast<std::size_t>(t.event)].collective)
      ++collectives_per_core[static_cast<std::size_t>(t.core)];
  EXPECT_EQ(collectives_per_core, std::vector<int>(16, 1));
  // One recorded replica of eight logical cores on v3-8: a group of {0, 1} is still a group of two, not of 8.
  spmd::SpmdRecord eight;
  eight.num_cores = 8;
  eight.entries = {collective_entry("all-reduce", {{0, 1}})};
  StepRecord one;
  append_spmd_entries(one, 0, eight, 0);
  one.add_op({0, 7}, "Neg", {{2}}, {{2}}, DType::kFloat32);
  const StepEstimate v3 = estimate_step(one, find_slice_preset("v3-8"));
  EXPECT_EQ(v3.num_replicas, 1);
  ASSERT_EQ(v3.collectives.size(), 1u);
  EXPECT_EQ(v3.collectives[0].group_size, 2);
  EXPECT_EQ(v3.collectives[0].instances, 1);
}

TEST(SpmdStepEstimate, AppendFromAnEntryOnward) {
  spmd::SpmdRecord spmd;
  spmd.num_cores = 4;
  spmd.entries = {dot_entry(), collective_entry("all-reduce", {{0, 1, 2, 3}})};
  StepRecord r;
  append_spmd_entries(r, 0, spmd, 1);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_TRUE(r.events[0].collective);
}

TEST(DeviceWindowPeak, FollowsAllocationsIndependentlyOfTheUserPeak) {
  Device d("/device:TPU:0", "TPU", 0, 0, {0, 0, 0, 0}, 1000);
  d.allocate(300);
  d.release(300);
  EXPECT_EQ(d.restart_window_peak(), 300);
  EXPECT_EQ(d.window_peak(), 0);  // restarted at the current usage
  d.allocate(100);
  d.allocate(50);
  d.release(150);
  EXPECT_EQ(d.window_peak(), 150);
  EXPECT_EQ(d.memory_info().peak, 300);  // the user-visible peak is untouched
  d.reset_peak();
  EXPECT_EQ(d.window_peak(), 150);  // and reset_memory_stats does not touch the window
  EXPECT_THROW(d.allocate(2000), ResourceExhaustedError);
  EXPECT_EQ(d.window_peak(), 150);
}

TEST(StepEstimateHbm, RecordedPeaksLandOnTheCoresRunningTheirSlots) {
  StepRecord r = two_replica_spmd_step();
  r.hbm = {{{0, 0}, 1000, 1 << 30}, {{1, 3}, 5000, 1 << 30}};
  const StepEstimate e = estimate_step(r, find_slice_preset("v4-32"));
  ASSERT_EQ(e.hbm_peak.size(), 16u);
  EXPECT_EQ(e.hbm_capacity, per_device_hbm_bytes(find_chip_spec("v4")));
  EXPECT_EQ(e.hbm_peak[0], 1000);   // replica 0, logical core 0
  EXPECT_EQ(e.hbm_peak[8], 1000);   // replica 2 runs replica 0's program
  EXPECT_EQ(e.hbm_peak[7], 5000);   // replica 1, logical core 3
  EXPECT_EQ(e.hbm_peak[15], 5000);  // replica 3
  EXPECT_EQ(e.hbm_peak[1], -1);     // not recorded
  EXPECT_TRUE(estimate_step(two_replica_spmd_step(), find_slice_preset("v4-32")).hbm_peak ==
              std::vector<std::int64_t>(16, -1));
}

TEST(StepRecorderSpmd, APartitionedCallIsRecordedPerLogicalCoreNotAsItsKernels) {
  std::vector<DevicePtr> devices;
  for (int k = 0; k < 4; ++k)
    devices.push_back(std::make_shared<Device>(fmt::format("/device:TPU:{}", k), "TPU", 0, k,
                                               std::array<int, 4>{k, 0, 0, 0}, 1 << 20));
  spmd::SpmdContext ctx(devices);
  ctx.record().entries.push_back(dot_entry());  // from an earlier call: not this one's
  ReplicaContext replica1;
  replica1.mode = ReplicaMode::kReplica;
  replica1.replica_id = 1;
  replica1.num_replicas = 2;
  StepRecorder::start();
  {
    ContextScope scope(&replica1);
    StepRecorder::SpmdScope call(ctx);
    (void)op::neg(Tensor::from_vector<float>({1, 2}, {2}));  // a per-core kernel: not the replica's op
    ctx.record().entries.push_back(collective_entry("all-reduce", {{0, 1}, {2, 3}}));
    call.commit();
  }
  StepRecorder::stop();
  const StepRecord r = StepRecorder::take();
  ASSERT_EQ(r.events.size(), 2u);
  for (const StepEvent& e : r.events) {
    EXPECT_TRUE(e.spmd);
    EXPECT_EQ(e.group.front().replica, 1);
  }
  EXPECT_EQ(r.events[1].group, (std::vector<CoreSlot>{{1, 2}, {1, 3}}));
  ASSERT_EQ(r.hbm.size(), 4u);  // each logical core's device, learned from the context
  EXPECT_EQ(r.hbm[3].slot, (CoreSlot{1, 3}));
  EXPECT_EQ(r.hbm[3].capacity, 1 << 20);
}

}  // namespace
}  // namespace tpustrategy::sim
