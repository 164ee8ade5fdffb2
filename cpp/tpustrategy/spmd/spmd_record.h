#pragma once
// SpmdRecord: what one partitioned step ran on each logical core, in program order — every partitioned op
// (its shard shapes, FLOPs and bytes per core) and every collective the partitioner inserted (kind, device
// groups, bytes per core and the rule that inserted it). It is a plain value so the step-time estimator
// (sim/) can time the same entries later; to_text() prints it like a post-partitioning HLO listing.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tpustrategy/core/dtype.h"
#include "tpustrategy/core/shape.h"

namespace tpustrategy::spmd {

enum class SpmdEntryKind { kOp, kCollective, kNote };

struct SpmdEntry {
  SpmdEntryKind kind = SpmdEntryKind::kOp;
  // Ops: "dot", "add", "reduce_sum", "slice" … Collectives: XLA's names "all-gather", "all-reduce",
  // "reduce-scatter", "all-to-all", "collective-permute", "broadcast".
  std::string name;
  // Why it is there: the partitioning rule (ops) or the reshard / op rule that inserted it (collectives).
  std::string rule;
  DType dtype = DType::kFloat32;
  std::string sharding;  // the result's sharding, XLA text
  // Per logical core: the shape this core holds afterwards (empty vector when it holds nothing), the
  // floating-point operations it performs and the bytes it reads + writes (ops) or sends (collectives).
  std::vector<Shape> shard_shapes;
  std::vector<bool> holds;
  std::vector<std::int64_t> flops;
  std::vector<std::int64_t> bytes;
  // Collectives: the participant groups (logical cores, in rank order), the tensor dimension gathered /
  // scattered / exchanged (-1 when none), the reduction ("sum", "max" …) and collective-permute pairs.
  std::vector<std::vector<int>> groups;
  int dimension = -1;
  std::string reduction;
  std::vector<std::pair<int, int>> pairs;
  // Input shape per participant for collectives (the padded tile each core contributes).
  Shape operand_shape;
};

struct SpmdRecord {
  int num_cores = 0;
  std::vector<SpmdEntry> entries;

  std::vector<const SpmdEntry*> collectives() const;
  std::int64_t total_flops(int core) const;
  std::int64_t collective_bytes(int core) const;
  // "%3 = f32[8,32] all-gather(...), replica_groups={{0,1},{2,3}}, dimensions={1}  // rule" per line.
  std::string to_text() const;
};

}  // namespace tpustrategy::spmd
