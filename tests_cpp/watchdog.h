#pragma once
// Bounds a blocking test: runs `body` on its own thread and fails the whole test binary (abort with a
// message) if it has not finished within `limit`, so a rendezvous bug shows up as a failure instead
// of a hung CI job. Exceptions thrown by `body` are rethrown on the test thread.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <thread>

namespace tpustrategy::testing {

inline void bounded(const std::function<void()>& body, std::chrono::seconds limit = std::chrono::seconds(60)) {
  std::packaged_task<void()> task(body);
  std::future<void> done = task.get_future();
  std::thread runner(std::move(task));
  if (done.wait_for(limit) != std::future_status::ready) {
    std::fprintf(stderr, "watchdog: test body still running after %lld s; aborting\n",
                 static_cast<long long>(limit.count()));
    std::fflush(stderr);
    std::abort();
  }
  runner.join();
  done.get();
}

}  // namespace tpustrategy::testing
