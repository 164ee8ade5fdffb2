#pragma once
// Simulated time of a recorded step (step_record.h) on a slice preset: the record's per-replica programs placed
// on the preset's TF devices and run through the StepTimeline. The same record can be estimated on any preset
// ("what if this step ran on v5e-256 instead of v4-128?") without re-running anything.
//
// Placement: replica t of the target runs the events of recorded replica t mod R (R = the record's replicas), its
// logical core l on core `core_of_slot[t * C + l]` (C = logical cores per replica; default t * C + l, the preset's
// device order). A collective whose members are every recorded replica spans every target replica; one over a
// subgroup repeats per block of R target replicas (the target must then hold a multiple of R replicas). Ops of
// cross-replica code (replica -1) run on the host and are not timed. Weak scaling: each replica keeps its recorded
// per-replica work (batch per replica), so a larger target does the same per-replica work on more replicas.
//
// API (for bindings):
//   struct EstimateOptions { params, num_replicas (0 = all that fit), core_of_slot, keep_timeline }
//   struct OpStat { name, count, seconds, flops, bytes }        // summed over every core, sorted by seconds
//   struct CollectiveStat { event, kind, group_size, instances, bytes, seconds, algbw, busbw, hops, latency_bound }
//   struct TimedEvent { event, core, start, end }
//   StepEstimate estimate_step(record, preset, options)
//   StepEstimate::hbm_peak  // per target core: the recorded peak of the slot it runs (-1 = not recorded)
//   StepEstimate::hbm_capacity  // one TF device's HBM on the target generation
// Bad input (more replicas than fit, a core_of_slot entry out of range or repeated, a subgroup that cannot be
// repeated) -> ValueError naming it.
#include <string>
#include <vector>

#include "tpustrategy/sim/cost_params.h"
#include "tpustrategy/sim/step_record.h"
#include "tpustrategy/sim/step_timeline.h"
#include "tpustrategy/tpu/slice_preset.h"

namespace tpustrategy::sim {

struct EstimateOptions {
  CostParams params = CostParams::calibrated();
  int num_replicas = 0;           // target replicas; 0 = every core of the preset / logical cores per replica
  std::vector<int> core_of_slot;  // target core of (replica t, logical core l) at t * C + l; empty = identity
  bool keep_timeline = false;     // fill StepEstimate::timeline (one entry per op and per collective member)
};

struct OpStat {
  std::string name;
  std::int64_t count = 0;  // instances over every core
  double seconds = 0;      // summed over every core
  double flops = 0;
  double bytes = 0;
};

struct CollectiveStat {
  int event = 0;  // index into the record's events
  std::string kind;
  int group_size = 0;
  int instances = 0;   // groups it ran as on the target
  double bytes = 0;    // as collective_time takes it
  double seconds = 0;  // one instance
  double algbw = 0, busbw = 0;
  int hops = 0;
  bool latency_bound = false;
};

struct TimedEvent {
  int event = 0;  // index into the record's events
  int core = 0;
  double start = 0, end = 0;
};

struct StepEstimate {
  std::string slice;
  int num_cores = 0;  // the preset's TF devices
  int num_replicas = 0;
  int cores_per_replica = 1;
  StepSummary summary;
  std::vector<OpStat> ops;                  // by name, most time first
  std::vector<CollectiveStat> collectives;  // per recorded collective, most time first
  std::vector<TimedEvent> timeline;         // keep_timeline only, in add order
  // HBM: per target core, the peak bytes its slot held while the step was recorded (weak scaling: each replica
  // keeps its per-replica tensors), -1 where the record has none (cores no replica runs on, hand-built records).
  std::vector<std::int64_t> hbm_peak;
  std::int64_t hbm_capacity = 0;  // one TF device of the target's generation (per_device_hbm_bytes)
};

StepEstimate estimate_step(const StepRecord& record, const SlicePreset& preset, const EstimateOptions& options = {});

}  // namespace tpustrategy::sim
