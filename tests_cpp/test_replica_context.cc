// The per-replica execution context (one thread-local pointer, read by every allocation), and the one
// hook point: a CollectiveObserver sees every collective of both front ends — the thread runner and
// the tensor-level functions the cooperative (greenlet) front end runs on complete().
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tpustrategy/collectives/collective_observer.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/distribute/cross_replica.h"
#include "tpustrategy/runtime/rendezvous.h"
#include "tpustrategy/runtime/replica_context.h"
#include "tpustrategy/runtime/replica_runner.h"
#include "watchdog.h"

namespace tpustrategy {
namespace {

using ::tpustrategy::testing::bounded;

DevicePtr make_device(int index) {
  return std::make_shared<Device>("/job:worker/replica:0/task:0/device:TPU:" + std::to_string(index), "TPU", 0, index,
                                  std::array<int, 4>{0, 0, 0, index}, 1 << 20);
}

class Counter : public CollectiveObserver {
 public:
  void on_collective(const CollectiveEvent& event) override {
    std::lock_guard lock(mutex_);
    ++counts_[std::string(collective_kind_name(event.kind))];
    sizes_.push_back(event.group_size);
  }
  std::map<std::string, int> counts() {
    std::lock_guard lock(mutex_);
    return counts_;
  }
  std::vector<int> sizes() {
    std::lock_guard lock(mutex_);
    return sizes_;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, int> counts_;
  std::vector<int> sizes_;
};

TEST(ReplicaContext, NewTensorsLandOnTheCurrentContextsDevice) {
  DevicePtr d = make_device(3);
  ReplicaContext context;
  context.device = d;
  context.mode = ReplicaMode::kReplica;
  context.replica_id = 3;
  {
    ContextScope bound(&context);
    EXPECT_EQ(&current_context(), &context);
    EXPECT_EQ(Tensor::zeros(DType::kFloat32, {4}).device(), d);
    EXPECT_EQ(d->memory_info().current, 0);  // the temporary above was released
    EXPECT_EQ(current_context().replica_id, 3);
  }
  EXPECT_EQ(&current_context(), &thread_default_context());
  EXPECT_NE(Tensor::zeros(DType::kFloat32, {4}).device(), d);
  EXPECT_EQ(replica_mode_name(ReplicaMode::kMerge), "merge");
}

TEST(ReplicaContext, SwitchingIsOnePointerPerThread) {
  ReplicaContext a, b;
  a.replica_id = 0;
  b.replica_id = 1;
  set_current_context(&a);
  std::atomic<int> other_thread_sees{-2};
  std::thread t([&] { other_thread_sees = current_context().replica_id; });
  t.join();
  EXPECT_EQ(other_thread_sees.load(), -1);  // a fresh thread has its own default context
  EXPECT_EQ(current_context().replica_id, 0);
  set_current_context(&b);
  EXPECT_EQ(current_context().replica_id, 1);
  set_current_context(nullptr);
  EXPECT_EQ(current_context().replica_id, -1);
  EXPECT_EQ(current_context().mode, ReplicaMode::kCrossReplica);
  EXPECT_FALSE(current_context().tape_stack);  // slots of later layers start empty
  EXPECT_FALSE(current_context().trace_recorder);
  EXPECT_FALSE(current_context().cost_accumulators);
}

TEST(ReplicaContext, TheThreadRunnerGivesEachReplicaItsContext) {
  std::vector<int> seen(4, -9);
  std::vector<ReplicaMode> modes(4);
  bounded([&] {
    run_replicas(4, [&](ReplicaCtx& ctx) {
      seen[ctx.replica_id()] = current_context().replica_id;
      modes[ctx.replica_id()] = current_context().mode;
      ctx.barrier();
    });
  });
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 3}));
  for (ReplicaMode m : modes) EXPECT_EQ(m, ReplicaMode::kReplica);
}

TEST(CollectiveHook, SeesEveryCollectiveOfTheThreadRunner) {
  auto counter = std::make_shared<Counter>();
  ObserverRegistration registration = add_collective_observer(counter);
  bounded([&] {
    run_replicas(4, [](ReplicaCtx& ctx) {
      std::vector<float> x = {1.f, 2.f, 3.f, 4.f};
      ctx.all_reduce(x, CollectiveOp::kSum);
      ctx.all_gather(x);
      ctx.reduce_scatter(x, CollectiveOp::kSum);
      ctx.broadcast(x, 2);
      ctx.all_to_all(x);
      ctx.collective_permute(x, {{0, 1}, {1, 0}});
      ctx.barrier();
      if (ctx.replica_id() < 2) ctx.all_reduce(x, CollectiveOp::kMax, {0, 1});  // a subgroup
    });
  });
  const std::map<std::string, int> expected = {{"all_reduce", 2}, {"all_gather", 1}, {"reduce_scatter", 1},
                                               {"broadcast", 1},  {"all_to_all", 1}, {"collective_permute", 1},
                                               {"barrier", 1}};
  EXPECT_EQ(counter->counts(), expected);  // once per collective, not once per replica
  EXPECT_EQ(counter->sizes().back(), 2);   // the subgroup's communicator
}

TEST(CollectiveHook, SeesTheTensorFunctionsOfTheCooperativeFrontEnd) {
  auto counter = std::make_shared<Counter>();
  ObserverRegistration registration = add_collective_observer(counter);
  DevicePtr d0 = make_device(0), d1 = make_device(1);
  std::vector<Tensor> inputs = {Tensor::from_vector<float>({1, 2}, {2}, d0),
                                Tensor::from_vector<float>({3, 4}, {2}, d1)};
  std::vector<DevicePtr> destinations = {d0, d1};
  // The cooperative front end: replicas arrive one after another on one thread; complete() runs the
  // tensor-level collectives over every contribution.
  Rendezvous rendezvous(
      2,
      [&](std::span<const Contribution> c) {
        std::vector<Tensor> in = {*static_cast<Tensor*>(c[0].payload.get()), *static_cast<Tensor*>(c[1].payload.get())};
        std::vector<Tensor> reduced = all_reduce_tensors(in, CollectiveOp::kSum, destinations);
        all_gather_tensors(in, 0, destinations);
        reduce_scatter_tensors(in, CollectiveOp::kSum, destinations);
        return std::vector<CollectiveResult>{std::make_shared<Tensor>(reduced[0]),
                                             std::make_shared<Tensor>(reduced[1])};
      },
      "replicas", {0, 1});
  CollectiveDesc desc;
  desc.kind = CollectiveKind::kAllReduce;
  desc.shape = {2};
  EXPECT_FALSE(rendezvous.arrive(0, Contribution{desc, nullptr, nullptr, std::make_shared<Tensor>(inputs[0])}));
  EXPECT_TRUE(rendezvous.arrive(1, Contribution{desc, nullptr, nullptr, std::make_shared<Tensor>(inputs[1])}));
  std::vector<CollectiveResult> results = rendezvous.complete();
  EXPECT_EQ(static_cast<Tensor*>(results[1].get())->to_vector<float>(), (std::vector<float>{4, 6}));
  const std::map<std::string, int> expected = {{"all_reduce", 1}, {"all_gather", 1}, {"reduce_scatter", 1}};
  EXPECT_EQ(counter->counts(), expected);
}

TEST(CooperativeRendezvous, NestMismatchesAreValueErrorsNamingReplicas) {
  Rendezvous rendezvous(3, [](std::span<const Contribution>) { return std::vector<CollectiveResult>{}; }, "replicas",
                        {0, 1, 2});
  CollectiveDesc a;
  a.kind = CollectiveKind::kAllReduce;
  a.structure = "{'b': *}";
  a.leaves = {LeafSpec{DType::kFloat32, {2}}};
  CollectiveDesc b = a;
  b.structure = "{'a': *}";
  EXPECT_FALSE(rendezvous.arrive(0, Contribution{a, nullptr, nullptr, nullptr}));
  try {
    rendezvous.arrive(1, Contribution{b, nullptr, nullptr, nullptr});
    ADD_FAILURE() << "no error";
  } catch (const ValueError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("replica 1 issued all_reduce{op=SUM, structure={'a': *}"), std::string::npos) << message;
    EXPECT_NE(message.find("replica 0 issued"), std::string::npos) << message;
    EXPECT_NE(message.find("differing: structure"), std::string::npos) << message;
  }
  rendezvous.reset();
  // Same structure, a leaf of another dtype: InvalidArgumentError.
  CollectiveDesc c = a;
  c.leaves[0].dtype = DType::kFloat64;
  EXPECT_FALSE(rendezvous.arrive(0, Contribution{a, nullptr, nullptr, nullptr}));
  EXPECT_THROW(rendezvous.arrive(2, Contribution{c, nullptr, nullptr, nullptr}), InvalidArgumentError);
  rendezvous.reset();
  // merge_call against a collective: RuntimeError (replicas made different numbers of merge_calls).
  CollectiveDesc merge;
  merge.kind = CollectiveKind::kMergeCall;
  EXPECT_FALSE(rendezvous.arrive(0, Contribution{merge, nullptr, nullptr, nullptr}));
  EXPECT_THROW(rendezvous.arrive(1, Contribution{a, nullptr, nullptr, nullptr}), RuntimeError);
  rendezvous.reset();
  // A replica finishing while others wait in merge_call: RuntimeError too, naming both.
  EXPECT_FALSE(rendezvous.arrive(0, Contribution{merge, nullptr, nullptr, nullptr}));
  EXPECT_TRUE(rendezvous.depart(2));
  try {
    rendezvous.raise_if_failed();
    ADD_FAILURE() << "no error";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("replica 2 finished without joining merge_call"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tpustrategy
