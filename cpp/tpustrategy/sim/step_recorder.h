#pragma once
// Records what the running program does into a StepRecord (step_record.h), for the profiler and the step report:
// every op of the public op set at the op-dispatch point (autodiff/op_trace_hook.h) and every collective at the
// Communicator's observer hook (collectives/collective_observer.h), each attributed to the replica and logical
// core whose context is bound (runtime/replica_context.h). Process-wide: one recording at a time.
//
// Cost: while no recording is active, none of the hooks is installed (one relaxed atomic load per op, one per
// collective). While recording, each op appends one event (its shapes, under a mutex).
//
// API (for bindings):
//   StepRecorder::start()        // FailedPreconditionError if a recording is active
//   StepRecorder::stop()         // uninstalls the hooks; the events recorded so far stay until take()
//   StepRecorder::active()
//   StepRecorder::take(name, step_num) -> StepRecord   // the events since start / the last take, moved out
//   StepRecorder::num_events()
// Not recorded: ops that bypass the op set (numpy-backed ops, tensor creation from host data), merge_call and
// barrier (no data moves).
#include <cstdint>
#include <string>

#include "tpustrategy/sim/step_record.h"

namespace tpustrategy::sim {

class StepRecorder {
 public:
  static void start();
  static void stop();
  static bool active();
  static StepRecord take(std::string name = {}, std::int64_t step_num = -1);
  static std::int64_t num_events();
};

}  // namespace tpustrategy::sim
