#include "tpustrategy/tpu/ring_order.h"

#include <algorithm>

namespace tpustrategy {

std::vector<ChipCoordinate> open_ring_2d(std::int32_t x_size, std::int32_t y_size, std::int32_t z) {
  std::vector<ChipCoordinate> ring;
  for (std::int32_t i = 0; i < y_size / 2; ++i) {
    for (std::int32_t x = 1; x < x_size; ++x) ring.push_back({x, 2 * i, z});
    for (std::int32_t x = x_size - 1; x > 0; --x) ring.push_back({x, 2 * i + 1, z});
  }
  for (std::int32_t y = y_size - 1; y > 0; --y) ring.push_back({0, y, z});
  return ring;
}

std::vector<ChipCoordinate> ring3d(std::int32_t x_size, std::int32_t y_size, std::int32_t z_size) {
  std::vector<ChipCoordinate> ring;
  if (x_size == 1 && y_size == 1) {
    for (std::int32_t z = 0; z < z_size; ++z) ring.push_back({0, 0, z});
    return ring;
  }
  if (x_size == 1 && z_size == 1) {
    for (std::int32_t y = 0; y < y_size; ++y) ring.push_back({0, y, 0});
    return ring;
  }
  if (y_size == 1 && z_size == 1) {
    for (std::int32_t x = 0; x < x_size; ++x) ring.push_back({x, 0, 0});
    return ring;
  }
  const auto odd = [](std::int32_t size) { return size > 1 && size % 2 != 0; };
  if (odd(x_size) || odd(y_size) || odd(z_size)) {
    // TF does not try to build a ring here (real slices never have odd axes).
    for (std::int32_t z = 0; z < z_size; ++z) {
      for (std::int32_t y = 0; y < y_size; ++y) {
        for (std::int32_t x = 0; x < x_size; ++x) ring.push_back({x, y, z});
      }
    }
    return ring;
  }
  ring.push_back({0, 0, 0});
  if (z_size == 1) {
    const auto flat = open_ring_2d(x_size, y_size, 0);
    ring.insert(ring.end(), flat.begin(), flat.end());
    return ring;
  }
  if (y_size == 1) {  // the x-z plane: TF's 2D ring with its second axis read as z
    for (const auto& [x, z, y] : open_ring_2d(x_size, z_size, 0)) ring.push_back({x, y, z});
    return ring;
  }
  if (x_size == 1) {  // the y-z plane
    for (const auto& [y, z, x] : open_ring_2d(y_size, z_size, 0)) ring.push_back({x, y, z});
    return ring;
  }
  for (std::int32_t z = 0; z < z_size; ++z) {
    auto layer = open_ring_2d(x_size, y_size, z);
    if (z % 2 != 0) std::reverse(layer.begin(), layer.end());
    ring.insert(ring.end(), layer.begin(), layer.end());
  }
  for (std::int32_t z = z_size - 1; z > 0; --z) ring.push_back({0, 0, z});
  return ring;
}

}  // namespace tpustrategy
