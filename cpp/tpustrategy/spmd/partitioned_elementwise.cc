#include "tpustrategy/spmd/partitioned_elementwise.h"

#include <fmt/format.h>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/broadcast.h"
#include "tpustrategy/spmd/partition_util.h"
#include "tpustrategy/spmd/tile_grid.h"

namespace tpustrategy::spmd {

Sharding elementwise_sharding(const std::vector<const ShardedTensor*>& operands, const Shape& out_shape) {
  const ShardedTensor* best = nullptr;
  for (const auto* x : operands) {
    if (x->shape() != out_shape || x->sharding().is_maximal()) continue;
    if (best == nullptr || x->sharding().num_tiles() > best->sharding().num_tiles()) best = x;
  }
  return best ? best->sharding() : Sharding::replicated();
}

std::vector<Tensor> aligned_operand(SpmdContext& ctx, const ShardedTensor& x, const Shape& out_shape,
                                    const Sharding& out_sharding, const std::string& why) {
  if (x.shape() == out_shape) return reshard(ctx, x, out_sharding, why).shards();
  const int offset_rank = static_cast<int>(out_shape.size() - x.shape().size());
  // The box of `x` (global coordinates) core k's output tile reads.
  auto needed = [&](int k) {
    const auto bounds = tile_bounds_for_device(out_shape, out_sharding, k);
    TileBounds need{std::vector<std::int64_t>(x.shape().size()), std::vector<std::int64_t>(x.shape().size())};
    for (std::size_t d = 0; d < x.shape().size(); ++d) {
      const auto od = d + static_cast<std::size_t>(offset_rank);
      const bool broadcast = x.shape()[d] == 1 && out_shape[od] != 1;
      need.offset[d] = broadcast ? 0 : bounds.offset[od];
      need.limit[d] = broadcast ? 1 : bounds.limit[od];
    }
    return need;
  };
  // Already in place when every core holds what its output tile reads (e.g. a keepdims reduction of the
  // same tensor); otherwise replicate the broadcast operand first.
  bool in_place = !x.sharding().is_maximal();
  for (int k = 0; in_place && k < ctx.num_cores(); ++k) {
    if (!out_sharding.holds_data(k)) continue;
    if (!x.sharding().holds_data(k)) {
      in_place = false;
      break;
    }
    const auto have = tile_bounds_for_device(x.shape(), x.sharding(), k);
    const auto need = needed(k);
    for (std::size_t d = 0; d < x.shape().size(); ++d)
      if (need.limit[d] > need.offset[d] && (need.offset[d] < have.offset[d] || need.limit[d] > have.limit[d]))
        in_place = false;
  }
  const ShardedTensor source =
      in_place ? x : reshard(ctx, x, Sharding::replicated(), why + ": broadcast operand replicated");
  return per_core(ctx, out_sharding, [&](int k) {
    const auto need = needed(k);
    const auto have = tile_bounds_for_device(x.shape(), source.sharding(), k);
    std::vector<std::int64_t> from(x.shape().size());
    for (std::size_t d = 0; d < from.size(); ++d)
      from[d] = need.limit[d] > need.offset[d] ? need.offset[d] - have.offset[d] : 0;
    const Shape extent = need.extent();
    if (extent == source.shards()[k].shape()) return source.shards()[k];
    return box(source.shards()[k], from, extent, ctx.device(k));
  });
}

ShardedTensor unary(SpmdContext& ctx, UnaryOp op, const ShardedTensor& x) {
  const Sharding sharding = normalized(x.sharding(), static_cast<int>(x.shape().size()), ctx.num_cores());
  auto shards = per_core(ctx, sharding, [&](int k) { return tpustrategy::unary(op, x.shards()[k]); });
  DType dtype = x.dtype();
  for (const auto& s : shards)
    if (s.valid()) dtype = s.dtype();
  ShardedTensor result(x.shape(), dtype, sharding, ctx.devices(), std::move(shards));
  record_op(ctx, std::string(op_name(op)), "elementwise: each core on its shard", result, shard_elements(result),
            local_bytes({&x}, result));
  return result;
}

ShardedTensor binary(SpmdContext& ctx, BinaryOp op, const ShardedTensor& a, const ShardedTensor& b) {
  const Shape out_shape = broadcast_shapes(a.shape(), b.shape(), "spmd::binary");
  const Sharding out_sharding =
      normalized(elementwise_sharding({&a, &b}, out_shape), static_cast<int>(out_shape.size()), ctx.num_cores());
  const std::string why = fmt::format("{} operand to the result sharding", op_name(op));
  const auto left = aligned_operand(ctx, a, out_shape, out_sharding, why);
  const auto right = aligned_operand(ctx, b, out_shape, out_sharding, why);
  auto shards = per_core(ctx, out_sharding, [&](int k) { return tpustrategy::binary(op, left[k], right[k]); });
  DType dtype = a.dtype();
  for (const auto& s : shards)
    if (s.valid()) dtype = s.dtype();
  ShardedTensor result(out_shape, dtype, out_sharding, ctx.devices(), std::move(shards));
  record_op(ctx, std::string(op_name(op)), "elementwise: each core on its shard", result, shard_elements(result),
            local_bytes({&a, &b}, result));
  return result;
}

}  // namespace tpustrategy::spmd
