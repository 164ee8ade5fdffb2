#pragma once
// The reshard engine: moves a ShardedTensor from one sharding to another with the collectives XLA's SPMD
// partitioner inserts (PartitionedHlo::Reshard), over subgroups of the replica's Communicator, moving real
// data. In the order they are tried:
//   same sharding                                   nothing
//   maximal source                                  broadcast from its core, then as replicated
//   every target tile inside the core's source tile local slice (replicated → tiled, partial → finer)
//   same tile grid, other device order              collective-permute
//   the sharded dimension moves (n tiles a → b)     all-to-all over the groups along a (then a permute if the
//                                                   device order differs)
//   a factor f of a's tiles moves to b              all-to-all over the minor sub-axis of f cores of a, then a
//                                                   permute if the device order differs ([a,b] → [b,a])
//   dimensions tiled finer than the target          all-gather per dimension, last dimension first, over the
//                                                   groups along it (tiled → replicated, → partially tiled),
//                                                   then a local slice / permute
//   anything else                                   full rematerialisation (gather everything, slice) with a
//                                                   note in the record, as XLA's "involuntary full
//                                                   rematerialization" log line
// Every step appends an entry to the context's SpmdRecord naming the rule.
#include <string>

#include "tpustrategy/spmd/sharded_tensor.h"
#include "tpustrategy/spmd/spmd_context.h"

namespace tpustrategy::spmd {

ShardedTensor reshard(SpmdContext& ctx, const ShardedTensor& x, const Sharding& target,
                      const std::string& why = "reshard");

// The single steps, for the partitioned ops.
// Each holder of `target` cuts its tile out of the tile it already holds (ValueError when one does not).
ShardedTensor local_slice(SpmdContext& ctx, const ShardedTensor& x, const Sharding& target, const std::string& why);
// All-gather along tensor dimension `dim` over the groups of cores that differ only along it.
ShardedTensor all_gather_dim(SpmdContext& ctx, const ShardedTensor& x, int dim, const std::string& why);
// The n tiles along `from_dim` become n tiles along `to_dim` (which must be untiled), by one all-to-all. With
// `factor` > 0 only the minor sub-axis of that many tiles moves (from_dim keeps dims / factor tiles, to_dim's
// tiles are split factor ways), by one all-to-all over the groups of `factor` cores along that sub-axis.
ShardedTensor all_to_all_dim(SpmdContext& ctx, const ShardedTensor& x, int from_dim, int to_dim, const std::string& why,
                             std::int64_t factor = 0);
// Same tile grid, other devices: one collective-permute over all cores.
ShardedTensor permute_to(SpmdContext& ctx, const ShardedTensor& x, const Sharding& target, const std::string& why);
// Whether every core holding a tile of `target` holds a superset of it under `source`.
bool contained_locally(const Shape& shape, const Sharding& source, const Sharding& target, int num_cores);

// Record helpers shared by the partitioned ops.
void record_op(SpmdContext& ctx, const std::string& name, const std::string& rule, const ShardedTensor& result,
               const std::vector<std::int64_t>& flops, const std::vector<std::int64_t>& bytes);
SpmdEntry collective_entry(SpmdContext& ctx, const std::string& name, const std::string& rule,
                           const ShardedTensor& result, const Shape& operand_shape,
                           std::vector<std::vector<int>> groups, int dimension);
// `t` cut into n equal chunks along `dim`, laid out one after another ([n, chunk...]) on `device`: the send
// buffer of an all-to-all or a reduce-scatter along that dimension.
Tensor pack_chunks(const Tensor& t, int dim, std::int64_t n, const DevicePtr& device);
// Zero-padded copy of core k's shard at the full tile shape (the shard itself when it is full).
Tensor padded_tile(const ShardedTensor& x, int core, const Shape& tile);

}  // namespace tpustrategy::spmd
