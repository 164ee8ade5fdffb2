#include "tpustrategy/parallel/worker_pool.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <new>

namespace tpustrategy {

struct WorkerPool::Job {
  const std::function<void(std::int64_t, std::int64_t)>* fn;
  std::int64_t n, chunk, num_chunks;
  std::atomic<std::int64_t> next{0};
  std::atomic<std::int64_t> done{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  std::mutex done_mutex;
  std::condition_variable done_cv;
};

namespace {
thread_local bool tl_inside_pool = false;

// How long an idle worker polls for the next job before it blocks, and a caller polls for the
// workers to finish before it blocks: long enough to span the gap between two back-to-back ops
// (a Python op call is a few microseconds), short enough to cost nothing measurable after the last.
constexpr auto kWorkerSpin = std::chrono::microseconds(100);
constexpr auto kCallerSpin = std::chrono::microseconds(50);

// Polls `ready` for up to `limit`; true as soon as it holds.
template <typename Ready>
bool spin_until(Ready ready, std::chrono::microseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    if (std::chrono::steady_clock::now() >= deadline) return ready();
  }
}
}  // namespace

WorkerPool::WorkerPool(int num_threads) : owner_pid_(getpid()) {
  for (int i = 1; i < num_threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

WorkerPool::~WorkerPool() {
  if (in_forked_child()) {
    // The threads exist only in the parent: joining them, destroying joinable std::threads or condition
    // variables they wait on would hang or terminate here, so leak all three.
    // nothrow: a destructor must not throw; the vector's move itself cannot.
    (void)new (std::nothrow) std::vector<std::thread>(std::move(workers_));
    (void)wake_.release();
    (void)idle_.release();
    return;
  }
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_->notify_all();
  for (auto& t : workers_) t.join();
}

bool WorkerPool::in_forked_child() const { return getpid() != owner_pid_; }

WorkerPool& WorkerPool::global() {
  static WorkerPool pool(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  return pool;
}

void WorkerPool::run_chunks(Job& job) {
  for (;;) {
    std::int64_t c = job.next.fetch_add(1);
    if (c >= job.num_chunks) return;
    std::int64_t begin = c * job.chunk, end = std::min(job.n, begin + job.chunk);
    try {
      (*job.fn)(begin, end);
    } catch (...) {
      std::lock_guard lock(job.error_mutex);
      if (!job.error) job.error = std::current_exception();
    }
    if (job.done.fetch_add(1) + 1 == job.num_chunks) {
      std::lock_guard lock(job.done_mutex);
      job.done_cv.notify_all();
    }
  }
}

void WorkerPool::worker_loop() {
  tl_inside_pool = true;
  std::uint64_t seen = 0;
  for (;;) {
    Job* job;
    spin_until([&] { return generation_.load(std::memory_order_acquire) != seen; }, kWorkerSpin);
    {
      std::unique_lock lock(mutex_);
      if (!stopping_ && job_ == nullptr && generation_ != seen) {
        seen = generation_;  // the caller ran that job's chunks itself before this worker came: poll again
        continue;
      }
      wake_->wait(lock, [&] { return stopping_ || (job_ != nullptr && generation_ != seen); });
      if (stopping_) return;
      seen = generation_;
      job = job_;
      ++active_;
    }
    run_chunks(*job);
    {
      std::lock_guard lock(mutex_);
      --active_;
    }
    idle_->notify_all();
  }
}

void WorkerPool::parallel_for(std::int64_t n, std::int64_t grain,
                              const std::function<void(std::int64_t, std::int64_t)>& fn) {
  if (n <= 0) return;
  grain = std::max<std::int64_t>(grain, 1);
  // A few chunks per thread, claimed dynamically: on a loaded machine a thread that is descheduled
  // mid-loop then holds back one small chunk, not half the loop (the others take the rest).
  constexpr std::int64_t kChunksPerThread = 4;
  std::int64_t max_chunks = std::min<std::int64_t>(num_threads() * kChunksPerThread, (n + grain - 1) / grain);
  std::unique_lock submit(submit_mutex_, std::defer_lock);
  if (max_chunks <= 1 || tl_inside_pool || in_forked_child() || !submit.try_lock()) {
    fn(0, n);  // small, nested, in a forked child, or the pool is busy with another caller: run inline
    return;
  }
  Job job;
  job.fn = &fn;
  job.n = n;
  job.chunk = (n + max_chunks - 1) / max_chunks;
  job.num_chunks = (n + job.chunk - 1) / job.chunk;
  {
    std::lock_guard lock(mutex_);
    job_ = &job;
    ++generation_;
  }
  wake_->notify_all();
  tl_inside_pool = true;
  run_chunks(job);
  tl_inside_pool = false;
  if (!spin_until([&] { return job.done.load() == job.num_chunks; }, kCallerSpin)) {
    std::unique_lock lock(job.done_mutex);
    job.done_cv.wait(lock, [&] { return job.done.load() == job.num_chunks; });
  }
  {
    // Workers that picked the job up late still hold a pointer to it.
    std::unique_lock lock(mutex_);
    job_ = nullptr;
  }
  if (!spin_until([&] { return active_.load() == 0; }, kCallerSpin)) {
    std::unique_lock lock(mutex_);
    idle_->wait(lock, [&] { return active_ == 0; });
  }
  if (job.error) std::rethrow_exception(job.error);
}

void parallel_for(std::int64_t n, std::int64_t grain, const std::function<void(std::int64_t, std::int64_t)>& fn) {
  WorkerPool::global().parallel_for(n, grain, fn);
}

}  // namespace tpustrategy
