#pragma once
// Ring orders over a chip grid, used by DeviceAssignment::build to place consecutive replicas (and the chips of one
// replica) on neighbouring chips (TF's _open_ring_2d / _ring_3d, SEMANTICS.md §3.2 c).
//
// API (for bindings):
//   open_ring_2d(x_size, y_size, z) -> [(x, y, z)]  // an X x Y ring at height z, omitting (0, 0, z)
//   ring3d(x_size, y_size, z_size) -> [(x, y, z)]   // a closed ring visiting every chip once
#include <array>
#include <cstdint>
#include <vector>

namespace tpustrategy {

using ChipCoordinate = std::array<std::int32_t, 3>;

// Serpentine over row pairs (x = 1..X-1 along row 2i, back along row 2i+1), then up column x = 0 from y = Y-1 to 1.
// With an odd Y the last row is not visited, as in TF.
std::vector<ChipCoordinate> open_ring_2d(std::int32_t x_size, std::int32_t y_size, std::int32_t z);

// A line when two sizes are 1; x-fastest plain order when any size > 1 is odd; otherwise (0,0,0) followed by 2D rings
// stacked along z (odd layers reversed) and a return path down (0,0,z).
std::vector<ChipCoordinate> ring3d(std::int32_t x_size, std::int32_t y_size, std::int32_t z_size);

}  // namespace tpustrategy
