#include "tpustrategy/sim/spmd_step_events.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string_view>

namespace tpustrategy::sim {
namespace {

std::optional<CollectiveKind> xla_kind(std::string_view name) {
  if (name == "all-reduce") return CollectiveKind::kAllReduce;
  if (name == "all-gather") return CollectiveKind::kAllGather;
  if (name == "reduce-scatter") return CollectiveKind::kReduceScatter;
  if (name == "all-to-all") return CollectiveKind::kAllToAll;
  if (name == "collective-permute") return CollectiveKind::kCollectivePermute;
  if (name == "broadcast") return CollectiveKind::kBroadcast;
  return std::nullopt;
}

template <class T>
T at_or(const std::vector<T>& values, std::size_t k, T fallback) {
  return k < values.size() ? values[k] : fallback;
}

StepEvent collective_event(int replica, const spmd::SpmdEntry& entry, CollectiveKind kind,
                           const std::vector<int>& cores) {
  StepEvent e;
  e.collective = true;
  e.spmd = true;
  e.name = name_of(kind);
  e.kind = kind;
  e.dtype = entry.dtype;
  e.count = num_elements(entry.operand_shape);
  for (int core : cores) e.group.push_back({replica, core});
  e.slot = e.group.back();
  e.bytes = collective_bytes(kind, entry.dtype, e.count, static_cast<int>(cores.size()));
  return e;
}

}  // namespace

std::vector<StepEvent> spmd_entry_events(int replica, const spmd::SpmdEntry& entry) {
  std::vector<StepEvent> out;
  if (entry.kind == spmd::SpmdEntryKind::kOp) {
    const bool mxu = entry.name == "dot" || entry.name == "convolution";
    const std::size_t cores = std::max({entry.holds.size(), entry.flops.size(), entry.bytes.size()});
    for (std::size_t k = 0; k < cores; ++k) {
      if (!at_or<bool>(entry.holds, k, true)) continue;
      StepEvent e;
      e.slot = {replica, static_cast<int>(k)};
      e.name = entry.name;
      e.dtype = entry.dtype;
      e.unit = mxu ? OpUnit::kMxu : OpUnit::kVector;
      e.flops = static_cast<double>(at_or<std::int64_t>(entry.flops, k, 0));
      e.bytes = static_cast<double>(at_or<std::int64_t>(entry.bytes, k, 0));
      if (k < entry.shard_shapes.size()) e.output_shapes.push_back(entry.shard_shapes[k]);
      out.push_back(std::move(e));
    }
    return out;
  }
  if (entry.kind != spmd::SpmdEntryKind::kCollective) return out;
  const std::optional<CollectiveKind> kind = xla_kind(entry.name);
  if (!kind) return out;
  if (!entry.pairs.empty()) {
    std::set<int> cores;
    for (const auto& [source, target] : entry.pairs) {
      if (source == target) continue;
      cores.insert(source);
      cores.insert(target);
    }
    if (cores.size() >= 2) out.push_back(collective_event(replica, entry, *kind, {cores.begin(), cores.end()}));
    return out;
  }
  for (const std::vector<int>& group : entry.groups) {
    if (group.size() >= 2) out.push_back(collective_event(replica, entry, *kind, group));
  }
  return out;
}

void append_spmd_entries(StepRecord& record, int replica, const spmd::SpmdRecord& spmd_record,
                         std::size_t first_entry) {
  for (std::size_t i = first_entry; i < spmd_record.entries.size(); ++i) {
    for (StepEvent& e : spmd_entry_events(replica, spmd_record.entries[i])) record.events.push_back(std::move(e));
  }
}

}  // namespace tpustrategy::sim
