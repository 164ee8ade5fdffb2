#pragma once
// What one step did, per replica and logical core, in program order: the plain record the cost model estimates
// (step_estimate.h) and the profiler writes out. Three producers feed it: the runtime recorder
// (step_recorder.h: every op at the op-dispatch point, every collective at the Communicator's observer hook),
// SPMD partitioning (per-logical-core partitioned ops and the collectives it inserts), and tests / users by hand.
//
// A record is independent of any slice: cores are named by (replica, logical core), collectives by their members'
// (replica, logical core). Estimating it places replica r's logical core l on a TF device of the target slice.
//
// API (for bindings):
//   struct CoreSlot { replica, logical_core }
//   struct StepEvent { collective, slot, name, input_shapes, output_shapes, dtype, flops, bytes, unit,
//                      kind, group, count, spmd }
//   struct SlotMemory { slot, peak, capacity }
//   struct StepRecord { name, step_num, events, hbm;  add_op(...), add_collective(...), num_replicas(),
//                       logical_cores_per_replica() }
//   StepEvent op_event(slot, name, inputs, outputs)   // FLOPs, bytes and unit from the op's name and shapes
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tpustrategy/core/dtype.h"
#include "tpustrategy/core/shape.h"
#include "tpustrategy/sim/collective_cost.h"
#include "tpustrategy/sim/roofline.h"

namespace tpustrategy::sim {

struct CoreSlot {
  int replica = 0;       // -1: cross-replica code (the caller of strategy.run): not placed on a core
  int logical_core = 0;  // within the replica (SPMD); 0 without model parallelism
  bool operator==(const CoreSlot&) const = default;
};

struct StepEvent {
  bool collective = false;
  CoreSlot slot;                     // op: where it ran; collective: the member that reported it (the last to arrive)
  std::string name;                  // op: TF's op name ("BatchMatMulV2"); collective: its kind ("all_reduce")
  std::vector<Shape> input_shapes;   // ops
  std::vector<Shape> output_shapes;  // ops
  DType dtype = DType::kFloat32;     // op: the first output's; collective: the buffer's
  double flops = 0;                  // op: 2 m n k for matmuls, one per output element otherwise
  double bytes = 0;                  // op: HBM bytes read and written; collective: as collective_time takes it
  OpUnit unit = OpUnit::kVector;
  CollectiveKind kind = CollectiveKind::kAllReduce;  // collectives
  std::vector<CoreSlot> group;                       // collectives: every member, in rank order
  std::int64_t count = 0;                            // collectives: elements per member
  // Collectives the SPMD partitioner inserted over one replica's logical cores (spmd_step_events.h): every
  // member is of the same replica, and on a target slice the collective repeats within each replica that runs
  // this replica's program, never spanning replicas.
  bool spmd = false;
};

// The HBM a (replica, logical core) held at its peak during the step (the recorder's window on its device).
struct SlotMemory {
  CoreSlot slot;
  std::int64_t peak = 0;      // bytes
  std::int64_t capacity = 0;  // the device's capacity while recording (bytes)
};

struct StepRecord {
  std::string name;  // the step's name (profiler Trace name), "" if none
  std::int64_t step_num = -1;
  std::vector<StepEvent> events;
  std::vector<SlotMemory> hbm;  // per slot the runtime recorder saw; empty for records built by hand

  // Replicas seen (1 + the largest replica id in any slot); 0 for an empty record.
  int num_replicas() const;
  // 1 + the largest logical core in any slot.
  int logical_cores_per_replica() const;
  // Appends an op with the FLOPs and bytes the model derives from its name and shapes (op_event).
  void add_op(CoreSlot slot, std::string_view name, std::vector<Shape> inputs, std::vector<Shape> outputs, DType dtype);
  // Appends a collective; `bytes` as collective_time takes it (all_gather: the gathered array; others: the
  // per-member buffer).
  void add_collective(CollectiveKind kind, std::vector<CoreSlot> group, DType dtype, std::int64_t count,
                      CoreSlot reporter = {});
};

// The cost-model view of an op: matmul ("BatchMatMulV2", "MatMul") runs on the MXU with 2 x output elements x k
// FLOPs (k from the first input); shape-only ops (Reshape, ExpandDims, Squeeze, Identity) move no HBM bytes (XLA
// makes them bitcasts); every other op is memory-bound with bytes = inputs + outputs.
StepEvent op_event(CoreSlot slot, std::string_view name, std::vector<Shape> inputs, std::vector<Shape> outputs,
                   DType dtype);

// Bytes of a collective as collective_time takes them, from the per-member element count.
double collective_bytes(CollectiveKind kind, DType dtype, std::int64_t count, int group_size);

}  // namespace tpustrategy::sim
