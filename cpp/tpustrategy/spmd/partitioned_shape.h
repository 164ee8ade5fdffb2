#pragma once
// Partitioned data-movement ops.
//   transpose   local; the tile grid is transposed with the tensor.
//   reshape     local when every tiled dimension survives as the major factor of one output dimension (or
//               is split with its tiles on the major factor); otherwise the tiled dimensions are gathered first.
//   concat      local along an untiled axis (operands resharded to the first's sharding); a tiled axis is
//               gathered first.
//   slice       local along untiled axes; tiled sliced axes are gathered first.
//   gather      embedding lookup table[ids] along axis 0: with the vocabulary axis tiled each core looks up
//               the ids in its range (others masked to zero) and the results are all-reduced (XLA's
//               vocabulary-parallel gather); an untiled vocabulary is a local lookup.
#include <vector>

#include "tpustrategy/spmd/sharded_tensor.h"
#include "tpustrategy/spmd/spmd_context.h"

namespace tpustrategy::spmd {

ShardedTensor transpose(SpmdContext& ctx, const ShardedTensor& x, std::vector<std::int64_t> perm);
ShardedTensor reshape(SpmdContext& ctx, const ShardedTensor& x, const Shape& shape);
ShardedTensor concat(SpmdContext& ctx, const std::vector<ShardedTensor>& values, std::int64_t axis);
ShardedTensor slice(SpmdContext& ctx, const ShardedTensor& x, const std::vector<std::int64_t>& begin,
                    const std::vector<std::int64_t>& size);
ShardedTensor gather(SpmdContext& ctx, const ShardedTensor& table, const ShardedTensor& ids);

}  // namespace tpustrategy::spmd
