#include "tpustrategy/core/buffer_cache.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <unordered_map>

#include "tpustrategy/core/device.h"
#include "tpustrategy/core/errors.h"

namespace tpustrategy {

namespace {

constexpr std::size_t kMinClass = 64;
constexpr std::size_t kAlignment = 64;
// Large blocks are 2 MiB aligned and marked for transparent huge pages (as numpy does): a fresh
// 64 MiB block then costs ~32 page faults instead of ~16k.
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kHugePageThreshold = std::size_t{4} << 20;

std::size_t default_limit() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const std::size_t physical = pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * page : std::size_t{1} << 32;
  return std::min(physical / 8, std::size_t{4} << 30);
}

// The caches, the bytes they hold together, and the limit on that total. Never destroyed: devices
// (and buffers) may outlive static destruction at exit.
struct Registry {
  struct Entry {
    std::weak_ptr<Device> device;  // to tell a destroyed core from a new one at the same address
    std::unique_ptr<BufferCache> cache;
  };
  std::mutex mutex;
  std::unordered_map<const Device*, Entry> by_device;
  std::size_t swept_size = 16;  // sweep destroyed cores' caches when the table has doubled since
  BufferCache host;
  std::atomic<std::size_t> total{0};
  std::atomic<std::size_t> limit{default_limit()};
};

Registry& registry() {
  static auto* r = new Registry;
  return *r;
}

void* allocate_fresh(std::size_t capacity) {
  const bool huge = capacity >= kHugePageThreshold;
  const std::size_t align = huge ? kHugePage : kAlignment;
  const std::size_t rounded = (capacity + align - 1) / align * align;
  void* data = std::aligned_alloc(align, rounded);
#ifdef MADV_HUGEPAGE
  if (huge && data != nullptr) madvise(data, rounded, MADV_HUGEPAGE);
#endif
  return data;
}

}  // namespace

std::size_t BufferCache::size_class(std::size_t nbytes) {
  if (nbytes <= kMinClass) return kMinClass;
  const std::size_t step = std::size_t{1} << (std::bit_width(nbytes - 1) - 3);
  return (nbytes + step - 1) / step * step;
}

int BufferCache::class_index(std::size_t capacity) {
  if (capacity <= kMinClass) return 0;
  const auto p = static_cast<int>(std::bit_width(capacity - 1));  // 2^(p-1) < capacity <= 2^p
  const std::size_t step = std::size_t{1} << (p - 3);
  const auto j = static_cast<int>((capacity - (std::size_t{1} << (p - 1))) / step);  // 1 ... 4
  return 1 + (p - 7) * 4 + (j - 1);
}

std::size_t BufferCache::class_capacity(int index) {
  if (index == 0) return kMinClass;
  const int p = 7 + (index - 1) / 4, j = (index - 1) % 4 + 1;
  return (std::size_t{1} << (p - 1)) + static_cast<std::size_t>(j) * (std::size_t{1} << (p - 3));
}

BufferCache::~BufferCache() { release_all(); }

BufferCache& BufferCache::of(const std::shared_ptr<Device>& device) {
  Registry& r = registry();
  if (!device) return r.host;
  std::lock_guard lock(r.mutex);
  auto [it, created] = r.by_device.try_emplace(device.get());
  Registry::Entry& entry = it->second;
  if (created) {
    entry.device = device;  // before the sweep, which drops entries without a live device
    entry.cache = std::make_unique<BufferCache>();
    BufferCache& cache = *entry.cache;
    if (r.by_device.size() >= 2 * r.swept_size) {
      std::erase_if(r.by_device, [](const auto& kv) { return kv.second.device.expired(); });
      r.swept_size = r.by_device.size();
    }
    return cache;
  }
  if (entry.device.owner_before(device) || device.owner_before(entry.device)) {
    entry.cache->release_all();  // a destroyed core's cache, found by a new core at its address
    entry.device = device;
  }
  return *entry.cache;
}

BufferCache::Block BufferCache::acquire(std::size_t nbytes) {
  const std::size_t capacity = size_class(nbytes);
  const auto index = static_cast<std::size_t>(class_index(capacity));
  {
    std::lock_guard lock(mutex_);
    if (index < free_.size() && !free_[index].empty()) {
      void* data = free_[index].back();
      free_[index].pop_back();
      cached_ -= capacity;
      registry().total.fetch_sub(capacity);
      return {data, capacity};
    }
  }
  void* data = allocate_fresh(capacity);
  if (data == nullptr) {
    release_cached_buffers();  // under pressure: give every cached block back and retry once
    data = allocate_fresh(capacity);
  }
  if (data == nullptr) {
    fail<ResourceExhaustedError>("Buffer", "host allocation of {} failed",
                                 format_bytes(static_cast<std::int64_t>(nbytes)));
  }
  return {data, capacity};
}

void BufferCache::give_back(Block block) noexcept {
  if (block.data == nullptr) return;
  Registry& r = registry();
  const std::size_t limit = r.limit.load();
  if (block.capacity <= limit) {
    std::lock_guard lock(mutex_);
    const std::size_t total = r.total.load();
    if (total + block.capacity > limit) evict_locked(total + block.capacity - limit);
    if (r.total.load() + block.capacity <= limit) {
      const auto index = static_cast<std::size_t>(class_index(block.capacity));
      if (index >= free_.size()) free_.resize(index + 1);
      free_[index].push_back(block.data);
      cached_ += block.capacity;
      r.total.fetch_add(block.capacity);
      return;
    }
  }
  std::free(block.data);
}

std::size_t BufferCache::evict_locked(std::size_t needed) noexcept {
  std::size_t freed = 0;
  for (std::size_t index = free_.size(); index-- > 0 && freed < needed;) {
    auto& blocks = free_[index];
    while (!blocks.empty() && freed < needed) {
      std::free(blocks.back());
      blocks.pop_back();
      freed += class_capacity(static_cast<int>(index));
    }
  }
  cached_ -= freed;
  registry().total.fetch_sub(freed);
  return freed;
}

std::size_t BufferCache::release_all() noexcept {
  std::lock_guard lock(mutex_);
  return evict_locked(cached_);
}

std::size_t BufferCache::cached_bytes() const {
  std::lock_guard lock(mutex_);
  return cached_;
}

std::size_t release_cached_buffers() noexcept {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::size_t freed = r.host.release_all();
  for (auto& [device, entry] : r.by_device) freed += entry.cache->release_all();
  std::erase_if(r.by_device, [](const auto& kv) { return kv.second.device.expired(); });
  return freed;
}

std::size_t cached_buffer_bytes() noexcept { return registry().total.load(); }

std::size_t buffer_cache_limit() noexcept { return registry().limit.load(); }

void set_buffer_cache_limit(std::size_t bytes) {
  registry().limit.store(bytes);
  // Over the new limit: drop everything cached (simple and rare; the next steps refill the caches).
  if (cached_buffer_bytes() > bytes) release_cached_buffers();
}

}  // namespace tpustrategy
