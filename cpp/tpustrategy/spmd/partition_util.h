#pragma once
// Helpers shared by the partitioned ops: running a kernel once per logical core on that core, sharing one
// collective result between the cores of a group (one buffer, charged to every core like a real copy), the
// all-reduce over groups of partial results, and the per-core cost of a local op.
#include <functional>
#include <string>
#include <vector>

#include "tpustrategy/collectives/reduce_op.h"
#include "tpustrategy/spmd/reshard.h"

namespace tpustrategy::spmd {

// Shards of `sharding` for a tensor of `shape`: fn(core) runs with new tensors placed on that core, for each
// core that holds data.
std::vector<Tensor> per_core(SpmdContext& ctx, const Sharding& sharding, const std::function<Tensor(int)>& fn);
// `t`'s buffer seen from `device` (charged there too, no copy): a collective's one output held by every member.
Tensor shared_on(const Tensor& t, const DevicePtr& device);
// The box [offset, offset + extent) of `t`, copied onto `device`.
Tensor box(const Tensor& t, const std::vector<std::int64_t>& offset, const Shape& extent, const DevicePtr& device);
// All-reduces the per-core `partials` (same shape within a group) over `groups`; returns the per-core results.
std::vector<Tensor> all_reduce_groups(SpmdContext& ctx, const std::vector<Tensor>& partials,
                                      const std::vector<std::vector<int>>& groups, CollectiveOp op);
// Appends an all-reduce entry for `result` (whose shards are the reduced values).
void record_all_reduce(SpmdContext& ctx, const ShardedTensor& result, const Shape& operand_shape,
                       const std::vector<std::vector<int>>& groups, CollectiveOp op, const std::string& rule);
// One collective-permute of the per-core `blocks` (all of shape `edge`; an invalid block sends zeros) along
// (source, target) `pairs`, recorded with `rule` and `dim` (-1 for none); cores no pair targets receive zeros.
std::vector<Tensor> collective_permute_blocks(SpmdContext& ctx, const std::vector<Tensor>& blocks, DType dtype,
                                              const Shape& edge, const Sharding& sharding,
                                              const std::vector<std::pair<int, int>>& pairs, int dim,
                                              const std::string& rule);
// Per-core bytes read + written by a local op over `inputs` producing `output`.
std::vector<std::int64_t> local_bytes(const std::vector<const ShardedTensor*>& inputs, const ShardedTensor& output);
// Per-core element counts of `x`'s shards (the FLOPs of a one-flop-per-element op).
std::vector<std::int64_t> shard_elements(const ShardedTensor& x);

}  // namespace tpustrategy::spmd
