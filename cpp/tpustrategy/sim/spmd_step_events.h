#pragma once
// The SPMD partitioner's per-step record (spmd/spmd_record.h) as step events: each logical core's partitioned ops
// and the collectives inserted over its logical-core subgroups, timed on the cores they ran on.
//
// Record-format assumptions (spmd/spmd_record.h): entries are appended in program order; an op entry has one
// flops / bytes / shard_shapes / holds value per logical core (a core that holds nothing does nothing); a
// collective entry names XLA's kind ("all-reduce", "all-gather", "reduce-scatter", "all-to-all",
// "collective-permute", "broadcast"), lists its groups (logical cores in rank order) or, for collective-permute,
// its source -> target pairs, and operand_shape is the buffer each participant contributes (broadcast: the
// whole tensor). Ops named "dot" and "convolution" run on the MXU; every other op on the vector unit.
//
// API (for bindings):
//   void append_spmd_entries(StepRecord&, int replica, const spmd::SpmdRecord&, std::size_t first_entry)
//   std::vector<StepEvent> spmd_entry_events(int replica, const spmd::SpmdEntry&)
#include <cstddef>
#include <vector>

#include "tpustrategy/sim/step_record.h"
#include "tpustrategy/spmd/spmd_record.h"

namespace tpustrategy::sim {

// Events of one entry: per holding core one op event (slot = (replica, core)); per group one collective event
// (spmd = true, count = operand_shape's elements); a collective-permute is one event over every core that sends
// or receives (pairs from a core to itself move nothing). Notes and unknown collective names give no events.
std::vector<StepEvent> spmd_entry_events(int replica, const spmd::SpmdEntry& entry);

// Appends the events of record.entries[first_entry, end) for `replica`.
void append_spmd_entries(StepRecord& record, int replica, const spmd::SpmdRecord& spmd_record,
                         std::size_t first_entry = 0);

}  // namespace tpustrategy::sim
