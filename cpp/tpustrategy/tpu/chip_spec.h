#pragma once
// Per-chip hardware figures of each TPU generation, used by the cost model and HBM accounting.
//
// API (for bindings):
//   struct ChipSpec { name, cores_per_chip, bf16_tflops, hbm_bytes, hbm_gbps, ici_torus_dims,
//                     ici_links_per_chip, ici_link_gbps }
//   const std::vector<ChipSpec>& chip_specs();              // v2, v3, v4, v5e, v5p
//   const ChipSpec& find_chip_spec(std::string_view name);  // unknown -> ValueError listing names
//   std::int64_t per_device_hbm_bytes(const ChipSpec&);     // HBM of one TF TPU device (core)
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tpustrategy {

struct ChipSpec {
  std::string name;        // generation: "v2", "v3", "v4", "v5e", "v5p"
  int cores_per_chip;      // TF TPU devices per chip (v4/v5p megacore: one device per chip)
  double bf16_tflops;      // peak bf16 TFLOP/s per chip
  std::int64_t hbm_bytes;  // HBM capacity per chip
  double hbm_gbps;         // HBM bandwidth per chip, GB/s
  int ici_torus_dims;      // 2 (2D torus) or 3 (3D torus)
  int ici_links_per_chip;  // ICI links leaving one chip
  double ici_link_gbps;    // one-way bandwidth of one ICI link, GB/s
};

const std::vector<ChipSpec>& chip_specs();
const ChipSpec& find_chip_spec(std::string_view name);

// The HBM one TF device sees: v2/v3 split a chip's HBM between its two cores.
std::int64_t per_device_hbm_bytes(const ChipSpec& chip);

}  // namespace tpustrategy
