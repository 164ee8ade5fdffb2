#pragma once
// Cross-replica collective kernels over raw buffers. Each call receives every participant's buffer at
// once (participant i = position i of the group), so no barrier is needed inside: the Rendezvous that
// gathers the buffers is separate (runtime/rendezvous.h). The kernels know nothing of tensors; `count`
// is in elements of `dtype`, and buffers are dense and suitably aligned for their element type.
//
// Work is blocked in cache-sized pieces; buffers of a few dozen KiB run inline on the caller, larger
// ones are split over the global worker pool. Reductions read every input byte once and write every
// output byte once (up to 8 inputs in one streaming pass; outputs of 4 MiB and more with non-temporal
// stores). float16 / bfloat16 accumulate in float32 and round once at the end.
//
// Aliasing: all_reduce's output may be exactly one of its inputs (in place); reduce_scatter's output j
// may be exactly participant j's chunk j. Otherwise outputs must not overlap inputs.
//
// Errors (InvalidArgumentError, thrown before any work starts): no participants, negative counts,
// null buffers for a non-empty payload, wrong number of outputs, counts not divisible by the group
// size, bad permutation pairs, MEAN over bool.
#include <cstdint>
#include <span>
#include <utility>

#include "tpustrategy/collectives/reduce_op.h"
#include "tpustrategy/core/dtype.h"

namespace tpustrategy {

// output[k] = op over i of inputs[i][k], for k < count. One shared output: a mirrored result is stored once.
// MEAN is the sum divided by the group size (integers: C++ / TF "Div" semantics, truncating toward
// zero). Integer SUM / PROD wrap around on overflow like TF. bool: SUM / MAX = logical or,
// PROD / MIN = logical and, MEAN is an InvalidArgumentError (as in TF, whose Mean has no bool kernel).
void all_reduce(DType dtype, std::span<const void* const> inputs, std::int64_t count, CollectiveOp op, void* output);

// output = concat(inputs[0][0:count_per_input], inputs[1][...], ...) in participant order.
void all_gather(DType dtype, std::span<const void* const> inputs, std::int64_t count_per_input, void* output);

// With c = count / n: outputs[j][k] = op over i of inputs[i][j*c + k], for k < c.
// count must be divisible by n = inputs.size().
void reduce_scatter(DType dtype, std::span<const void* const> inputs, std::int64_t count, CollectiveOp op,
                    std::span<void* const> outputs);

// Copies `source` into every output (an output equal to `source` is left as is).
void broadcast(DType dtype, const void* source, std::int64_t count, std::span<void* const> outputs);

// With c = count / n: outputs[j][i*c : (i+1)*c] = inputs[i][j*c : (j+1)*c].
// count must be divisible by n = inputs.size() == outputs.size().
void all_to_all(DType dtype, std::span<const void* const> inputs, std::int64_t count, std::span<void* const> outputs);

// For each (source, target) pair: outputs[target] = inputs[source]; outputs that no pair targets are
// zero-filled (XLA CollectivePermute semantics). Indices are participant positions; a source or a
// target appearing twice, or out of range, is an InvalidArgumentError.
void collective_permute(DType dtype, std::span<const void* const> inputs, std::int64_t count,
                        std::span<const std::pair<int, int>> pairs, std::span<void* const> outputs);

}  // namespace tpustrategy
