#pragma once
// Windowed einsum: XLA's dot handler loop for a dot whose output keeps one operand's tiling while the other
// operand would have to be all-gathered, when that other operand is large. XLA (dot_handler.cc) takes it when
// the output is tiled over all P cores exactly as the kept operand (its non-contracting dimension over every
// core, nothing else tiled), the other operand is tiled over all P cores on its non-contracting or its
// contracting dimension, and the other operand's global size is at least
// SpmdPartitionerOptions::threshold_for_windowed_einsum_mib (256 MiB by default; TPU sets it from libtpu flags
// we cannot see, so it is SpmdContext::windowed_einsum_threshold_bytes here). Instead of one all-gather the
// loop runs P iterations: each core multiplies its kept tile by the window of the other operand it holds now
// (writing those output columns, or accumulating that contracting slice), then passes the window on around a
// ring of collective-permutes — P − 1 permutes of one tile each, never holding the gathered operand (the HBM
// saving XLA takes the loop for). Same result as the all-gather plan, bitwise for the non-contracting case.
#include <optional>

#include "tpustrategy/spmd/sharded_tensor.h"
#include "tpustrategy/spmd/spmd_context.h"

namespace tpustrategy::spmd {

// y = a @ b (rank 2) as the windowed loop when the case above applies; nullopt otherwise (nothing recorded).
std::optional<ShardedTensor> windowed_matmul(SpmdContext& ctx, const ShardedTensor& a, const ShardedTensor& b);

}  // namespace tpustrategy::spmd
