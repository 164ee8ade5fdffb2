#include "tpustrategy/tpu/chip_spec.h"

#include <fmt/format.h>

#include "tpustrategy/core/errors.h"

namespace tpustrategy {
namespace {

constexpr std::int64_t kGiB = std::int64_t{1} << 30;
constexpr std::int64_t kGB = 1000LL * 1000 * 1000;

}  // namespace

// Figures of ARCHITECTURE.md's table ("Simulated hardware"); v5e's link is quoted as 45-50 GB/s, we take 50 (200 GB/s
// per chip over 4 links).
const std::vector<ChipSpec>& chip_specs() {
  static const std::vector<ChipSpec> specs = {
      {"v2", 2, 45.0, 16 * kGiB, 700.0, 2, 4, 60.0},   {"v3", 2, 123.0, 32 * kGiB, 900.0, 2, 4, 83.0},
      {"v4", 1, 275.0, 32 * kGiB, 1200.0, 3, 6, 45.0}, {"v5e", 1, 197.0, 16 * kGiB, 819.0, 2, 4, 50.0},
      {"v5p", 1, 459.0, 95 * kGB, 2765.0, 3, 6, 90.0},
  };
  return specs;
}

const ChipSpec& find_chip_spec(std::string_view name) {
  std::vector<std::string_view> names;
  for (const ChipSpec& spec : chip_specs()) {
    if (spec.name == name) return spec;
    names.push_back(spec.name);
  }
  fail<ValueError>("find_chip_spec", "unknown TPU generation '{}'; known generations: {}", name,
                   fmt::join(names, ", "));
}

std::int64_t per_device_hbm_bytes(const ChipSpec& chip) { return chip.hbm_bytes / chip.cores_per_chip; }

}  // namespace tpustrategy
