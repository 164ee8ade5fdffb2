#pragma once
// The simulated timeline of one step on every TF TPU device (core) of a slice, fed with records in program order:
// ops run on one core, one after another; a collective starts when its last participant arrives and ends for all of
// them together. From it: step time, per-core compute / communication / idle time, MXU utilisation and the critical
// path. Pure data: the runtime's trace recorder feeds it later; tests and the Python facade feed it directly.
//
// API (for bindings):
//   struct OpRecord { core, name, unit, flops, bytes, dtype }
//   struct CollectiveRecord { name, kind, group (core ids), bytes }
//   StepTimeline(preset, params = calibrated)           // cores = the preset's TF devices in task-major order
//   StepTimeline(geometry, core coordinates, params)
//   add_op(OpRecord) -> record index; add_collective(CollectiveRecord) -> record index
//   num_cores(); num_records(); record_start(i); record_end(i); summarize() -> StepSummary
// Bad input (core out of range, empty or repeated group) -> ValueError naming it, and the timeline is unchanged.
#include <cstdint>
#include <string>
#include <vector>

#include "tpustrategy/sim/collective_cost.h"
#include "tpustrategy/sim/cost_params.h"
#include "tpustrategy/sim/roofline.h"
#include "tpustrategy/sim/slice_geometry.h"
#include "tpustrategy/tpu/slice_preset.h"

namespace tpustrategy::sim {

struct OpRecord {
  int core = 0;
  std::string name;
  OpUnit unit = OpUnit::kVector;
  double flops = 0;
  double bytes = 0;  // HBM bytes read and written
  MxuDType dtype = MxuDType::kBFloat16;
};

struct CollectiveRecord {
  std::string name;
  CollectiveKind kind = CollectiveKind::kAllReduce;
  std::vector<int> group;  // core ids
  double bytes = 0;        // as collective_time takes it
};

struct CriticalStep {
  int record = 0;  // index into the records, in add order
  int core = 0;    // the core the path runs through there
};

struct StepSummary {
  double step_time = 0;               // seconds, the last core's finish
  std::vector<double> compute;        // per core: time in ops
  std::vector<double> communication;  // per core: time in collectives (from their start to their end)
  std::vector<double> idle;           // per core: waiting for others, and the tail after its last record
  double compute_share = 0;           // sum(compute) / (cores x step_time)
  double communication_share = 0;
  double idle_share = 0;
  double mxu_utilization = 0;               // MXU FLOPs done / (cores x peak bf16 x step_time)
  std::vector<CriticalStep> critical_path;  // first to last
  double critical_compute = 0;              // time of the path in ops
  double critical_communication = 0;        // and in collectives
};

class StepTimeline {
 public:
  explicit StepTimeline(const SlicePreset& preset, CostParams params = CostParams::calibrated());
  StepTimeline(SliceGeometry geometry, std::vector<Coordinate> core_coordinates,
               CostParams params = CostParams::calibrated());

  int add_op(const OpRecord& op);
  int add_collective(const CollectiveRecord& collective);

  int num_cores() const { return static_cast<int>(coordinates_.size()); }
  int num_records() const { return static_cast<int>(records_.size()); }
  double record_start(int record) const;
  double record_end(int record) const;
  const SliceGeometry& geometry() const { return geometry_; }
  // Mesh coordinates [x, y, z, core] of every core, by core id.
  const std::vector<Coordinate>& core_coordinates() const { return coordinates_; }

  StepSummary summarize() const;

 private:
  struct Record {
    bool collective = false;
    int core = 0;  // op: its core; collective: the last to arrive
    double start = 0, end = 0;
    double mxu_flops = 0;
    std::vector<int> group;     // collective members
    std::vector<int> previous;  // per member (or the op's core): the record it ran before this one, -1 = none
  };

  SliceGeometry geometry_;
  std::vector<Coordinate> coordinates_;
  CostParams params_;
  std::vector<double> clock_;     // per core: when it is free
  std::vector<int> last_record_;  // per core: its latest record, -1 = none
  std::vector<double> compute_, communication_;
  std::vector<Record> records_;
};

}  // namespace tpustrategy::sim
