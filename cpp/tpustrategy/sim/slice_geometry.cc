#include "tpustrategy/sim/slice_geometry.h"

#include <algorithm>
#include <limits>

#include "tpustrategy/core/errors.h"

namespace tpustrategy::sim {

SliceGeometry geometry_of(const ChipSpec& chip, const std::array<std::int32_t, 3>& chip_mesh) {
  for (int i = 0; i < 3; ++i)
    if (chip_mesh[i] < 1)
      fail<ValueError>("geometry_of", "chip mesh sizes must be >= 1, got {} on axis {}", chip_mesh[i], "xyz"[i]);
  return {&chip, chip_mesh, chip.cores_per_chip, wraparound_axes(chip, chip_mesh)};
}

SliceGeometry geometry_of(const SlicePreset& preset) { return geometry_of(chip_spec(preset), chip_mesh(preset)); }

std::vector<RingAxis> axes_by_name(const SliceGeometry& g, std::string_view axes) {
  std::vector<RingAxis> result;
  std::string seen;
  for (char letter : axes) {
    const auto position = std::string_view("xyzc").find(letter);
    if (position == std::string_view::npos || seen.find(letter) != std::string::npos)
      fail<ValueError>("axes_by_name",
                       "axes must be distinct letters of 'xyzc' (chip axes x, y, z; c = the cores "
                       "of a chip), got '{}'",
                       axes);
    seen.push_back(letter);
    if (letter == 'c') {
      result.push_back({g.cores_per_chip, false, 1, true});
    } else {
      const auto i = static_cast<int>(position);
      result.push_back({g.chip_mesh[i], g.wraparound[i], 1, false});
    }
  }
  return result;
}

std::vector<RingAxis> group_axes(const SliceGeometry& g, const std::vector<Coordinate>& members) {
  constexpr const char* kWhere = "group_axes";
  const std::array<std::int32_t, 4> mesh = {g.chip_mesh[0], g.chip_mesh[1], g.chip_mesh[2], g.cores_per_chip};
  std::array<std::int32_t, 4> lo, hi;
  lo.fill(std::numeric_limits<std::int32_t>::max());
  hi.fill(-1);
  for (const Coordinate& c : members) {
    for (int i = 0; i < 4; ++i) {
      if (c[i] < 0 || c[i] >= mesh[i])
        fail<ValueError>(kWhere, "member [{}, {}, {}, {}] is outside the mesh [{}, {}, {}, {}]", c[0], c[1], c[2], c[3],
                         mesh[0], mesh[1], mesh[2], mesh[3]);
      lo[i] = std::min(lo[i], c[i]);
      hi[i] = std::max(hi[i], c[i]);
    }
  }
  if (members.size() <= 1) return {};
  // Distinct positions along each axis, and whether they are evenly spaced.
  std::array<std::vector<char>, 4> used;
  for (int i = 0; i < 4; ++i) used[i].assign(static_cast<std::size_t>(hi[i] - lo[i]) + 1, 0);
  for (const Coordinate& c : members)
    for (int i = 0; i < 4; ++i) used[i][static_cast<std::size_t>(c[i] - lo[i])] = 1;
  std::vector<RingAxis> axes;
  std::int64_t box = 1;
  bool even = true;
  for (int i = 0; i < 4; ++i) {
    std::vector<std::int32_t> positions;
    for (std::size_t k = 0; k < used[i].size(); ++k)
      if (used[i][k]) positions.push_back(static_cast<std::int32_t>(k));
    const int size = static_cast<int>(positions.size());
    if (size <= 1) continue;
    const int stride = positions[1] - positions[0];
    for (int k = 2; k < size; ++k) even = even && positions[k] - positions[k - 1] == stride;
    box *= size;
    const bool whole_axis = size == mesh[i] && stride == 1;
    if (i == 3)
      axes.push_back({size, false, 1, true});
    else
      axes.push_back({size, whole_axis && g.wraparound[i], stride, false});
  }
  if (box != static_cast<std::int64_t>(members.size())) {
    if (box < static_cast<std::int64_t>(members.size()))
      fail<ValueError>(kWhere, "the group lists a device more than once ({} members in a box of {})", members.size(),
                       box);
    even = false;
  }
  if (!even) {
    // Not a box: one line through every member, each step crossing the average spacing.
    int span = 0;
    for (int i = 0; i < 3; ++i) span += hi[i] - lo[i];
    const int n = static_cast<int>(members.size());
    return {{n, false, std::max(1, span / std::max(1, n - 1)), false}};
  }
  return axes;
}

double aggregate_ici_bandwidth(const SliceGeometry& g) {
  // Per axis, the link ports in use: 2 per chip on a ring, 2 (n-1) per line of n chips without wraparound.
  double ports = 0;
  for (int i = 0; i < 3; ++i) {
    const double n = g.chip_mesh[i];
    if (n <= 1) continue;
    const double lines = static_cast<double>(g.num_chips()) / n;
    ports += lines * (g.wraparound[i] ? 2 * n : 2 * (n - 1));
  }
  return ports * g.chip->ici_link_gbps * 1e9;
}

double bisection_bandwidth(const SliceGeometry& g) {
  // Cutting across axis i (of even length) severs one link per line, two when the lines wrap around.
  double best = 0;
  for (int i = 0; i < 3; ++i) {
    const double n = g.chip_mesh[i];
    if (n <= 1) continue;
    const double lines = static_cast<double>(g.num_chips()) / n;
    const double links = lines * (g.wraparound[i] ? 2 : 1);
    if (best == 0 || links < best) best = links;
  }
  return best * g.chip->ici_link_gbps * 1e9;
}

}  // namespace tpustrategy::sim
