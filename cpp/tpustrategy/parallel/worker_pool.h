#pragma once
// A small fixed pool of worker threads, sized to the machine's real cores, that
// splits large loops. Small loops run inline on the caller: a pool hand-off
// costs microseconds, which dominates kernels on a few KiB.
// Workers (and a caller waiting for them) spin for a short while before they
// block: waking a sleeping thread costs tens of microseconds on a VM (more than a
// 128x128 GEMM's half), and ops come back to back.
// Fork-safe: a forked child has none of the workers (and may inherit locked
// mutexes and condition variables with phantom waiters), so in a child every
// loop runs inline and the pool's threads and locks are never touched again.
#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace tpustrategy {

class WorkerPool {
 public:
  explicit WorkerPool(int num_threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // The process-wide pool (hardware_concurrency threads, the caller included).
  static WorkerPool& global();

  int num_threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs fn(begin, end) over [0, n) in contiguous chunks of at least `grain`
  // items (up to 4 per thread, claimed dynamically; the split depends on n,
  // grain and the thread count only), on the caller and the workers; returns
  // when all chunks are done.
  // The first exception thrown by a chunk is rethrown on the caller.
  void parallel_for(std::int64_t n, std::int64_t grain, const std::function<void(std::int64_t, std::int64_t)>& fn);

 private:
  struct Job;
  void worker_loop();
  static void run_chunks(Job& job);

  // True in a process forked after the pool was created.
  bool in_forked_child() const;

  pid_t owner_pid_;  // the process whose threads are workers_
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  // On the heap so that a forked child can leak them: destroying a condition variable whose (parent) waiters
  // never return blocks forever in glibc.
  std::unique_ptr<std::condition_variable> wake_ = std::make_unique<std::condition_variable>();
  std::unique_ptr<std::condition_variable> idle_ = std::make_unique<std::condition_variable>();
  std::atomic<int> active_{0};  // workers inside run_chunks of the current job (changed under mutex_)
  Job* job_ = nullptr;
  std::atomic<std::uint64_t> generation_{0};  // changed under mutex_; read without it while spinning
  bool stopping_ = false;
  std::mutex submit_mutex_;  // one parallel_for at a time; nested calls run inline
};

// Shortcut for WorkerPool::global().parallel_for.
void parallel_for(std::int64_t n, std::int64_t grain, const std::function<void(std::int64_t, std::int64_t)>& fn);

}  // namespace tpustrategy
