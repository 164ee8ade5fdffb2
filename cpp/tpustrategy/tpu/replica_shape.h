#pragma once
// How many replicas DeviceAssignment::build lays out along each mesh axis (SEMANTICS.md §3.2 a).
//
// API (for bindings):
//   replica_shape(replica_counts [x,y,z,core], num_replicas) -> [x,y,z,core]
//
// Axes are visited from the most constrained (fewest replica slots) up, ties broken core axis first, then x, y, z, and
// each takes about the remaining_dims-th root of the replicas still to place: ceil(pow(remaining, 1.0 /
// remaining_dims)) in IEEE double, exactly as TF's Python computes it (so 64 replicas over 3 axes take 4, because
// pow(64, 1/3) is 3.9999999999999996). num_replicas == 0 gives all zeros. Throws InternalError if the greedy choice
// leaves replicas over (TF asserts; it cannot happen when num_replicas <= prod(replica_counts)).
#include <array>
#include <cstdint>

namespace tpustrategy {

std::array<std::int64_t, 4> replica_shape(const std::array<std::int64_t, 4>& replica_counts, std::int64_t num_replicas);

}  // namespace tpustrategy
