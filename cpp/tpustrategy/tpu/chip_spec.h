#pragma once
// Per-chip hardware figures of each TPU generation, as data: used by the cost model (sim/), HBM accounting and the
// slice presets. Every figure cites its source next to it in chip_spec.cc.
//
// API (for bindings):
//   enum class WraparoundRule { kFullPodAxis, kFullCube, kAxisOf16 }
//   struct ChipSpec { name, cores_per_chip, tensorcores_per_chip, bf16_tflops, f32_tflops, int8_tops, hbm_bytes,
//                     hbm_gbps, ici_torus_dims, ici_links_per_chip, ici_link_gbps, ici_hop_latency_us, pcie_gbps,
//                     dcn_gbps, chips_per_host, pod_shape, max_slice_shape, wraparound }
//   const std::vector<ChipSpec>& chip_specs();              // v2, v3, v4, v5e, v5p, v6e
//   const ChipSpec& find_chip_spec(std::string_view name);  // unknown -> ValueError listing names
//   std::int64_t per_device_hbm_bytes(const ChipSpec&);     // HBM of one TF TPU device (core)
//   std::array<bool, 3> wraparound_axes(const ChipSpec&, chip_mesh [x, y, z]);
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tpustrategy {

// Which axes of a slice close into a ring (the ICI link from the last chip back to the first).
enum class WraparoundRule : int {
  kFullPodAxis = 0,  // v2/v3: an axis wraps when it spans the whole pod along that axis
  kFullCube = 1,     // v4/v5p: every axis wraps when the slice is made of whole 4x4x4 cubes (optical switches)
  kAxisOf16 = 2,     // v5e/v6e: an axis wraps when it has 16 chips
};

struct ChipSpec {
  std::string name;           // generation: "v2", "v3", "v4", "v5e", "v5p", "v6e"
  int cores_per_chip;         // TF TPU devices per chip (v4/v5p megacore: one device per chip)
  int tensorcores_per_chip;   // physical TensorCores (what v2/v3/v4/v5p slice names count)
  double bf16_tflops;         // peak bf16 MXU TFLOP/s per chip
  double f32_tflops;          // f32 matmuls as TPUs run them by default (one bf16 pass, f32 accumulation)
  double int8_tops;           // peak int8 MXU TOP/s per chip (the bf16 rate where the chip has no faster int8 path)
  std::int64_t hbm_bytes;     // HBM capacity per chip
  double hbm_gbps;            // HBM bandwidth per chip, GB/s
  int ici_torus_dims;         // 2 (2D torus) or 3 (3D torus)
  int ici_links_per_chip;     // ICI ports of one chip
  double ici_link_gbps;       // one-way bandwidth of one ICI link, GB/s (bidirectional is twice)
  double ici_hop_latency_us;  // fixed cost of one ICI hop
  double pcie_gbps;           // host <-> chip, per chip, one way
  double dcn_gbps;            // data-centre network share of one chip, one way
  int chips_per_host;
  std::array<std::int32_t, 3> pod_shape;        // chips of a full pod [x, y, z]
  std::array<std::int32_t, 3> max_slice_shape;  // the largest single slice (v5p: 16x16x24 of a 16x20x28 pod)
  WraparoundRule wraparound;
};

const std::vector<ChipSpec>& chip_specs();
const ChipSpec& find_chip_spec(std::string_view name);

// The HBM one TF device sees: v2/v3 split a chip's HBM between its two cores.
std::int64_t per_device_hbm_bytes(const ChipSpec& chip);

// Per chip-mesh axis [x, y, z]: whether the slice has the wraparound link on it. Axes of size 1 never wrap.
std::array<bool, 3> wraparound_axes(const ChipSpec& chip, const std::array<std::int32_t, 3>& chip_mesh);

}  // namespace tpustrategy
