#pragma once
// Simulated time of one collective on the ICI torus: ring algorithms per mesh axis (after "How to Scale Your Model",
// part 3), with the slice's real geometry.
//
// A group spans some torus axes (RingAxis: how many members along the axis, whether the ring closes through the
// wraparound link, the spacing between members, or the two cores of a v2/v3 chip). Per axis the ring bandwidth is
// W_bidi = 2 x one-way link rate when the axis wraps, the one-way rate when it does not (data must cross the whole
// line one way), so a collective without wraparound takes about twice as long. Axes run in parallel.
//   all-gather / reduce-scatter: (1 - 1/N) V / sum_axes(W_axis)        V = the gathered (scattered) array
//   all-reduce:                  reduce-scatter + all-gather            V = the per-member buffer
//   all-to-all:                  max_axes(V_total size_axis / (4 N W_axis)), V_total = N x per-member buffer
//   collective-permute:          per-member buffer / one-way link rate, stride hops
//   broadcast:                   V / sum_axes(W_axis) (pipelined along the rings)
// Latency: hops along the longest path (floor(size/2) x stride on a ring, (size-1) x stride on a line), each the
// chip's hop latency x hop_latency_factor; plus a fixed overhead per collective. The reduction arithmetic is not
// timed. N is the group size; a group of one costs nothing.
//
// API (for bindings):
//   CollectiveKind (collectives/collective_kind.h; the kinds that move data have a cost)
//   CollectiveKind collective_kind_from_name(name)  // "all_reduce", "all_gather", ... else ValueError
//   struct RingAxis { size, wraparound, stride = 1, on_chip = false }
//   CollectiveCost collective_time(chip, kind, bytes, axes, params)
//   double latency_bound_threshold_bytes(chip, params)  // per-hop message below which a hop is latency-bound
//   BusBandwidth bus_bandwidth(kind, bytes, group_size, seconds)  // nccl-tests' algbw / busbw
//   double host_transfer_time(chip, bytes, params)        // PCIe, one chip, one way (infeed / outfeed)
//   double dcn_all_reduce_time(chip, bytes_per_chip, num_slices, params)  // across slices, each chip its share
#include <string_view>
#include <vector>

#include "tpustrategy/collectives/collective_kind.h"
#include "tpustrategy/sim/cost_params.h"
#include "tpustrategy/tpu/chip_spec.h"

namespace tpustrategy::sim {

// The one enum of collective kinds (the runtime's, the Communicator's observers'). Only the six that move
// data have a cost: barrier, merge_call, split and abort are a ValueError where a cost is asked for.
using tpustrategy::CollectiveKind;

// A kind that moves data, by name; anything else -> ValueError listing the six.
CollectiveKind collective_kind_from_name(std::string_view name);
// Its name ("all_reduce", ...), as collective_kind_name.
const char* name_of(CollectiveKind kind);

struct RingAxis {
  int size = 1;             // members along this axis
  bool wraparound = false;  // the ring closes through the wraparound link
  int stride = 1;           // chips between consecutive members (each step crosses `stride` links)
  bool on_chip = false;     // the two TensorCores of a v2/v3 chip: moved at HBM speed, no ICI hop
};

struct CollectiveCost {
  double seconds = 0;
  double bandwidth_seconds = 0;
  double latency_seconds = 0;
  double overhead_seconds = 0;
  int hops = 0;  // ICI hops along the longest path
  int group_size = 1;
  bool latency_bound = false;  // the hop latencies outweigh the data movement
};

// bytes < 0 / not finite, an axis size < 1 or stride < 1 -> ValueError naming the value.
CollectiveCost collective_time(const ChipSpec& chip, CollectiveKind kind, double bytes,
                               const std::vector<RingAxis>& axes, const CostParams& params = CostParams::calibrated());

double latency_bound_threshold_bytes(const ChipSpec& chip, const CostParams& params = CostParams::calibrated());

// nccl-tests (PERFORMANCE.md): algbw = bytes / time; busbw = algbw x 2(n-1)/n for all-reduce, x (n-1)/n for
// all-gather, reduce-scatter and all-to-all, x 1 for broadcast and permute. `bytes` as collective_time takes it.
struct BusBandwidth {
  double algbw = 0;  // bytes / s
  double busbw = 0;
};
BusBandwidth bus_bandwidth(CollectiveKind kind, double bytes, int group_size, double seconds);

double host_transfer_time(const ChipSpec& chip, double bytes, const CostParams& params = CostParams::calibrated());

// All-reduce across `num_slices` slices over the data-centre network, each chip exchanging its own share
// (bytes_per_chip, after a reduce-scatter inside the slice): a ring over the slices, 2 (S-1)/S x bytes / DCN rate.
double dcn_all_reduce_time(const ChipSpec& chip, double bytes_per_chip, int num_slices,
                           const CostParams& params = CostParams::calibrated());

}  // namespace tpustrategy::sim
