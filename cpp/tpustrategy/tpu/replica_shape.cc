#include "tpustrategy/tpu/replica_shape.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "tpustrategy/core/errors.h"

namespace tpustrategy {

std::array<std::int64_t, 4> replica_shape(const std::array<std::int64_t, 4>& replica_counts,
                                          std::int64_t num_replicas) {
  constexpr int kRank = 4;
  std::array<std::int64_t, 4> shape{0, 0, 0, 0};
  for (std::int64_t count : replica_counts) {
    if (count < 1) {
      fail<ValueError>("replica_shape", "replica counts must be positive; got [{}]", fmt::join(replica_counts, " "));
    }
  }
  if (num_replicas <= 0) return shape;
  // Sort key (count, (axis + 1) mod 4): the core axis (3) sorts as 0, before x, y, z.
  std::array<std::pair<std::int64_t, int>, kRank> order;
  for (int axis = 0; axis < kRank; ++axis) order[axis] = {replica_counts[axis], (axis + 1) % kRank};
  std::sort(order.begin(), order.end());
  std::int64_t remaining = num_replicas;
  int remaining_dims = kRank;
  for (const auto& [count, key] : order) {
    const int axis = (key + kRank - 1) % kRank;
    const double root = std::pow(static_cast<double>(remaining), 1.0 / remaining_dims);
    const auto target = static_cast<std::int64_t>(std::ceil(root));
    shape[axis] = std::min(target, count);
    remaining = (remaining + shape[axis] - 1) / shape[axis];
    --remaining_dims;
  }
  if (remaining != 1) {
    fail<InternalError>("replica_shape", "could not place {} replicas over replica counts [{}]", num_replicas,
                        fmt::join(replica_counts, " "));
  }
  return shape;
}

}  // namespace tpustrategy
