// Cost of the op-dispatch point (autodiff/recorded_ops.h) on a small op, against calling the
// kernel directly in the same run: a float32 add of two 4-element tensors, called
//   kernel      tpustrategy::binary(kAdd, a, b)          (what the bindings called before)
//   dispatch    op::binary(kAdd, a, b), no tape          (what they call now)
//   idle_tape   op::binary with a tape that watches neither input (checked, not recorded)
//   recording   op::binary with a tape watching `a` (recorded; tape reset every 4096 calls)
//   profiling   op::binary, no tape, with the step recorder on (sim/step_recorder.h; record taken every 4096 calls)
// kernel vs dispatch is the same-run baseline of what the dispatch point costs with the profiler off (its tape
// check and its profiler-hook check, one relaxed atomic load).
// Medians of --repeats samples of ns per call. Usage: bench_op_dispatch [--tiny] [--repeats N].
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tpustrategy/autodiff/recorded_ops.h"
#include "tpustrategy/autodiff/tape_stack.h"
#include "tpustrategy/sim/step_recorder.h"

namespace {

using namespace tpustrategy;
using Clock = std::chrono::steady_clock;

double median_ns(const std::function<void()>& fn, int repeats, int calls) {
  std::vector<double> samples;
  fn();
  for (int r = 0; r < repeats; ++r) {
    auto start = Clock::now();
    for (int i = 0; i < calls; ++i) fn();
    samples.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() / calls);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  bool tiny = false;
  int repeats = 15;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--tiny") == 0) tiny = true;
    if (std::strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) repeats = std::atoi(argv[++i]);
  }
  const int calls = tiny ? 200 : 20000;
  if (tiny) repeats = 3;
  Tensor a = Tensor::from_vector<float>({1, 2, 3, 4}, {4}), b = Tensor::from_vector<float>({5, 6, 7, 8}, {4});

  const double kernel = median_ns([&] { (void)tpustrategy::binary(BinaryOp::kAdd, a, b); }, repeats, calls);
  const double dispatch = median_ns([&] { (void)op::binary(BinaryOp::kAdd, a, b); }, repeats, calls);
  double idle = 0, recording = 0;
  {
    auto tape = std::make_shared<Tape>(true);
    TapeScope scope(tape);
    idle = median_ns([&] { (void)op::binary(BinaryOp::kAdd, a, b); }, repeats, calls);
    tape->watch(a);
    recording = median_ns(
        [&] {
          (void)op::binary(BinaryOp::kAdd, a, b);
          if (tape->num_records() >= 4096) {
            tape->reset();
            tape->watch(a);
          }
        },
        repeats, calls);
  }
  sim::StepRecorder::start();
  int since_take = 0;
  const double profiling = median_ns(
      [&] {
        (void)op::binary(BinaryOp::kAdd, a, b);
        if (++since_take >= 4096) {
          (void)sim::StepRecorder::take();
          since_take = 0;
        }
      },
      repeats, calls);
  sim::StepRecorder::stop();
  (void)sim::StepRecorder::take();
  fmt::print("{:<12} {:>10}\n", "case", "ns/call");
  for (auto [name, v] : {std::pair{"kernel", kernel},
                         {"dispatch", dispatch},
                         {"idle_tape", idle},
                         {"recording", recording},
                         {"profiling", profiling}}) {
    fmt::print("{:<12} {:>10.1f}\n", name, v);
  }
  fmt::print(
      "{{\"bench\": \"op_dispatch\", \"kernel_ns\": {:.1f}, \"dispatch_ns\": {:.1f}, \"idle_tape_ns\": {:.1f}, "
      "\"recording_ns\": {:.1f}, \"profiling_ns\": {:.1f}, \"dispatch_overhead_ns\": {:.1f}}}\n",
      kernel, dispatch, idle, recording, profiling, dispatch - kernel);
  return 0;
}
