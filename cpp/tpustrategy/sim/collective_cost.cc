#include "tpustrategy/sim/collective_cost.h"

#include <algorithm>
#include <cmath>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/sim/roofline.h"

namespace tpustrategy::sim {
namespace {

constexpr const char* kWhere = "collective_time";

void check_bytes(const char* where, double bytes) {
  if (!std::isfinite(bytes) || bytes < 0) fail<ValueError>(where, "bytes must be finite and >= 0, got {}", bytes);
}

// Bytes per second one axis's ring moves into each member (both directions when it wraps).
double axis_bandwidth(const ChipSpec& chip, const RingAxis& axis, const CostParams& params) {
  if (axis.on_chip) return hbm_bytes_per_second_per_device(chip) * params.hbm_efficiency;
  const double one_way = chip.ici_link_gbps * 1e9 * params.ici_efficiency;
  return axis.wraparound ? 2 * one_way : one_way;
}

// Links crossed along the longest path of one axis's ring (or line).
int axis_hops(const RingAxis& axis) {
  if (axis.on_chip || axis.size <= 1) return 0;
  return (axis.wraparound ? axis.size / 2 : axis.size - 1) * axis.stride;
}

// The kinds that move data (the others have no cost).
constexpr CollectiveKind kCostedKinds[] = {CollectiveKind::kAllReduce,         CollectiveKind::kAllGather,
                                           CollectiveKind::kReduceScatter,     CollectiveKind::kAllToAll,
                                           CollectiveKind::kCollectivePermute, CollectiveKind::kBroadcast};

void check_costed(const char* where, CollectiveKind kind) {
  if (std::find(std::begin(kCostedKinds), std::end(kCostedKinds), kind) == std::end(kCostedKinds)) {
    fail<ValueError>(where, "{} moves no data and has no cost", collective_kind_name(kind));
  }
}

}  // namespace

CollectiveKind collective_kind_from_name(std::string_view name) {
  for (CollectiveKind kind : kCostedKinds) {
    if (name == collective_kind_name(kind)) return kind;
  }
  fail<ValueError>("collective_kind_from_name",
                   "unknown collective '{}'; expected all_reduce, all_gather, reduce_scatter, all_to_all, "
                   "collective_permute or broadcast",
                   name);
}

// collective_kind_name's views are of string literals, so their data are NUL-terminated.
const char* name_of(CollectiveKind kind) { return collective_kind_name(kind).data(); }

CollectiveCost collective_time(const ChipSpec& chip, CollectiveKind kind, double bytes,
                               const std::vector<RingAxis>& axes, const CostParams& params) {
  check_bytes(kWhere, bytes);
  check_costed(kWhere, kind);
  validate(params);
  CollectiveCost cost;
  double n = 1;
  for (const RingAxis& axis : axes) {
    if (axis.size < 1) fail<ValueError>(kWhere, "a ring axis needs at least one member, got size {}", axis.size);
    if (axis.stride < 1) fail<ValueError>(kWhere, "a ring axis stride must be >= 1, got {}", axis.stride);
    n *= axis.size;
  }
  cost.group_size = static_cast<int>(n);
  if (n <= 1) return cost;  // nothing moves

  double bandwidth_sum = 0;
  double all_to_all = 0;
  int hops = 0;
  double first_axis_bandwidth = 0;
  int first_axis_stride = 1;
  for (const RingAxis& axis : axes) {
    if (axis.size <= 1) continue;
    const double w = axis_bandwidth(chip, axis, params);
    if (first_axis_bandwidth == 0) {
      first_axis_bandwidth = axis.on_chip ? w : chip.ici_link_gbps * 1e9 * params.ici_efficiency;
      first_axis_stride = axis.on_chip ? 0 : axis.stride;
    }
    bandwidth_sum += w;
    // V_total max(axis) / (4 N W) with V_total = N x the per-member buffer: the longest axis limits it.
    all_to_all = std::max(all_to_all, bytes * axis.size / (4 * w));
    hops += axis_hops(axis);
  }
  const double gather = (1 - 1 / n) * bytes / bandwidth_sum;
  switch (kind) {
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
      cost.bandwidth_seconds = gather;
      cost.hops = hops;
      break;
    case CollectiveKind::kAllReduce:  // reduce-scatter, then all-gather
      cost.bandwidth_seconds = 2 * gather;
      cost.hops = 2 * hops;
      break;
    case CollectiveKind::kAllToAll:
      cost.bandwidth_seconds = all_to_all;
      cost.hops = hops;
      break;
    case CollectiveKind::kCollectivePermute:
      cost.bandwidth_seconds = bytes / first_axis_bandwidth;
      cost.hops = first_axis_stride;
      break;
    case CollectiveKind::kBroadcast:
      cost.bandwidth_seconds = bytes / bandwidth_sum;
      cost.hops = hops;
      break;
    default:  // rejected by check_costed
      break;
  }
  cost.latency_seconds = cost.hops * chip.ici_hop_latency_us * 1e-6 * params.hop_latency_factor;
  cost.overhead_seconds = params.collective_overhead_us * 1e-6;
  cost.latency_bound = cost.latency_seconds > cost.bandwidth_seconds;
  cost.seconds = cost.bandwidth_seconds + cost.latency_seconds + cost.overhead_seconds;
  return cost;
}

double latency_bound_threshold_bytes(const ChipSpec& chip, const CostParams& params) {
  validate(params);
  return chip.ici_link_gbps * 1e9 * params.ici_efficiency * chip.ici_hop_latency_us * 1e-6 * params.hop_latency_factor;
}

BusBandwidth bus_bandwidth(CollectiveKind kind, double bytes, int group_size, double seconds) {
  check_bytes("bus_bandwidth", bytes);
  check_costed("bus_bandwidth", kind);
  if (group_size < 1) fail<ValueError>("bus_bandwidth", "group_size must be >= 1, got {}", group_size);
  if (!(seconds > 0) || !std::isfinite(seconds))
    fail<ValueError>("bus_bandwidth", "seconds must be finite and > 0, got {}", seconds);
  const double n = group_size;
  double factor = 1;
  switch (kind) {
    case CollectiveKind::kAllReduce:
      factor = 2 * (n - 1) / n;
      break;
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllToAll:
      factor = (n - 1) / n;
      break;
    case CollectiveKind::kCollectivePermute:
    case CollectiveKind::kBroadcast:
      factor = 1;
      break;
    default:  // rejected by check_costed
      break;
  }
  const double algbw = bytes / seconds;
  return {algbw, algbw * factor};
}

double host_transfer_time(const ChipSpec& chip, double bytes, const CostParams& params) {
  check_bytes("host_transfer_time", bytes);
  validate(params);
  return bytes / (chip.pcie_gbps * 1e9 * params.pcie_efficiency);
}

double dcn_all_reduce_time(const ChipSpec& chip, double bytes_per_chip, int num_slices, const CostParams& params) {
  check_bytes("dcn_all_reduce_time", bytes_per_chip);
  if (num_slices < 1) fail<ValueError>("dcn_all_reduce_time", "num_slices must be >= 1, got {}", num_slices);
  validate(params);
  if (num_slices == 1) return 0;
  const double s = num_slices;
  return 2 * (s - 1) / s * bytes_per_chip / (chip.dcn_gbps * 1e9 * params.dcn_efficiency);
}

}  // namespace tpustrategy::sim
