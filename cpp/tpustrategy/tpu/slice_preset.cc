#include "tpustrategy/tpu/slice_preset.h"

#include <fmt/format.h>

#include "tpustrategy/core/errors.h"

namespace tpustrategy {

const std::vector<SlicePreset>& slice_presets() {
  // v2/v3 hosts drive a 2x2 block of two-core chips, v4/v5p hosts a 2x2 block of one-device chips, v5e hosts up to 8
  // chips (v5e-16 splits its 4x4 mesh along y).
  static const std::vector<SlicePreset> presets = {
      {"v2-8", "v2", {2, 2, 1, 2}, 1, 8, {2, 2, 1}},        {"v2-32", "v2", {4, 4, 1, 2}, 4, 8, {2, 2, 1}},
      {"v3-8", "v3", {2, 2, 1, 2}, 1, 8, {2, 2, 1}},        {"v3-32", "v3", {4, 4, 1, 2}, 4, 8, {2, 2, 1}},
      {"v3-2048", "v3", {32, 32, 1, 2}, 256, 8, {2, 2, 1}}, {"v4-8", "v4", {2, 2, 1, 1}, 1, 4, {2, 2, 1}},
      {"v4-16", "v4", {2, 2, 2, 1}, 2, 4, {2, 2, 1}},       {"v4-32", "v4", {2, 2, 4, 1}, 4, 4, {2, 2, 1}},
      {"v4-64", "v4", {2, 4, 4, 1}, 8, 4, {2, 2, 1}},       {"v4-128", "v4", {4, 4, 4, 1}, 16, 4, {2, 2, 1}},
      {"v5e-4", "v5e", {2, 2, 1, 1}, 1, 4, {2, 2, 1}},      {"v5e-8", "v5e", {2, 4, 1, 1}, 1, 8, {2, 4, 1}},
      {"v5e-16", "v5e", {4, 4, 1, 1}, 2, 8, {4, 2, 1}},     {"v5p-8", "v5p", {2, 2, 1, 1}, 1, 4, {2, 2, 1}},
  };
  return presets;
}

const SlicePreset& find_slice_preset(std::string_view name) {
  std::vector<std::string_view> names;
  for (const SlicePreset& preset : slice_presets()) {
    if (preset.name == name) return preset;
    names.push_back(preset.name);
  }
  fail<ValueError>("find_slice_preset", "unknown TPU slice '{}'; known slices: {}", name, fmt::join(names, ", "));
}

Topology make_topology(const SlicePreset& preset) {
  const auto& mesh = preset.mesh_shape;
  const auto& host = preset.host_shape;
  const std::array<std::int32_t, 3> hosts_along = {mesh[0] / host[0], mesh[1] / host[1], mesh[2] / host[2]};
  std::vector<std::int32_t> coordinates;
  coordinates.reserve(static_cast<std::size_t>(preset.num_hosts) * preset.devices_per_host * 4);
  for (std::int32_t hz = 0; hz < hosts_along[2]; ++hz) {
    for (std::int32_t hy = 0; hy < hosts_along[1]; ++hy) {
      for (std::int32_t hx = 0; hx < hosts_along[0]; ++hx) {
        for (std::int32_t z = 0; z < host[2]; ++z) {
          for (std::int32_t y = 0; y < host[1]; ++y) {
            for (std::int32_t x = 0; x < host[0]; ++x) {
              for (std::int32_t core = 0; core < mesh[3]; ++core) {
                coordinates.insert(coordinates.end(), {hx * host[0] + x, hy * host[1] + y, hz * host[2] + z, core});
              }
            }
          }
        }
      }
    }
  }
  return Topology(std::vector<std::int32_t>(mesh.begin(), mesh.end()),
                  {preset.num_hosts, preset.devices_per_host, Topology::kMeshRank}, std::move(coordinates));
}

const ChipSpec& chip_spec(const SlicePreset& preset) { return find_chip_spec(preset.generation); }

}  // namespace tpustrategy
