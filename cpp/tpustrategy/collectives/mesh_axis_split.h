#pragma once
// Cartesian sub-communicators (MPI_Cart_sub's semantics, for any Communicator backend): a group's ranks
// laid out row-major on an N-D mesh (rank = sum over d of coordinate[d] * stride[d], the last axis
// fastest), split so that each subgroup holds the ranks that agree on every dropped axis, ranked
// row-major by their coordinates on the kept axes. E.g. a [2, 4] mesh with remain_dims {false, true}
// gives its 2 rows (4 ranks each); with {true, false} its 4 columns (2 ranks each).
//
// Built on Communicator::split (colour: the row-major index of the dropped coordinates; key: that of
// the kept ones), so the in-process backend and MPI (subgroups spanning processes get MPI
// communicators) both provide it; over MPI every process calls it with the same arguments.
#include <map>
#include <memory>
#include <span>

#include "tpustrategy/collectives/communicator.h"

namespace tpustrategy {

// Subgroups by colour, those holding at least one local rank. Throws InvalidArgumentError naming the
// value when the mesh's size is not comm.size(), a dimension is < 1, or the spans' lengths differ.
std::map<int, std::shared_ptr<Communicator>> split_mesh_axes(const Communicator& comm, std::span<const int> mesh_shape,
                                                             std::span<const bool> remain_dims);

// The colour (key of split_mesh_axes' result) of the subgroup that holds group rank `rank`.
int mesh_subgroup_color(std::span<const int> mesh_shape, std::span<const bool> remain_dims, int rank);

}  // namespace tpustrategy
