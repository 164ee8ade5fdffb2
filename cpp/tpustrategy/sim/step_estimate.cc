#include "tpustrategy/sim/step_estimate.h"

#include <algorithm>
#include <map>
#include <utility>

#include "tpustrategy/core/errors.h"

namespace tpustrategy::sim {
namespace {

constexpr const char* kWhere = "estimate_step";

MxuDType mxu_dtype_of(DType dtype) {
  if (dtype == DType::kBFloat16 || dtype == DType::kFloat16) return MxuDType::kBFloat16;
  return MxuDType::kFloat32;  // f32 (and everything else) as one bf16 pass at XLA's default precision
}

// Target core of every (replica, logical core) slot, validated.
std::vector<int> placement(const EstimateOptions& options, int replicas, int cores_per_replica, int num_cores) {
  const std::size_t slots = static_cast<std::size_t>(replicas) * cores_per_replica;
  std::vector<int> core_of = options.core_of_slot;
  if (core_of.empty()) {
    core_of.resize(slots);
    for (std::size_t i = 0; i < slots; ++i) core_of[i] = static_cast<int>(i);
    return core_of;
  }
  if (core_of.size() < slots)
    fail<ValueError>(kWhere, "core_of_slot has {} entries for {} replicas x {} logical cores", core_of.size(), replicas,
                     cores_per_replica);
  core_of.resize(slots);
  std::vector<char> seen(static_cast<std::size_t>(num_cores), 0);
  for (int core : core_of) {
    if (core < 0 || core >= num_cores)
      fail<ValueError>(kWhere, "core_of_slot names core {}, but the slice has {} cores", core, num_cores);
    if (seen[static_cast<std::size_t>(core)]++) fail<ValueError>(kWhere, "core_of_slot names core {} twice", core);
  }
  return core_of;
}

}  // namespace

StepEstimate estimate_step(const StepRecord& record, const SlicePreset& preset, const EstimateOptions& options) {
  validate(options.params);
  StepEstimate out;
  out.slice = preset.name;
  StepTimeline timeline(preset, options.params);
  const SliceGeometry& geometry = timeline.geometry();
  const std::vector<Coordinate>& coordinates = timeline.core_coordinates();
  out.num_cores = static_cast<int>(coordinates.size());
  const int recorded = std::max(record.num_replicas(), 1);
  const int per_replica = std::max(record.logical_cores_per_replica(), 1);
  out.cores_per_replica = per_replica;
  if (options.num_replicas < 0) fail<ValueError>(kWhere, "num_replicas must be >= 0, got {}", options.num_replicas);
  const int replicas = options.num_replicas > 0 ? options.num_replicas : out.num_cores / per_replica;
  if (replicas < 1 || static_cast<std::int64_t>(replicas) * per_replica > out.num_cores)
    fail<ValueError>(kWhere, "{} replicas of {} logical cores do not fit the {} cores of {}", replicas, per_replica,
                     out.num_cores, preset.name);
  out.num_replicas = replicas;
  const std::vector<int> core_of = placement(options, replicas, per_replica, out.num_cores);
  auto core = [&](int replica, int logical_core) {
    return core_of[static_cast<std::size_t>(replica) * per_replica + logical_core];
  };

  std::map<std::string, OpStat> op_stats;
  const int num_events = static_cast<int>(record.events.size());
  for (int index = 0; index < num_events; ++index) {
    const StepEvent& e = record.events[static_cast<std::size_t>(index)];
    if (!e.collective) {
      if (e.slot.replica < 0) continue;  // cross-replica code: on the host
      OpStat& stat = op_stats[e.name];
      stat.name = e.name;
      const OpRecord op{0, e.name, e.unit, e.flops, e.bytes, mxu_dtype_of(e.dtype)};
      for (int t = e.slot.replica % recorded; t < replicas; t += recorded) {
        OpRecord placed = op;
        placed.core = core(t, e.slot.logical_core);
        const int r = timeline.add_op(placed);
        const double start = timeline.record_start(r), end = timeline.record_end(r);
        stat.count += 1;
        stat.seconds += end - start;
        stat.flops += e.flops;
        stat.bytes += e.bytes;
        if (options.keep_timeline) out.timeline.push_back({index, placed.core, start, end});
      }
      continue;
    }
    std::vector<std::vector<int>> groups;
    if (e.spmd) {
      // Within one replica's logical cores: the same group in every target replica running that program.
      const int source = e.group.front().replica;
      for (int t = source % recorded; t < replicas; t += recorded) {
        std::vector<int> g;
        g.reserve(e.group.size());
        for (const CoreSlot& s : e.group) g.push_back(core(t, s.logical_core));
        groups.push_back(std::move(g));
      }
      if (groups.empty()) continue;  // the target runs fewer replicas than the one that recorded it
    } else {
      // Which recorded replicas the group spans: all of them -> every target replica; else repeat per block.
      std::vector<char> member(static_cast<std::size_t>(recorded), 0);
      for (const CoreSlot& s : e.group) member[static_cast<std::size_t>(s.replica)] = 1;
      const bool whole = std::all_of(member.begin(), member.end(), [](char m) { return m != 0; });
      if (whole) {
        std::vector<int> g;
        g.reserve(static_cast<std::size_t>(replicas) * e.group.size() / recorded + 1);
        std::vector<std::vector<int>> logical_cores(static_cast<std::size_t>(recorded));
        for (const CoreSlot& s : e.group) logical_cores[static_cast<std::size_t>(s.replica)].push_back(s.logical_core);
        for (int t = 0; t < replicas; ++t)
          for (int l : logical_cores[static_cast<std::size_t>(t % recorded)]) g.push_back(core(t, l));
        groups.push_back(std::move(g));
      } else {
        if (replicas % recorded != 0)
          fail<ValueError>(kWhere,
                           "event {} ({}) runs over {} of the {} recorded replicas; it can be repeated only on "
                           "a multiple of {} replicas, not {}",
                           index, e.name, e.group.size(), recorded, recorded, replicas);
        for (int block = 0; block < replicas / recorded; ++block) {
          std::vector<int> g;
          for (const CoreSlot& s : e.group) g.push_back(core(block * recorded + s.replica, s.logical_core));
          groups.push_back(std::move(g));
        }
      }
    }
    CollectiveStat stat;
    stat.event = index;
    stat.kind = e.name;
    stat.instances = static_cast<int>(groups.size());
    stat.group_size = static_cast<int>(groups.front().size());
    // Bytes as collective_time takes them: an all-gather's grows with the group it is repeated onto.
    const double bytes = collective_bytes(e.kind, e.dtype, e.count, stat.group_size);
    stat.bytes = e.count > 0 || e.bytes == 0 ? bytes : e.bytes;
    for (const std::vector<int>& g : groups) {
      const int r = timeline.add_collective({e.name, e.kind, g, stat.bytes});
      if (options.keep_timeline)
        for (int c : g) out.timeline.push_back({index, c, timeline.record_start(r), timeline.record_end(r)});
      if (&g == &groups.front()) {
        stat.seconds = timeline.record_end(r) - timeline.record_start(r);
        std::vector<Coordinate> members;
        members.reserve(g.size());
        for (int c : g) members.push_back(coordinates[static_cast<std::size_t>(c)]);
        const CollectiveCost cost =
            collective_time(*geometry.chip, e.kind, stat.bytes, group_axes(geometry, members), options.params);
        stat.hops = cost.hops;
        stat.latency_bound = cost.latency_bound;
        if (stat.seconds > 0) {
          const BusBandwidth bw = bus_bandwidth(e.kind, stat.bytes, stat.group_size, stat.seconds);
          stat.algbw = bw.algbw;
          stat.busbw = bw.busbw;
        }
      }
    }
    out.collectives.push_back(std::move(stat));
  }
  out.summary = timeline.summarize();
  out.hbm_capacity = per_device_hbm_bytes(*geometry.chip);
  out.hbm_peak.assign(static_cast<std::size_t>(out.num_cores), -1);
  for (const SlotMemory& m : record.hbm) {
    if (m.slot.replica < 0 || m.slot.logical_core >= per_replica) continue;
    for (int t = m.slot.replica % recorded; t < replicas; t += recorded)
      out.hbm_peak[static_cast<std::size_t>(core(t, m.slot.logical_core))] = m.peak;
  }
  for (auto& [name, stat] : op_stats) out.ops.push_back(std::move(stat));
  std::stable_sort(out.ops.begin(), out.ops.end(),
                   [](const OpStat& a, const OpStat& b) { return a.seconds > b.seconds; });
  std::stable_sort(out.collectives.begin(), out.collectives.end(),
                   [](const CollectiveStat& a, const CollectiveStat& b) {
                     return a.seconds * a.instances > b.seconds * b.instances;
                   });
  return out;
}

}  // namespace tpustrategy::sim
