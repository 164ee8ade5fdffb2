#pragma once
// Partitioned reductions and the ops built on them. A reduction over tiled axes reduces each core's shard
// locally, then all-reduces the partial results once per tiled reduced axis, the minor axis first, over the
// groups of cores that differ only along it (XLA's plan); the reduced axes' tiles become copies.
// MEAN is a local sum, an all-reduce SUM and one division by the global count.
//
// softmax over a tiled axis: local max → all-reduce MAX, exp(x - max), local sum → all-reduce SUM, divide.
// Sparse softmax cross-entropy with the class axis tiled (vocabulary-parallel, as Megatron): the same two
// all-reduces plus one all-reduce SUM of the label logit, which only the core holding that class supplies.
#include <vector>

#include "tpustrategy/ops/reduce.h"
#include "tpustrategy/spmd/sharded_tensor.h"
#include "tpustrategy/spmd/spmd_context.h"

namespace tpustrategy::spmd {

// `axes` empty = every axis.
ShardedTensor reduce(SpmdContext& ctx, ReduceKind kind, const ShardedTensor& x, std::vector<std::int64_t> axes = {},
                     bool keepdims = false);
ShardedTensor softmax(SpmdContext& ctx, const ShardedTensor& logits, std::int64_t axis = -1);
// Per-example loss [B] of logits [B, C] (float) and int labels [B]: log(sum(exp(logits))) - logits[label].
ShardedTensor sparse_softmax_cross_entropy(SpmdContext& ctx, const ShardedTensor& logits, const ShardedTensor& labels);

}  // namespace tpustrategy::spmd
