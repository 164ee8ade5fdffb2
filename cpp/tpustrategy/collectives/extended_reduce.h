#pragma once
// Cross-replica reductions for the extended dtypes (uint8 … uint64, int8, int16, complex64),
// kept out of kernels.cc so its vectorised reducer is not instantiated for seven more types.
// Same semantics as the core integer path: SUM / PROD wrap, MEAN divides the wrapped sum
// (truncating), MAX / MIN compare; complex64 has SUM / MEAN / PROD only (TF has no ordering for it).
#include <cstdint>
#include <span>

#include "tpustrategy/collectives/reduce_op.h"
#include "tpustrategy/core/dtype.h"

namespace tpustrategy::detail {

// Segment j reads inputs at [j * seg_count, (j + 1) * seg_count) and writes outputs[j].
void reduce_extended_segments(const char* where, DType dtype, CollectiveOp op, std::span<const void* const> inputs,
                              std::int64_t seg_count, std::span<void* const> outputs);

}  // namespace tpustrategy::detail
