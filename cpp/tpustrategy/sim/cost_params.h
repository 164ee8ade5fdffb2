#pragma once
// The calibration of the cost model: how far real TPUs fall short of their data-sheet figures, and the fixed costs.
//
// API (for bindings):
//   struct CostParams { ici_efficiency, hop_latency_factor, collective_overhead_us, op_overhead_us, mxu_efficiency,
//                       hbm_efficiency, pcie_efficiency, dcn_efficiency }
//   CostParams::calibrated()  // the defaults below
//   CostParams::nominal()     // data-sheet peaks: efficiency 1, no latency, no overhead
//
// Calibrated once, against the one published measurement of a TPU collective we have: the JAX scaling book
// ("How to Scale Your Model", part 3 "Sharded Matrices", pop quiz 2), TPU v5e 8x4, AllGather over the 4-axis (no
// wraparound) of bf16[2048, 8192] (34 MB) measured 680 us (model without efficiency: 560 us), and of bf16[256, 256]
// measured ~8 us; plus the book's rule that a v5e hop moves ~45 kB in its ~1 us latency. Three figures, three
// parameters: 75 % of the link rate, 1.2 x the nominal 1 us per hop, 2 us fixed per collective reproduce all three
// (tests_cpp/test_sim_collectives.cc). The same factors are applied to every generation: no measurement of the
// others was available, so their collective times are extrapolations.
namespace tpustrategy::sim {

struct CostParams {
  double ici_efficiency = 0.75;         // achieved / nominal one-way ICI link bandwidth
  double hop_latency_factor = 1.2;      // calibrated per-hop cost / the chip's nominal hop latency
  double collective_overhead_us = 2.0;  // launch and synchronisation of one collective
  double op_overhead_us = 1.0;          // per op (an assumption of the order of a TPU kernel launch, not calibrated)
  double mxu_efficiency = 1.0;          // achieved / peak MXU FLOP/s
  double hbm_efficiency = 1.0;          // achieved / peak HBM bandwidth
  double pcie_efficiency = 1.0;
  double dcn_efficiency = 1.0;

  static CostParams calibrated() { return {}; }
  static CostParams nominal() { return {1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0}; }
};

// Throws ValueError naming the field when a factor is not positive (or an overhead negative).
void validate(const CostParams& params);

}  // namespace tpustrategy::sim
