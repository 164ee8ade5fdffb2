// The tensor-buffer cache: reuse by size class, exact HBM accounting, release to the OS.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "tpustrategy/core/buffer.h"
#include "tpustrategy/core/buffer_cache.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/core/tensor.h"

namespace tpustrategy {
namespace {

DevicePtr make_core(std::int64_t capacity, int index = 0) {
  return std::make_shared<Device>("/job:worker/replica:0/task:0/device:TPU:" + std::to_string(index), "TPU", 0, index,
                                  std::array<int, 4>{0, 0, 0, index}, capacity);
}

// Restores the process-wide limit and empties the caches after each test.
class BufferCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_limit_ = buffer_cache_limit();
    release_cached_buffers();
  }
  void TearDown() override {
    set_buffer_cache_limit(saved_limit_);
    release_cached_buffers();
  }
  std::size_t saved_limit_ = 0;
};

TEST(BufferCacheSizeClass, FourClassesPerPowerOfTwo) {
  EXPECT_EQ(BufferCache::size_class(1), 64u);
  EXPECT_EQ(BufferCache::size_class(64), 64u);
  EXPECT_EQ(BufferCache::size_class(65), 80u);
  EXPECT_EQ(BufferCache::size_class(128), 128u);
  EXPECT_EQ(BufferCache::size_class(129), 160u);
  EXPECT_EQ(BufferCache::size_class(4096), 4096u);
  EXPECT_EQ(BufferCache::size_class(4097), 5120u);
  EXPECT_EQ(BufferCache::size_class((std::size_t{64} << 20) + 1), std::size_t{80} << 20);
  for (std::size_t n = 1; n < 100000; n += 37) {
    const std::size_t c = BufferCache::size_class(n);
    EXPECT_GE(c, n);
    EXPECT_LE(c, std::max<std::size_t>(64, n + n / 4 + 1)) << n;
    EXPECT_EQ(BufferCache::size_class(c), c) << n;  // a class is its own class
  }
}

TEST_F(BufferCacheTest, ReusesAFreedBlockOfTheSameClass) {
  auto core = make_core(1 << 30);
  void* first = nullptr;
  {
    Buffer b(100000, core);
    first = b.data();
  }
  EXPECT_EQ(BufferCache::of(core).cached_bytes(), BufferCache::size_class(100000));
  Buffer again(110000, core);  // the same class (114688): the same block comes back
  EXPECT_EQ(again.data(), first);
  EXPECT_EQ(BufferCache::of(core).cached_bytes(), 0u);
  Buffer other(200000, core);  // another class: fresh memory
  EXPECT_NE(other.data(), first);
}

TEST_F(BufferCacheTest, BlocksStayWithTheirCore) {
  auto core0 = make_core(1 << 30, 0), core1 = make_core(1 << 30, 1);
  void* first = nullptr;
  {
    Buffer b(8192, core0);
    first = b.data();
  }
  Buffer on_other_core(8192, core1);
  EXPECT_NE(on_other_core.data(), first);
  EXPECT_EQ(BufferCache::of(core0).cached_bytes(), 8192u);
}

TEST_F(BufferCacheTest, ChargesHbmExactlyOnHandOutAndReleasesOnReturn) {
  auto core = make_core(1 << 20);
  {
    Buffer b(1000, core);  // class 1024, but 1000 bytes are charged
    EXPECT_EQ(core->memory_info().current, 1000);
  }
  EXPECT_EQ(core->memory_info().current, 0);  // returned to the cache: no longer charged
  EXPECT_EQ(core->memory_info().peak, 1000);
  {
    Buffer b(990, core);  // reused block, charged its own size
    EXPECT_EQ(core->memory_info().current, 990);
  }
  EXPECT_EQ(core->memory_info().current, 0);
  // Cached blocks do not count against the capacity: the whole capacity is still available.
  Buffer whole(1 << 20, core);
  EXPECT_EQ(core->memory_info().current, 1 << 20);
  EXPECT_THROW(Buffer(1, core), ResourceExhaustedError);
  EXPECT_EQ(core->memory_info().current, 1 << 20);  // a refused request leaves the accounting as it was
}

TEST_F(BufferCacheTest, TensorsReuseTheirCoresBlocks) {
  auto core = make_core(1 << 30);
  const void* data = nullptr;
  {
    Tensor t = Tensor::empty(DType::kFloat32, {256, 256}, core);
    data = t.raw_data();
  }
  Tensor t = Tensor::zeros(DType::kFloat32, {256, 256}, core);
  EXPECT_EQ(t.raw_data(), data);
  EXPECT_EQ(core->memory_info().current, 256 * 256 * 4);
}

TEST_F(BufferCacheTest, ExplicitReleaseReturnsEverythingToTheOs) {
  auto core = make_core(1 << 30);
  { Buffer a(1 << 16, core), b(1 << 18, core); }
  EXPECT_EQ(cached_buffer_bytes(), (1u << 16) + (1u << 18));
  EXPECT_EQ(release_cached_buffers(), (1u << 16) + (1u << 18));
  EXPECT_EQ(cached_buffer_bytes(), 0u);
  EXPECT_EQ(BufferCache::of(core).cached_bytes(), 0u);
}

TEST_F(BufferCacheTest, TheLimitBoundsWhatIsCached) {
  auto core = make_core(1 << 30);
  set_buffer_cache_limit(1 << 20);
  { Buffer a(1 << 19, core), b(1 << 19, core), c(1 << 19, core); }
  EXPECT_LE(cached_buffer_bytes(), 1u << 20);
  EXPECT_GT(cached_buffer_bytes(), 0u);
  { Buffer big(2 << 20, core); }  // larger than the limit: never cached
  EXPECT_LE(cached_buffer_bytes(), 1u << 20);
  set_buffer_cache_limit(0);  // disables caching and drops what was cached
  EXPECT_EQ(cached_buffer_bytes(), 0u);
  { Buffer d(4096, core); }
  EXPECT_EQ(cached_buffer_bytes(), 0u);
}

TEST_F(BufferCacheTest, ADestroyedCoresBlocksGoBackAtTheNextRelease) {
  auto core = make_core(1 << 30);
  { Buffer a(1 << 16, core); }
  EXPECT_EQ(cached_buffer_bytes(), 1u << 16);
  core.reset();
  EXPECT_EQ(release_cached_buffers(), 1u << 16);
  EXPECT_EQ(cached_buffer_bytes(), 0u);
  auto next = make_core(1 << 30);  // possibly at the same address: starts with an empty cache
  EXPECT_EQ(BufferCache::of(next).cached_bytes(), 0u);
}

TEST_F(BufferCacheTest, ANewCoreAtADestroyedCoresAddressDoesNotInheritItsBlocks) {
  // Same address is likely after a free of the same size; either way the new core's cache is empty.
  for (int attempt = 0; attempt < 8; ++attempt) {
    auto core = make_core(1 << 30);
    { Buffer a(1 << 12, core); }
    core.reset();
    auto next = make_core(1 << 30);
    EXPECT_EQ(BufferCache::of(next).cached_bytes(), 0u);
  }
  release_cached_buffers();
  EXPECT_EQ(cached_buffer_bytes(), 0u);  // every destroyed core's blocks are gone
}

TEST_F(BufferCacheTest, ManyCoresKeepTheirCachesWhileTheTableGrowsAndSweeps) {
  // Regression: the sweep of destroyed cores' caches once dropped the entry it had just created.
  std::vector<DevicePtr> cores;
  for (int i = 0; i < 200; ++i) {
    cores.push_back(make_core(1 << 20, i));
    { Buffer b(256, cores.back()); }
    if (i % 3 == 0) cores[i / 2].reset();  // some cores die, so sweeps find work
  }
  for (const auto& core : cores) {
    if (!core) continue;
    EXPECT_EQ(BufferCache::of(core).cached_bytes(), 256u);
    Buffer again(256, core);
    EXPECT_EQ(BufferCache::of(core).cached_bytes(), 0u);
  }
}

TEST_F(BufferCacheTest, ThreadsAllocateAndFreeConcurrently) {
  auto core = make_core(std::int64_t{1} << 34);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        Buffer b(1024 * (1 + (i + t) % 7), core);
        static_cast<char*>(b.data())[0] = static_cast<char>(i);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(core->memory_info().current, 0);
  // At most one block of each of the 7 classes per thread.
  EXPECT_LE(BufferCache::of(core).cached_bytes(), std::size_t{4} * (1 + 2 + 3 + 4 + 5 + 6 + 7) * 1024);
  EXPECT_EQ(cached_buffer_bytes(), BufferCache::of(core).cached_bytes());
}

}  // namespace
}  // namespace tpustrategy
