// Thread-per-replica runner: replica contexts and collectives from C++, subgroups, and the failure
// paths (a throwing replica, a replica that leaves early, mismatched collectives). Watchdog-bounded.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/runtime/replica_runner.h"
#include "watchdog.h"

namespace tpustrategy {
namespace {

using ::tpustrategy::testing::bounded;

// Runs run_replicas under the watchdog and returns the message of the expected error type.
template <typename Error>
std::string run_expecting(int n, const std::function<void(ReplicaCtx&)>& fn) {
  std::string message;
  bounded([&] {
    try {
      run_replicas(n, fn);
      ADD_FAILURE() << "run_replicas did not throw";
    } catch (const Error& e) {
      message = e.what();
    }
  });
  return message;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

class ReplicaRunnerAllOpsTest : public ::testing::TestWithParam<int> {};

TEST_P(ReplicaRunnerAllOpsTest, ContextAndEveryCollective) {
  const int n = GetParam();
  std::atomic<int> checked{0};
  bounded([&] {
    run_replicas(n, [&](ReplicaCtx& ctx) {
      const int r = ctx.replica_id();
      EXPECT_EQ(ctx.num_replicas(), n);
      const float fr = static_cast<float>(r);
      // all_reduce, every op.
      EXPECT_EQ(ctx.all_reduce(std::vector<float>{fr, 2 * fr}, CollectiveOp::kSum),
                (std::vector<float>{n * (n - 1) / 2.f, n * (n - 1.f)}));
      EXPECT_EQ(ctx.all_reduce(std::vector<std::int32_t>{r}, CollectiveOp::kMean),
                (std::vector<std::int32_t>{(n - 1) / 2}));
      EXPECT_EQ(ctx.all_reduce(std::vector<std::int64_t>{r, -r}, CollectiveOp::kMax),
                (std::vector<std::int64_t>{n - 1, 0}));
      EXPECT_EQ(ctx.all_reduce(std::vector<double>{fr + 1}, CollectiveOp::kMin), (std::vector<double>{1}));
      std::int64_t factorial = 1;
      for (int i = 2; i <= n; ++i) factorial *= i;
      EXPECT_EQ(ctx.all_reduce(std::vector<std::int64_t>{r + 1}, CollectiveOp::kProd),
                (std::vector<std::int64_t>{factorial}));
      // all_gather: concatenation in replica order.
      std::vector<std::int32_t> gathered = ctx.all_gather(std::vector<std::int32_t>{r, 100 + r});
      for (int i = 0; i < n; ++i) {
        EXPECT_EQ(gathered[2 * i], i);
        EXPECT_EQ(gathered[2 * i + 1], 100 + i);
      }
      // reduce_scatter: replica r gets chunk r of the sum.
      std::vector<float> full(2 * n);
      std::iota(full.begin(), full.end(), 0.f);
      EXPECT_EQ(ctx.reduce_scatter(full, CollectiveOp::kSum), (std::vector<float>{2.f * r * n, (2.f * r + 1) * n}));
      // broadcast from the last replica.
      EXPECT_EQ(ctx.broadcast(std::vector<double>{fr, fr}, n - 1), (std::vector<double>{n - 1.0, n - 1.0}));
      // all_to_all: element j of replica i lands at position i of replica j.
      std::vector<std::int32_t> row(n);
      for (int j = 0; j < n; ++j) row[j] = 10 * r + j;
      std::vector<std::int32_t> column = ctx.all_to_all(row);
      for (int i = 0; i < n; ++i) EXPECT_EQ(column[i], 10 * i + r);
      // collective_permute: shift right by one, replica 0 receives zeros.
      std::vector<std::pair<int, int>> shift;
      for (int i = 0; i + 1 < n; ++i) shift.emplace_back(i, i + 1);
      EXPECT_EQ(ctx.collective_permute(std::vector<float>{fr + 1}, shift), (std::vector<float>{r == 0 ? 0.f : fr}));
      // half precision goes through the raw-buffer API like any other dtype.
      Eigen::half h(0.5f), out;
      ctx.all_reduce(DType::kFloat16, &h, 1, CollectiveOp::kSum, &out);
      EXPECT_EQ(static_cast<float>(out), 0.5f * n);
      bool flag = r == 0, any = false;
      ctx.all_reduce(DType::kBool, &flag, 1, CollectiveOp::kMax, &any);
      EXPECT_TRUE(any);
      ctx.barrier();
      ++checked;
    });
  });
  EXPECT_EQ(checked.load(), n);
}

INSTANTIATE_TEST_SUITE_P(Replicas, ReplicaRunnerAllOpsTest, ::testing::Values(1, 2, 3, 8),
                         [](const auto& info) { return std::to_string(info.param) + "replicas"; });

TEST(ReplicaRunnerTest, SubgroupsOnlyInvolveTheirMembers) {
  bounded([] {
    run_replicas(8, [](ReplicaCtx& ctx) {
      const int r = ctx.replica_id();
      // Two disjoint groups reduce independently (as SPMD does over one mesh axis).
      const ReplicaGroup parity = r % 2 == 0 ? ReplicaGroup{0, 2, 4, 6} : ReplicaGroup{1, 3, 5, 7};
      EXPECT_EQ(ctx.all_reduce(std::vector<std::int32_t>{r}, CollectiveOp::kSum, parity),
                (std::vector<std::int32_t>{r % 2 == 0 ? 12 : 16}));
      // Participant order is the listed order.
      if (r == 3 || r == 1) {
        EXPECT_EQ(ctx.all_gather(std::vector<std::int32_t>{r}, {3, 1}), (std::vector<std::int32_t>{3, 1}));
        // Roots and pairs are replica ids.
        EXPECT_EQ(ctx.broadcast(std::vector<std::int32_t>{r}, 1, {3, 1}), (std::vector<std::int32_t>{1}));
        EXPECT_EQ(ctx.collective_permute(std::vector<std::int32_t>{r}, {{3, 1}}, {3, 1}),
                  (std::vector<std::int32_t>{r == 1 ? 3 : 0}));
      }
      // Then everybody together again.
      EXPECT_EQ(ctx.all_reduce(std::vector<std::int32_t>{1}, CollectiveOp::kSum), (std::vector<std::int32_t>{8}));
    });
  });
}

TEST(ReplicaRunnerTest, LargeAllReducePooledPath) {
  bounded([] {
    const std::int64_t count = (1 << 20) + 5;
    run_replicas(8, [&](ReplicaCtx& ctx) {
      std::vector<float> mine(count, static_cast<float>(ctx.replica_id()));
      std::vector<float> sum = ctx.all_reduce(mine, CollectiveOp::kMean);
      for (std::int64_t k = 0; k < count; k += 4099) ASSERT_EQ(sum[k], 3.5f);
      ASSERT_EQ(sum.back(), 3.5f);
    });
  });
}

TEST(ReplicaRunnerTest, ThousandsOfSmallCollectives) {
  bounded([] {
    run_replicas(4, [](ReplicaCtx& ctx) {
      for (int step = 0; step < 2000; ++step) {
        std::vector<std::int64_t> got =
            ctx.all_reduce(std::vector<std::int64_t>{step + ctx.replica_id()}, CollectiveOp::kSum);
        ASSERT_EQ(got[0], 4 * step + 6);
      }
    });
  });
}

// ---- failure paths ----

TEST(ReplicaRunnerFailureTest, ThrowingReplicaStopsTheOthers) {
  std::atomic<int> cancelled{0};
  std::string message = run_expecting<std::runtime_error>(4, [&](ReplicaCtx& ctx) {
    if (ctx.replica_id() == 2) throw std::runtime_error("boom");
    try {
      ctx.all_reduce(std::vector<float>{1}, CollectiveOp::kSum);
    } catch (const CancelledError& e) {
      if (contains(e.what(), "replica 2 failed: boom")) ++cancelled;
      throw;
    }
  });
  EXPECT_EQ(message, "[run_replicas] replica 2 failed: boom");
  EXPECT_EQ(cancelled.load(), 3);
}

TEST(ReplicaRunnerFailureTest, ErrorTypeIsPreserved) {
  std::string message = run_expecting<ResourceExhaustedError>(3, [](ReplicaCtx& ctx) {
    ctx.barrier();
    if (ctx.replica_id() == 1) fail<ResourceExhaustedError>("alloc", "HBM of core 1 is full");
    ctx.barrier();
  });
  EXPECT_EQ(message, "[run_replicas] replica 1 failed: [alloc] HBM of core 1 is full");
}

TEST(ReplicaRunnerFailureTest, ReplicaReturningEarlyIsAnErrorNotAHang) {
  std::string message = run_expecting<FailedPreconditionError>(4, [](ReplicaCtx& ctx) {
    if (ctx.replica_id() == 3) return;  // skips the collective the others wait in
    ctx.all_reduce(std::vector<float>{1}, CollectiveOp::kSum);
  });
  EXPECT_TRUE(contains(message, "replica 3 finished without joining all_reduce")) << message;
}

TEST(ReplicaRunnerFailureTest, ReplicaReturningBeforeOthersArriveIsAnError) {
  std::string message = run_expecting<FailedPreconditionError>(2, [](ReplicaCtx& ctx) {
    if (ctx.replica_id() == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // replica 0 is long gone
    ctx.all_reduce(std::vector<float>{1}, CollectiveOp::kSum);
  });
  EXPECT_TRUE(contains(message, "replica 1 failed")) << message;
  EXPECT_TRUE(contains(message, "replica 0 finished without joining")) << message;
}

TEST(ReplicaRunnerFailureTest, MismatchedOpIsAnError) {
  std::string message = run_expecting<InvalidArgumentError>(4, [](ReplicaCtx& ctx) {
    ctx.all_reduce(std::vector<float>{1}, ctx.replica_id() == 1 ? CollectiveOp::kMax : CollectiveOp::kSum);
  });
  EXPECT_TRUE(contains(message, "collective mismatch")) << message;
  EXPECT_TRUE(contains(message, "differing: op")) << message;
}

TEST(ReplicaRunnerFailureTest, MismatchedCountDtypeOrKindIsAnError) {
  std::string message = run_expecting<InvalidArgumentError>(3, [](ReplicaCtx& ctx) {
    ctx.all_reduce(std::vector<float>(ctx.replica_id() == 2 ? 5 : 4), CollectiveOp::kSum);
  });
  EXPECT_TRUE(contains(message, "differing: shape")) << message;
  EXPECT_TRUE(contains(message, "Shape mismatch in the collective")) << message;  // TF's wording
  message = run_expecting<InvalidArgumentError>(2, [](ReplicaCtx& ctx) {
    if (ctx.replica_id() == 0) {
      ctx.all_reduce(std::vector<float>(4), CollectiveOp::kSum);
    } else {
      ctx.all_reduce(std::vector<double>(4), CollectiveOp::kSum);
    }
  });
  EXPECT_TRUE(contains(message, "differing: dtype")) << message;
  message = run_expecting<InvalidArgumentError>(2, [](ReplicaCtx& ctx) {
    if (ctx.replica_id() == 0) {
      ctx.all_gather(std::vector<float>(4));
    } else {
      ctx.broadcast(std::vector<float>(4), 0);
    }
  });
  EXPECT_TRUE(contains(message, "differing: kind")) << message;
}

TEST(ReplicaRunnerFailureTest, BadGroupsAreRejected) {
  std::string message = run_expecting<InvalidArgumentError>(4, [](ReplicaCtx& ctx) { ctx.barrier({0, 1}); });
  EXPECT_TRUE(contains(message, "is not in group [0, 1]")) << message;
  message = run_expecting<InvalidArgumentError>(2, [](ReplicaCtx& ctx) { ctx.barrier({0, 1, 1}); });
  EXPECT_TRUE(contains(message, "lists replica 1 twice")) << message;
  message = run_expecting<InvalidArgumentError>(2, [](ReplicaCtx& ctx) { ctx.barrier({0, 5}); });
  EXPECT_TRUE(contains(message, "names replica 5")) << message;
  // The same replicas in two orders would wait in two different rendezvous: refused, not a deadlock.
  message = run_expecting<InvalidArgumentError>(2, [](ReplicaCtx& ctx) {
    ctx.barrier(ctx.replica_id() == 0 ? ReplicaGroup{0, 1} : ReplicaGroup{0, 1});
    ctx.barrier(ctx.replica_id() == 0 ? ReplicaGroup{0, 1} : ReplicaGroup{1, 0});
  });
  EXPECT_TRUE(contains(message, "in another order")) << message;
  EXPECT_THROW(run_replicas(0, [](ReplicaCtx&) {}), InvalidArgumentError);
}

TEST(ReplicaRunnerFailureTest, KernelArgumentErrorReachesEveryone) {
  std::string message = run_expecting<InvalidArgumentError>(3, [](ReplicaCtx& ctx) {
    ctx.collective_permute(std::vector<float>{1}, {{0, 1}, {0, 2}});
  });
  EXPECT_TRUE(contains(message, "source of two pairs")) << message;
}

}  // namespace
}  // namespace tpustrategy

namespace tpustrategy {
namespace {

TEST(ReplicaRunnerFailureTest, ExoticExceptionTypesPassThroughUnchanged) {
  bounded([] {
    try {
      run_replicas(2, [](ReplicaCtx& ctx) {
        if (ctx.replica_id() == 1) throw 42;
        ctx.barrier();
      });
      ADD_FAILURE() << "run_replicas did not throw";
    } catch (int value) {
      EXPECT_EQ(value, 42);
    }
  });
}

}  // namespace
}  // namespace tpustrategy
