#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tpustrategy/parallel/worker_pool.h"

namespace tpustrategy {
namespace {

// Exit status of `child`, or -1 if it has not exited within `timeout` (then it is killed).
int wait_for_exit(pid_t child, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(WorkerPool, UsableAndDestructibleInAForkedChild) {
  // A forked child has none of the parent's worker threads: parallel_for and the destructor must not wait on them.
  auto pool = std::make_unique<WorkerPool>(4);
  std::atomic<std::int64_t> parent_sum{0};
  pool->parallel_for(1000, 1, [&](std::int64_t b, std::int64_t e) { parent_sum += e - b; });
  ASSERT_EQ(parent_sum.load(), 1000);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::atomic<std::int64_t> sum{0};
    pool->parallel_for(100000, 1, [&](std::int64_t b, std::int64_t e) {
      for (auto i = b; i < e; ++i) sum += i;
    });
    pool.reset();
    _exit(sum.load() == std::int64_t{100000} * 99999 / 2 ? 0 : 1);
  }
  EXPECT_EQ(wait_for_exit(child, std::chrono::seconds(20)), 0) << "child hung or computed a wrong sum";
}

TEST(WorkerPool, CoversEveryIndexExactlyOnce) {
  for (std::int64_t n : {0, 1, 7, 1000, 100003}) {
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
    parallel_for(n, 16, [&](std::int64_t b, std::int64_t e) {
      for (auto i = b; i < e; ++i) hits[static_cast<std::size_t>(i)]++;
    });
    for (auto& h : hits) ASSERT_EQ(h.load(), 1) << "n=" << n;
  }
}

TEST(WorkerPool, RethrowsChunkErrorsOnCaller) {
  EXPECT_THROW(parallel_for(1000, 1,
                            [](std::int64_t b, std::int64_t) {
                              if (b == 0) throw std::runtime_error("chunk failed");
                            }),
               std::runtime_error);
  // And the pool still works afterwards.
  std::atomic<std::int64_t> sum{0};
  parallel_for(1000, 1, [&](std::int64_t b, std::int64_t e) { sum += e - b; });
  EXPECT_EQ(sum.load(), 1000);
}

TEST(WorkerPool, NestedCallsRunInline) {
  std::atomic<std::int64_t> total{0};
  parallel_for(4, 1, [&](std::int64_t b, std::int64_t e) {
    for (auto i = b; i < e; ++i) parallel_for(100, 1, [&](std::int64_t b2, std::int64_t e2) { total += e2 - b2; });
  });
  EXPECT_EQ(total.load(), 400);
}

TEST(WorkerPool, ManyConcurrentCallersFromThreads) {
  std::vector<std::thread> threads;
  std::atomic<std::int64_t> total{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int k = 0; k < 200; ++k) parallel_for(64, 1, [&](std::int64_t b, std::int64_t e) { total += e - b; });
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(total.load(), 4 * 200 * 64);
}

// Workers poll for a while after a job and block after that. Whether a worker is polling (right after a
// burst of tiny jobs) or blocked (after a pause longer than the polling), the next job must reach it: chunk 0
// cannot finish before another thread has started chunk 1. (Whether a worker ever finds a job already over,
// the caller having run all its chunks, depends on timing; this test does not force that path.)
TEST(WorkerPool, AWorkerJoinsAfterMissedJobsAndAfterBlocking) {
  WorkerPool pool(2);
  for (auto pause : {std::chrono::microseconds(0), std::chrono::microseconds(20000)}) {
    for (int round = 0; round < 20; ++round) {
      for (int i = 0; i < 50; ++i) pool.parallel_for(2, 1, [](std::int64_t, std::int64_t) {});
      std::this_thread::sleep_for(pause);
      std::atomic<bool> started{false};
      bool joined = false;
      pool.parallel_for(2, 1, [&](std::int64_t b, std::int64_t) {
        if (b == 1) {
          started = true;
          return;
        }
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (!started && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
        joined = started;
      });
      ASSERT_TRUE(joined) << "no worker took chunk 1 (pause " << pause.count() << " us, round " << round << ")";
    }
  }
}

}  // namespace
}  // namespace tpustrategy
