// The Communicator: every op of the in-process and single-participant backends against hand-computed
// values, subgroups made by split(color, key), bad arguments (typed errors, nothing written), and the
// observer hook that sees every call.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "tpustrategy/collectives/collective_observer.h"
#include "tpustrategy/collectives/communicator.h"
#include "tpustrategy/collectives/mesh_axis_split.h"
#include "tpustrategy/core/errors.h"

namespace tpustrategy {
namespace {

using Buffers = std::vector<std::vector<float>>;

std::vector<const void*> ins(const Buffers& b) {
  std::vector<const void*> p;
  for (const auto& v : b) p.push_back(v.data());
  return p;
}
std::vector<void*> outs(Buffers& b) {
  std::vector<void*> p;
  for (auto& v : b) p.push_back(v.data());
  return p;
}

// Records every collective it is told about.
class Recorder : public CollectiveObserver {
 public:
  void on_collective(const CollectiveEvent& event) override {
    std::lock_guard lock(mutex);
    events.push_back(event);
  }
  std::mutex mutex;
  std::vector<CollectiveEvent> events;
};

TEST(InProcessCommunicator, DescribesItsGroup) {
  auto comm = make_in_process_communicator(4);
  EXPECT_EQ(comm->backend(), "in_process");
  EXPECT_EQ(comm->size(), 4);
  EXPECT_EQ(std::vector<int>(comm->local_ranks().begin(), comm->local_ranks().end()), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(comm->process_index(), 0);
  EXPECT_EQ(comm->process_count(), 1);
}

TEST(InProcessCommunicator, AllReduceEveryOp) {
  auto comm = make_in_process_communicator(3);
  const Buffers in = {{1, -2}, {4, 5}, {-3, 2}};
  std::vector<float> out(2);
  comm->all_reduce(DType::kFloat32, ins(in), 2, CollectiveOp::kSum, out.data());
  EXPECT_EQ(out, (std::vector<float>{2, 5}));
  comm->all_reduce(DType::kFloat32, ins(in), 2, CollectiveOp::kMean, out.data());
  EXPECT_FLOAT_EQ(out[0], 2.f / 3.f);
  EXPECT_FLOAT_EQ(out[1], 5.f / 3.f);
  comm->all_reduce(DType::kFloat32, ins(in), 2, CollectiveOp::kMax, out.data());
  EXPECT_EQ(out, (std::vector<float>{4, 5}));
  comm->all_reduce(DType::kFloat32, ins(in), 2, CollectiveOp::kMin, out.data());
  EXPECT_EQ(out, (std::vector<float>{-3, -2}));
  comm->all_reduce(DType::kFloat32, ins(in), 2, CollectiveOp::kProd, out.data());
  EXPECT_EQ(out, (std::vector<float>{-12, -20}));
}

TEST(InProcessCommunicator, AllGatherReduceScatterBroadcastAllToAllPermute) {
  auto comm = make_in_process_communicator(2);
  const Buffers in = {{1, 2, 3, 4}, {5, 6, 7, 8}};
  std::vector<float> gathered(8);
  comm->all_gather(DType::kFloat32, ins(in), 4, gathered.data());
  EXPECT_EQ(gathered, (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));

  Buffers scattered(2, std::vector<float>(2));
  comm->reduce_scatter(DType::kFloat32, ins(in), 4, CollectiveOp::kSum, outs(scattered));
  EXPECT_EQ(scattered, (Buffers{{6, 8}, {10, 12}}));

  Buffers broadcast(2, std::vector<float>(4));
  comm->broadcast(DType::kFloat32, ins(in), 4, 1, outs(broadcast));
  EXPECT_EQ(broadcast, (Buffers{{5, 6, 7, 8}, {5, 6, 7, 8}}));

  Buffers exchanged(2, std::vector<float>(4));
  comm->all_to_all(DType::kFloat32, ins(in), 4, outs(exchanged));
  EXPECT_EQ(exchanged, (Buffers{{1, 2, 5, 6}, {3, 4, 7, 8}}));

  Buffers permuted(2, std::vector<float>(4, -1));
  const std::vector<std::pair<int, int>> pairs = {{0, 1}};
  comm->collective_permute(DType::kFloat32, ins(in), 4, pairs, outs(permuted));
  EXPECT_EQ(permuted, (Buffers{{0, 0, 0, 0}, {1, 2, 3, 4}}));  // rank 0 is targeted by no pair: zeros
  comm->barrier();
}

TEST(InProcessCommunicator, SplitMakesSubgroupsRankedByKey) {
  auto comm = make_in_process_communicator(6);
  // Colours: {0, 2, 4} and {1, 3, 5}; rank 5 left out; keys reverse the order within each colour.
  const std::vector<int> color = {0, 1, 0, 1, 0, -1};
  const std::vector<int> key = {3, 2, 1, 0, 1, 0};
  auto groups = comm->split(color, key);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups.at(0)->size(), 3);
  EXPECT_EQ(groups.at(1)->size(), 2);
  // A subgroup is a full group of its own: its collectives span its members only.
  const Buffers in = {{1}, {10}, {100}};
  std::vector<float> out(1);
  groups.at(0)->all_reduce(DType::kFloat32, ins(in), 1, CollectiveOp::kSum, out.data());
  EXPECT_EQ(out[0], 111.f);
  EXPECT_THROW(groups.at(1)->all_reduce(DType::kFloat32, ins(in), 1, CollectiveOp::kSum, out.data()),
               InvalidArgumentError);
  // Subgroups split further.
  auto halves = groups.at(0)->split(std::vector<int>{0, 0, 1}, std::vector<int>{0, 0, 0});
  EXPECT_EQ(halves.at(0)->size(), 2);
  EXPECT_EQ(halves.at(1)->size(), 1);
}

TEST(CommunicatorSplit, RanksFollowKeyThenParentRank) {
  auto comm = make_in_process_communicator(4);
  // All one colour with keys 1, 0, 1, 0: subgroup order is ranks 1, 3, 0, 2. A gather shows the order.
  auto groups = comm->split(std::vector<int>{7, 7, 7, 7}, std::vector<int>{1, 0, 1, 0});
  ASSERT_EQ(groups.count(7), 1u);
  auto sub = groups.at(7);
  const Buffers in = {{1}, {3}, {0}, {2}};  // given in subgroup-rank order: parent ranks 1, 3, 0, 2
  std::vector<float> out(4);
  sub->all_gather(DType::kFloat32, ins(in), 1, out.data());
  EXPECT_EQ(out, (std::vector<float>{1, 3, 0, 2}));
}

// The ranks of `group` in its rank order, found by all-gathering every member's parent rank.
std::vector<float> members_of(Communicator& group, const std::vector<int>& parent_ranks) {
  Buffers in;
  for (int r : parent_ranks) in.push_back({static_cast<float>(r)});
  std::vector<float> out(static_cast<std::size_t>(group.size()));
  group.all_gather(DType::kFloat32, ins(in), 1, out.data());
  return out;
}

TEST(MeshAxisSplit, RowsAndColumnsOfATwoByFourMesh) {
  auto comm = make_in_process_communicator(8);
  const std::array<int, 2> mesh{2, 4};
  const std::array<bool, 2> rows_keep{false, true}, columns_keep{true, false};
  auto rows = split_mesh_axes(*comm, mesh, rows_keep);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(members_of(*rows.at(0), {0, 1, 2, 3}), (std::vector<float>{0, 1, 2, 3}));
  EXPECT_EQ(members_of(*rows.at(1), {4, 5, 6, 7}), (std::vector<float>{4, 5, 6, 7}));
  auto columns = split_mesh_axes(*comm, mesh, columns_keep);
  ASSERT_EQ(columns.size(), 4u);
  for (int c = 0; c < 4; ++c) {
    EXPECT_EQ(columns.at(c)->size(), 2);
    EXPECT_EQ(members_of(*columns.at(c), {c, 4 + c}), (std::vector<float>{float(c), float(4 + c)}));
    EXPECT_EQ(mesh_subgroup_color(mesh, columns_keep, 4 + c), c);
  }
  EXPECT_EQ(mesh_subgroup_color(mesh, rows_keep, 6), 1);
  // A column's all_reduce sums exactly its two ranks.
  const Buffers in = {{2}, {40}};
  std::vector<float> out(1);
  columns.at(3)->all_reduce(DType::kFloat32, ins(in), 1, CollectiveOp::kSum, out.data());
  EXPECT_EQ(out[0], 42.0f);
}

TEST(MeshAxisSplit, ThreeDimensionalMeshKeepsTwoAxesRowMajor) {
  auto comm = make_in_process_communicator(12);
  const std::array<int, 3> mesh{2, 3, 2};
  const std::array<bool, 3> keep{true, false, true};  // planes of axes 0 and 2, one per axis-1 coordinate
  auto planes = split_mesh_axes(*comm, mesh, keep);
  ASSERT_EQ(planes.size(), 3u);
  for (int y = 0; y < 3; ++y) {
    // rank = 6 x + 2 y + z; ranked by (x, z).
    std::vector<int> expected{2 * y, 2 * y + 1, 6 + 2 * y, 7 + 2 * y};
    std::vector<float> as_float(expected.begin(), expected.end());
    EXPECT_EQ(members_of(*planes.at(y), expected), as_float);
  }
  const std::array<bool, 3> all{true, true, true}, none{false, false, false};
  EXPECT_EQ(split_mesh_axes(*comm, mesh, all).at(0)->size(), 12);
  EXPECT_EQ(split_mesh_axes(*comm, mesh, none).size(), 12u);  // every rank alone
}

TEST(MeshAxisSplit, BadMeshesAreInvalidArgumentNamingTheValue) {
  auto comm = make_in_process_communicator(8);
  const std::array<int, 2> wrong_size{3, 3}, zero{0, 8};
  const std::array<int, 1> flat{8};
  const std::array<bool, 2> keep{true, false};
  try {
    split_mesh_axes(*comm, wrong_size, keep);
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("mesh [3, 3] has 9 positions but the group has 8 ranks"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(split_mesh_axes(*comm, zero, keep), InvalidArgumentError);
  EXPECT_THROW(split_mesh_axes(*comm, flat, keep), InvalidArgumentError);
  EXPECT_THROW(mesh_subgroup_color(flat, std::array<bool, 1>{true}, 8), InvalidArgumentError);
}

TEST(CommunicatorSplit, BadSpansAreInvalidArgument) {
  auto comm = make_in_process_communicator(3);
  EXPECT_THROW(comm->split(std::vector<int>{0, 0}, std::vector<int>{0, 0, 0}), InvalidArgumentError);
  EXPECT_THROW(comm->split(std::vector<int>{0, 0, 0}, std::vector<int>{0}), InvalidArgumentError);
  EXPECT_TRUE(comm->split(std::vector<int>{-1, -1, -1}, std::vector<int>{0, 0, 0}).empty());
}

TEST(InProcessCommunicator, BadArgumentsThrowBeforeWriting) {
  auto comm = make_in_process_communicator(2);
  const Buffers in = {{1, 2, 3}, {4, 5, 6}};
  const Buffers three = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
  std::vector<float> out(6, -1.f);
  // Wrong number of participants, negative count, count not divisible, root out of range, bad pairs.
  EXPECT_THROW(comm->all_reduce(DType::kFloat32, ins(three), 3, CollectiveOp::kSum, out.data()), InvalidArgumentError);
  EXPECT_THROW(comm->all_gather(DType::kFloat32, ins(three), 3, out.data()), InvalidArgumentError);
  EXPECT_THROW(comm->all_reduce(DType::kFloat32, ins(in), -1, CollectiveOp::kSum, out.data()), InvalidArgumentError);
  Buffers o(2, std::vector<float>(3, -1.f));
  EXPECT_THROW(comm->reduce_scatter(DType::kFloat32, ins(in), 3, CollectiveOp::kSum, outs(o)), InvalidArgumentError);
  EXPECT_THROW(comm->all_to_all(DType::kFloat32, ins(in), 3, outs(o)), InvalidArgumentError);
  EXPECT_THROW(comm->broadcast(DType::kFloat32, ins(in), 3, 2, outs(o)), InvalidArgumentError);
  EXPECT_THROW(comm->broadcast(DType::kFloat32, ins(in), 3, -1, outs(o)), InvalidArgumentError);
  const std::vector<std::pair<int, int>> duplicate_target = {{0, 1}, {1, 1}};
  EXPECT_THROW(comm->collective_permute(DType::kFloat32, ins(in), 3, duplicate_target, outs(o)), InvalidArgumentError);
  const std::vector<std::pair<int, int>> out_of_range = {{0, 2}};
  EXPECT_THROW(comm->collective_permute(DType::kFloat32, ins(in), 3, out_of_range, outs(o)), InvalidArgumentError);
  Buffers one_output(1, std::vector<float>(3, -1.f));
  EXPECT_THROW(comm->broadcast(DType::kFloat32, ins(in), 3, 0, outs(one_output)), InvalidArgumentError);
  bool flags[2] = {true, false};
  const void* flag_ptrs[2] = {&flags[0], &flags[1]};
  bool flag_out = false;
  EXPECT_THROW(comm->all_reduce(DType::kBool, flag_ptrs, 1, CollectiveOp::kMean, &flag_out), InvalidArgumentError);
  EXPECT_EQ(out, std::vector<float>(6, -1.f));
  EXPECT_EQ(o, Buffers(2, std::vector<float>(3, -1.f)));
  EXPECT_THROW(make_in_process_communicator(0), InvalidArgumentError);
}

TEST(SingleCommunicator, EveryOpIsACopy) {
  auto comm = make_single_communicator();
  EXPECT_EQ(comm->backend(), "single");
  EXPECT_EQ(comm->size(), 1);
  ASSERT_EQ(comm->local_ranks().size(), 1u);
  EXPECT_EQ(comm->local_ranks()[0], 0);
  const Buffers in = {{3, -1, 8}};
  for (CollectiveOp op : kAllCollectiveOps) {
    std::vector<float> out(3);
    comm->all_reduce(DType::kFloat32, ins(in), 3, op, out.data());
    EXPECT_EQ(out, in[0]) << collective_op_name(op);
  }
  std::vector<float> gathered(3);
  comm->all_gather(DType::kFloat32, ins(in), 3, gathered.data());
  EXPECT_EQ(gathered, in[0]);
  Buffers o(1, std::vector<float>(3));
  comm->reduce_scatter(DType::kFloat32, ins(in), 3, CollectiveOp::kSum, outs(o));
  EXPECT_EQ(o[0], in[0]);
  o[0].assign(3, 0);
  comm->broadcast(DType::kFloat32, ins(in), 3, 0, outs(o));
  EXPECT_EQ(o[0], in[0]);
  o[0].assign(3, 0);
  comm->all_to_all(DType::kFloat32, ins(in), 3, outs(o));
  EXPECT_EQ(o[0], in[0]);
  const std::vector<std::pair<int, int>> self = {{0, 0}};
  o[0].assign(3, 0);
  comm->collective_permute(DType::kFloat32, ins(in), 3, self, outs(o));
  EXPECT_EQ(o[0], in[0]);
  o[0].assign(3, 5);
  comm->collective_permute(DType::kFloat32, ins(in), 3, {}, outs(o));
  EXPECT_EQ(o[0], std::vector<float>(3, 0));
  comm->barrier();
  auto split = comm->split(std::vector<int>{4}, std::vector<int>{0});
  ASSERT_EQ(split.count(4), 1u);
  EXPECT_EQ(split.at(4)->backend(), "single");
}

TEST(SingleCommunicator, BadArguments) {
  auto comm = make_single_communicator();
  const Buffers two = {{1}, {2}};
  std::vector<float> out(2);
  EXPECT_THROW(comm->all_reduce(DType::kFloat32, ins(two), 1, CollectiveOp::kSum, out.data()), InvalidArgumentError);
  Buffers o(1, std::vector<float>(1));
  const Buffers one = {{1}};
  EXPECT_THROW(comm->broadcast(DType::kFloat32, ins(one), 1, 1, outs(o)), InvalidArgumentError);
  const std::vector<std::pair<int, int>> bad = {{0, 1}};
  EXPECT_THROW(comm->collective_permute(DType::kFloat32, ins(one), 1, bad, outs(o)), InvalidArgumentError);
  EXPECT_THROW(comm->split(std::vector<int>{0, 0}, std::vector<int>{0, 0}), InvalidArgumentError);
}

TEST(SharedInProcessCommunicator, OnePerSizeAndSingleForOne) {
  EXPECT_EQ(shared_in_process_communicator(3), shared_in_process_communicator(3));
  EXPECT_EQ(shared_in_process_communicator(3)->size(), 3);
  EXPECT_EQ(shared_in_process_communicator(1)->backend(), "single");
  EXPECT_THROW(shared_in_process_communicator(0), InvalidArgumentError);
}

TEST(CollectiveObserver, SeesEveryCallOfEveryBackendAndSubgroup) {
  auto recorder = std::make_shared<Recorder>();
  auto comm = make_in_process_communicator(2);
  auto single = make_single_communicator();
  auto sub = comm->split(std::vector<int>{0, -1}, std::vector<int>{0, 0}).at(0);
  const Buffers in = {{1, 2}, {3, 4}};
  std::vector<float> out(4);
  comm->all_reduce(DType::kFloat32, ins(in), 2, CollectiveOp::kSum, out.data());  // before registering: unseen
  {
    ObserverRegistration registration = add_collective_observer(recorder);
    comm->all_reduce(DType::kFloat32, ins(in), 2, CollectiveOp::kMax, out.data());
    comm->all_gather(DType::kFloat32, ins(in), 2, out.data());
    Buffers o(2, std::vector<float>(2));
    comm->broadcast(DType::kFloat32, ins(in), 2, 1, outs(o));
    const Buffers one = {{7}};
    single->all_reduce(DType::kFloat32, ins(one), 1, CollectiveOp::kSum, out.data());
    sub->all_reduce(DType::kFloat32, ins(one), 1, CollectiveOp::kSum, out.data());
  }
  comm->all_reduce(DType::kFloat32, ins(in), 2, CollectiveOp::kSum, out.data());  // unregistered: unseen
  ASSERT_EQ(recorder->events.size(), 5u);
  EXPECT_EQ(recorder->events[0].kind, CollectiveKind::kAllReduce);
  EXPECT_EQ(recorder->events[0].op, CollectiveOp::kMax);
  EXPECT_EQ(recorder->events[0].count, 2);
  EXPECT_EQ(recorder->events[0].group_size, 2);
  EXPECT_EQ(recorder->events[0].backend, "in_process");
  EXPECT_EQ(recorder->events[1].kind, CollectiveKind::kAllGather);
  EXPECT_EQ(recorder->events[2].kind, CollectiveKind::kBroadcast);
  EXPECT_EQ(recorder->events[2].root, 1);
  EXPECT_EQ(recorder->events[3].backend, "single");
  EXPECT_EQ(recorder->events[4].group_size, 1);  // the subgroup of rank 0
  EXPECT_EQ(observed(comm), comm);               // wrapping twice is a no-op
}

TEST(CollectiveObserver, AThrowingObserverStopsTheCollectiveBeforeDataMoves) {
  struct Refuser : CollectiveObserver {
    void on_collective(const CollectiveEvent&) override {
      fail<FailedPreconditionError>("Refuser", "collectives are disabled");
    }
  };
  ObserverRegistration registration = add_collective_observer(std::make_shared<Refuser>());
  auto comm = make_in_process_communicator(2);
  const Buffers in = {{1}, {2}};
  std::vector<float> out(1, -1.f);
  EXPECT_THROW(comm->all_reduce(DType::kFloat32, ins(in), 1, CollectiveOp::kSum, out.data()), FailedPreconditionError);
  EXPECT_EQ(out[0], -1.f);
}

}  // namespace
}  // namespace tpustrategy
