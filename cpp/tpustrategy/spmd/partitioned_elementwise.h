#pragma once
// Partitioned elementwise ops. Each core applies the kernel to its shard. Operands of the output's shape
// with different shardings are first resharded to the sharding XLA's propagation picks for the result —
// the operand sharding with the most tiles (the "more specific" one), the first operand on a tie; an
// operand broadcast into the result is replicated and each core cuts the part its output tile needs.
#include "tpustrategy/ops/elementwise.h"
#include "tpustrategy/spmd/sharded_tensor.h"
#include "tpustrategy/spmd/spmd_context.h"

namespace tpustrategy::spmd {

ShardedTensor unary(SpmdContext& ctx, UnaryOp op, const ShardedTensor& x);
ShardedTensor binary(SpmdContext& ctx, BinaryOp op, const ShardedTensor& a, const ShardedTensor& b);
// The result sharding of an elementwise op over operands of the output's shape (XLA's propagation choice).
Sharding elementwise_sharding(const std::vector<const ShardedTensor*>& operands, const Shape& out_shape);
// `x` (broadcastable to `out_shape`) prepared as an operand whose core-k shard lines up with the tile of
// `out_sharding` on core k: resharded when it has the output's shape, else replicated and cut per core.
std::vector<Tensor> aligned_operand(SpmdContext& ctx, const ShardedTensor& x, const Shape& out_shape,
                                    const Sharding& out_sharding, const std::string& why);

}  // namespace tpustrategy::spmd
