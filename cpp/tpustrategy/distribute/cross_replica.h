#pragma once
// Tensor-level cross-replica functions: every participant's Tensor in, one Tensor per destination device
// out. They validate the participants (same dtype and shape, naming the first replica that differs) before
// any work, then run the collective through a Communicator (collectives/communicator.h): the given one,
// whose participants are the inputs in order, or the shared in-process group of inputs.size().
//
// Memory: an all-reduced or all-gathered result is computed once into a buffer charged to no device;
// each destination gets a Tensor that views that buffer and is charged to its own device, so dropping one
// destination's result releases exactly that device's HBM. Tensors are immutable, so sharing is safe, and
// each core is charged as on a real slice, where every core holds its own copy. The shared buffer lives as
// long as any destination's tensor. reduce_scatter results are separate tensors, one per destination.
#include <span>
#include <vector>

#include "tpustrategy/collectives/communicator.h"
#include "tpustrategy/collectives/reduce_op.h"
#include "tpustrategy/core/tensor.h"

namespace tpustrategy {

// Throws InvalidArgumentError "[where] replica i has ... but replica 0 has ..." unless all inputs share
// dtype and shape; an empty input list or an invalid (default-constructed) tensor is one too.
void check_same_dtype_and_shape(const char* where, std::span<const Tensor> inputs);

// One tensor per destination, all viewing value's buffer, each charged to its destination; the first
// destination `value` already lives on gets `value` itself (charged once, not twice).
std::vector<Tensor> share_across(const Tensor& value, std::span<const DevicePtr> destinations);

// Element-wise `op` over the inputs (equal dtype and shape), delivered to every destination.
std::vector<Tensor> all_reduce_tensors(std::span<const Tensor> inputs, CollectiveOp op,
                                       std::span<const DevicePtr> destinations);
std::vector<Tensor> all_reduce_tensors(Communicator& comm, std::span<const Tensor> inputs, CollectiveOp op,
                                       std::span<const DevicePtr> destinations);

// Concatenation of the inputs along `axis` in participant order. Ranks and dtypes must match, and every
// dimension but `axis` (sizes along `axis` may differ, as MirroredStrategy allows). Rank 0 is an error.
std::vector<Tensor> all_gather_tensors(std::span<const Tensor> inputs, std::int64_t axis,
                                       std::span<const DevicePtr> destinations);
std::vector<Tensor> all_gather_tensors(Communicator& comm, std::span<const Tensor> inputs, std::int64_t axis,
                                       std::span<const DevicePtr> destinations);

// The participant of group rank r receives op over every participant's r-th slice along axis 0 (dim 0
// divisible by comm.size()); local participant j's piece is placed on destinations[j].
std::vector<Tensor> reduce_scatter_tensors(std::span<const Tensor> inputs, CollectiveOp op,
                                           std::span<const DevicePtr> destinations);
std::vector<Tensor> reduce_scatter_tensors(Communicator& comm, std::span<const Tensor> inputs, CollectiveOp op,
                                           std::span<const DevicePtr> destinations);

}  // namespace tpustrategy
