#pragma once
// Named simulated TPU slices ("v3-8", "v4-32", ...) and the Topology each one has (SEMANTICS.md §3.1).
//
// API (for bindings):
//   struct SlicePreset { name, generation, mesh_shape [x,y,z,core], num_hosts, devices_per_host,
//                        host_shape [x,y,z] (chips per host) }
//   const std::vector<SlicePreset>& slice_presets();
//   const SlicePreset& find_slice_preset(std::string_view name);  // unknown -> ValueError listing presets
//   Topology make_topology(const SlicePreset&);
//   const ChipSpec& chip_spec(const SlicePreset&);                 // the preset's generation
//
// Device ordinals: hosts (tasks) tile the chip mesh in blocks of host_shape, x-block fastest, then y, then z; within a
// host the core is fastest, then x, then y, then z. On v3-8 that gives TPU:0 (0,0,0,0), TPU:1 (0,0,0,1), TPU:2
// (1,0,0,0), TPU:3 (1,0,0,1), TPU:4 (0,1,0,0), ... as on a real v3-8.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tpustrategy/tpu/chip_spec.h"
#include "tpustrategy/tpu/topology.h"

namespace tpustrategy {

struct SlicePreset {
  std::string name;                        // "v3-8": TensorCores for v2/v3, chips for v4 and later
  std::string generation;                  // "v2", "v3", "v4", "v5e", "v5p"
  std::array<std::int32_t, 4> mesh_shape;  // [x, y, z, cores per chip]
  int num_hosts;
  int devices_per_host;
  std::array<std::int32_t, 3> host_shape;  // chips of one host along x, y, z
};

const std::vector<SlicePreset>& slice_presets();
const SlicePreset& find_slice_preset(std::string_view name);
Topology make_topology(const SlicePreset& preset);
const ChipSpec& chip_spec(const SlicePreset& preset);

}  // namespace tpustrategy
