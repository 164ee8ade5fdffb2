#include <gtest/gtest.h>

#include <atomic>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "tpustrategy/runtime/worker_pool.h"

namespace tpustrategy {
namespace {

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

}  // namespace
}  // namespace tpustrategy
