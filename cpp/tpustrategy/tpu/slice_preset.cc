#include "tpustrategy/tpu/slice_preset.h"

#include <fmt/format.h>

#include "tpustrategy/core/errors.h"

namespace tpustrategy {

namespace {

// A preset from its generation and chip mesh: the name counts TensorCores (v2/v3/v4/v5p) or chips (v5e/v6e); hosts
// drive 2x2x1 chips on v2-v5p and up to 8 chips on v5e/v6e (1, 2x2, 2x4, else 4x2 blocks).
SlicePreset make_preset(const std::string& generation, std::array<std::int32_t, 3> mesh) {
  const ChipSpec& chip = find_chip_spec(generation);
  const std::int64_t chips = std::int64_t{mesh[0]} * mesh[1] * mesh[2];
  const bool counts_chips = chip.tensorcores_per_chip == 1;
  std::array<std::int32_t, 3> host = {2, 2, 1};
  if (chip.chips_per_host == 8) {
    if (chips == 1)
      host = {1, 1, 1};
    else if (chips <= 4)
      host = {mesh[0], mesh[1], 1};
    else if (mesh[0] == 2 && mesh[1] == 4)
      host = {2, 4, 1};
    else
      host = {4, 2, 1};
  }
  const int chips_per_host = host[0] * host[1] * host[2];
  SlicePreset preset{fmt::format("{}-{}", generation, counts_chips ? chips : chips * chip.tensorcores_per_chip),
                     generation,
                     {mesh[0], mesh[1], mesh[2], chip.cores_per_chip},
                     static_cast<int>(chips / chips_per_host),
                     chips_per_host * chip.cores_per_chip,
                     host};
  // Twisted tori (cloud docs, v4 "3D mesh and 3D torus" / v5p shapes table): AxBxC with 2A=B=C or 2A=2B=C, every
  // dimension a multiple of 4.
  const auto [a, b, c] = mesh;
  preset.twisted = chip.wraparound == WraparoundRule::kFullCube && a % 4 == 0 && b % 4 == 0 && c % 4 == 0 &&
                   ((2 * a == b && b == c) || (2 * a == 2 * b && 2 * b == c));
  return preset;
}

std::vector<SlicePreset> build_presets() {
  // The first presets (unchanged since the first round; tests pin their order and count).
  std::vector<SlicePreset> presets = {
      {"v2-8", "v2", {2, 2, 1, 2}, 1, 8, {2, 2, 1}},        {"v2-32", "v2", {4, 4, 1, 2}, 4, 8, {2, 2, 1}},
      {"v3-8", "v3", {2, 2, 1, 2}, 1, 8, {2, 2, 1}},        {"v3-32", "v3", {4, 4, 1, 2}, 4, 8, {2, 2, 1}},
      {"v3-2048", "v3", {32, 32, 1, 2}, 256, 8, {2, 2, 1}}, {"v4-8", "v4", {2, 2, 1, 1}, 1, 4, {2, 2, 1}},
      {"v4-16", "v4", {2, 2, 2, 1}, 2, 4, {2, 2, 1}},       {"v4-32", "v4", {2, 2, 4, 1}, 4, 4, {2, 2, 1}},
      {"v4-64", "v4", {2, 4, 4, 1}, 8, 4, {2, 2, 1}},       {"v4-128", "v4", {4, 4, 4, 1}, 16, 4, {2, 2, 1}},
      {"v5e-4", "v5e", {2, 2, 1, 1}, 1, 4, {2, 2, 1}},      {"v5e-8", "v5e", {2, 4, 1, 1}, 1, 8, {2, 4, 1}},
      {"v5e-16", "v5e", {4, 4, 1, 1}, 2, 8, {4, 2, 1}},     {"v5p-8", "v5p", {2, 2, 1, 1}, 1, 4, {2, 2, 1}},
  };
  // v4 up to its 4096-chip pod; v5p up to its largest slice and the whole 8960-chip pod (cloud docs shape tables).
  for (auto mesh :
       std::vector<std::array<std::int32_t, 3>>{{4, 4, 8}, {4, 8, 8}, {8, 8, 8}, {8, 8, 16}, {8, 16, 16}, {16, 16, 16}})
    presets.push_back(make_preset("v4", mesh));
  for (auto mesh : std::vector<std::array<std::int32_t, 3>>{{2, 2, 2},
                                                            {2, 2, 4},
                                                            {2, 4, 4},
                                                            {4, 4, 4},
                                                            {4, 4, 8},
                                                            {4, 8, 8},
                                                            {8, 8, 8},
                                                            {8, 8, 16},
                                                            {8, 16, 16},
                                                            {16, 16, 16},
                                                            {16, 16, 24},
                                                            {16, 20, 28}})
    presets.push_back(make_preset("v5p", mesh));
  // v5e beyond 16 chips and v6e (Trillium): 1x1 ... 16x16 (cloud docs "supported 2D slice shapes").
  for (auto mesh : std::vector<std::array<std::int32_t, 3>>{{1, 1, 1}, {4, 8, 1}, {8, 8, 1}, {8, 16, 1}, {16, 16, 1}})
    presets.push_back(make_preset("v5e", mesh));
  for (auto mesh : std::vector<std::array<std::int32_t, 3>>{
           {1, 1, 1}, {2, 2, 1}, {2, 4, 1}, {4, 4, 1}, {4, 8, 1}, {8, 8, 1}, {8, 16, 1}, {16, 16, 1}})
    presets.push_back(make_preset("v6e", mesh));
  return presets;
}

}  // namespace

const std::vector<SlicePreset>& slice_presets() {
  static const std::vector<SlicePreset> presets = build_presets();
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

std::array<std::int32_t, 3> chip_mesh(const SlicePreset& preset) {
  return {preset.mesh_shape[0], preset.mesh_shape[1], preset.mesh_shape[2]};
}

std::int64_t num_chips(const SlicePreset& preset) {
  return std::int64_t{preset.mesh_shape[0]} * preset.mesh_shape[1] * preset.mesh_shape[2];
}

std::array<bool, 3> wraparound_axes(const SlicePreset& preset) {
  return wraparound_axes(chip_spec(preset), chip_mesh(preset));
}

}  // namespace tpustrategy
