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
//   StepRecorder::SpmdScope(ctx)  // RAII around one SPMD partitioned call: its kernels and subgroup collectives
//                                 // are not recorded as the replica's; commit() appends the entries the call
//                                 // added to ctx's SpmdRecord, per logical core (spmd_step_events.h)
// HBM: start() and every take() restart each TPU device's window peak (core/device.h); take() stores, per slot
// seen (an op's placement device; SPMD logical core k's device), that device's window peak in StepRecord::hbm.
// Not recorded: ops that bypass the op set (numpy-backed ops, tensor creation from host data), merge_call and
// barrier (no data moves).
#include <cstdint>
#include <string>

#include "tpustrategy/sim/step_record.h"
#include "tpustrategy/spmd/spmd_context.h"

namespace tpustrategy::sim {

class StepRecorder {
 public:
  static void start();
  static void stop();
  static bool active();
  static StepRecord take(std::string name = {}, std::int64_t step_num = -1);
  static std::int64_t num_events();

  class SpmdScope {
   public:
    explicit SpmdScope(const spmd::SpmdContext& context);
    ~SpmdScope();
    SpmdScope(const SpmdScope&) = delete;
    SpmdScope& operator=(const SpmdScope&) = delete;
    // After the call succeeded: appends its entries for the bound replica (a no-op while not recording).
    void commit();

   private:
    const spmd::SpmdContext& context_;
    std::size_t first_entry_;
    bool previous_;
  };
};

}  // namespace tpustrategy::sim
