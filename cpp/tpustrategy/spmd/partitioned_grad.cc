#include "tpustrategy/spmd/partitioned_grad.h"

#include <algorithm>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/cast.h"
#include "tpustrategy/ops/creation.h"
#include "tpustrategy/ops/scatter.h"
#include "tpustrategy/ops/shape_ops.h"
#include "tpustrategy/spmd/partition_util.h"
#include "tpustrategy/spmd/partitioned_dot.h"
#include "tpustrategy/spmd/partitioned_elementwise.h"
#include "tpustrategy/spmd/partitioned_reduce.h"
#include "tpustrategy/spmd/partitioned_shape.h"
#include "tpustrategy/spmd/tile_grid.h"

namespace tpustrategy::spmd {

namespace {

std::vector<std::int64_t> swap_last_two(int rank) {
  std::vector<std::int64_t> perm(static_cast<std::size_t>(rank));
  for (int i = 0; i < rank; ++i) perm[i] = i;
  std::swap(perm[rank - 1], perm[rank - 2]);
  return perm;
}

}  // namespace

MatmulGrads matmul_grad(SpmdContext& ctx, const ShardedTensor& a, const ShardedTensor& b, const ShardedTensor& dy,
                        MatmulGradsWanted wanted) {
  const int rank = static_cast<int>(a.shape().size());
  const auto perm = swap_last_two(rank);
  // The gradient of each operand is asked for in that operand's sharding (XLA's backward propagation
  // gives the parameter gradient its parameter's sharding), which picks reduce-scatter where it applies.
  MatmulGrads out;
  if (wanted.da) out.da = matmul(ctx, dy, transpose(ctx, b, perm), a.sharding());
  if (wanted.db) out.db = matmul(ctx, transpose(ctx, a, perm), dy, b.sharding());
  return out;
}

ShardedTensor unary_grad(SpmdContext& ctx, UnaryOp op, const ShardedTensor& x, const ShardedTensor& dy) {
  const ShardedTensor g = reshard(ctx, dy, x.sharding(), "gradient to the operand's sharding");
  auto shards = per_core(ctx, x.sharding(), [&](int k) {
    const Tensor& xs = x.shards()[k];
    const Tensor& gs = g.shards()[k];
    switch (op) {
      case UnaryOp::kRelu:
        return where(greater(xs, cast(Tensor::scalar<double>(0.0), xs.dtype())), gs, zeros_like(gs));
      case UnaryOp::kTanh: {
        const Tensor t = tanh(xs);
        return multiply(gs, subtract(ones_like(t), multiply(t, t)));
      }
      case UnaryOp::kExp:
        return multiply(gs, exp(xs));
      case UnaryOp::kNegative:
        return negative(gs);
      case UnaryOp::kSquare:
        return multiply(gs, multiply(xs, cast(Tensor::scalar<double>(2.0), xs.dtype())));
      default:
        fail<UnimplementedError>("spmd::unary_grad", "no partitioned gradient for {}", op_name(op));
    }
  });
  ShardedTensor result(x.shape(), x.dtype(), x.sharding(), ctx.devices(), std::move(shards));
  record_op(ctx, std::string(op_name(op)) + "_grad", "elementwise gradient: local", result, shard_elements(result),
            local_bytes({&x, &g}, result));
  return result;
}

std::pair<ShardedTensor, ShardedTensor> binary_grad(SpmdContext& ctx, BinaryOp op, const ShardedTensor& a,
                                                    const ShardedTensor& b, const ShardedTensor& dy) {
  if (a.shape() != dy.shape() || b.shape() != dy.shape()) {
    fail<UnimplementedError>("spmd::binary_grad", "partitioned gradients of broadcasting operands are not built");
  }
  switch (op) {
    case BinaryOp::kAdd:
      return {reshard(ctx, dy, a.sharding(), "gradient"), reshard(ctx, dy, b.sharding(), "gradient")};
    case BinaryOp::kSubtract:
      return {reshard(ctx, dy, a.sharding(), "gradient"),
              unary(ctx, UnaryOp::kNegative, reshard(ctx, dy, b.sharding(), "gradient"))};
    case BinaryOp::kMultiply:
      return {reshard(ctx, binary(ctx, BinaryOp::kMultiply, dy, b), a.sharding(), "gradient"),
              reshard(ctx, binary(ctx, BinaryOp::kMultiply, dy, a), b.sharding(), "gradient")};
    default:
      fail<UnimplementedError>("spmd::binary_grad", "no partitioned gradient for {}", op_name(op));
  }
}

ShardedTensor reduce_grad(SpmdContext& ctx, ReduceKind kind, const ShardedTensor& x, std::vector<std::int64_t> axes,
                          const ShardedTensor& dy) {
  const int rank = static_cast<int>(x.shape().size());
  if (axes.empty())
    for (int d = 0; d < rank; ++d) axes.push_back(d);
  for (auto& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  // dy with the reduced axes put back as size 1, then broadcast locally into x's tiles.
  Shape kept = x.shape();
  std::int64_t count = 1;
  for (auto a : axes) count *= kept[a], kept[a] = 1;
  ShardedTensor g = reshape(ctx, dy, kept);
  if (kind == ReduceKind::kMean) {
    auto scale = ShardedTensor::shard(cast(Tensor::scalar<double>(1.0 / static_cast<double>(count)), x.dtype()),
                                      Sharding::replicated(), ctx.devices());
    g = binary(ctx, BinaryOp::kMultiply, g, scale);
  } else if (kind != ReduceKind::kSum) {
    fail<UnimplementedError>("spmd::reduce_grad", "only reduce_sum and reduce_mean have partitioned gradients");
  }
  const auto parts = aligned_operand(ctx, g, x.shape(), x.sharding(), "reduction gradient");
  auto shards = per_core(ctx, x.sharding(), [&](int k) { return broadcast_to(parts[k], x.shards()[k].shape()); });
  ShardedTensor result(x.shape(), x.dtype(), x.sharding(), ctx.devices(), std::move(shards));
  record_op(ctx, "broadcast", "reduction gradient: local broadcast over the reduced axes", result, {},
            local_bytes({&g}, result));
  return result;
}

ShardedTensor sparse_softmax_cross_entropy_grad(SpmdContext& ctx, const ShardedTensor& logits,
                                                const ShardedTensor& labels, const ShardedTensor& dloss) {
  const ShardedTensor p = softmax(ctx, logits, -1);
  const int cores = ctx.num_cores();
  const ShardedTensor lab = reshard(ctx, labels, Sharding::replicated(), "cross-entropy gradient labels");
  auto onehot = per_core(ctx, p.sharding(), [&](int k) {
    const auto bounds = tile_bounds_for_device(p.shape(), p.sharding(), k);
    const Tensor rows = box(lab.shards()[k], {bounds.offset[0]}, {bounds.limit[0] - bounds.offset[0]}, ctx.device(k));
    const Tensor local = subtract(cast(rows, DType::kInt64), Tensor::scalar<std::int64_t>(bounds.offset[1]));
    return one_hot(local, bounds.limit[1] - bounds.offset[1], cast(Tensor::scalar<double>(1.0), p.dtype()),
                   cast(Tensor::scalar<double>(0.0), p.dtype()), -1);
  });
  ShardedTensor target(p.shape(), p.dtype(), p.sharding(), ctx.devices(), std::move(onehot));
  (void)cores;
  const ShardedTensor diff = binary(ctx, BinaryOp::kSubtract, p, target);
  const ShardedTensor scale = reshape(ctx, dloss, {dloss.shape()[0], 1});
  return binary(ctx, BinaryOp::kMultiply, diff, scale);
}

ShardedTensor slice_grad(SpmdContext& ctx, const ShardedTensor& x_in, const std::vector<std::int64_t>& begin,
                         const ShardedTensor& dy_in) {
  const int rank = static_cast<int>(x_in.shape().size());
  if (static_cast<int>(begin.size()) != rank || dy_in.shape().size() != x_in.shape().size()) {
    fail<InvalidArgumentError>("spmd::slice_grad", "begin needs {} entries and dy rank {}, got {} and {}", rank, rank,
                               begin.size(), dy_in.shape().size());
  }
  const Sharding source = x_in.sharding().is_maximal() ? Sharding::replicated() : x_in.sharding();
  TileGrid grid = TileGrid::from(source, rank, ctx.num_cores());
  for (int d = 0; d < rank; ++d) {
    if (begin[d] < 0 || begin[d] + dy_in.shape()[d] > x_in.shape()[d]) {
      fail<InvalidArgumentError>("spmd::slice_grad", "slice [{}, {}) of dimension {} (size {}) is out of range",
                                 begin[d], begin[d] + dy_in.shape()[d], d, x_in.shape()[d]);
    }
    if (dy_in.shape()[d] != x_in.shape()[d] && grid.dims[d] > 1) grid = merge_into_replication(grid, d);
  }
  const Sharding sharding = grid.to_sharding(ctx.num_cores());
  const ShardedTensor dy = reshard(ctx, dy_in, sharding, "slice gradient: dy to the slice's sharding");
  auto shards = per_core(ctx, sharding, [&](int k) {
    const auto bounds = tile_bounds_for_device(x_in.shape(), sharding, k);
    const auto out_bounds = tile_bounds_for_device(dy.shape(), sharding, k);
    std::vector<std::int64_t> paddings(2 * x_in.shape().size(), 0);
    for (std::size_t d = 0; d < x_in.shape().size(); ++d) {
      if (dy.shape()[d] == x_in.shape()[d]) continue;  // untouched axis: same tile on both sides
      paddings[2 * d] = begin[d] + out_bounds.offset[d] - bounds.offset[d];
      paddings[2 * d + 1] = (bounds.limit[d] - bounds.offset[d]) - paddings[2 * d] - dy.shards()[k].shape()[d];
    }
    return pad(dy.shards()[k], paddings);
  });
  ShardedTensor padded(x_in.shape(), x_in.dtype(), sharding, ctx.devices(), std::move(shards));
  record_op(ctx, "pad", "slice gradient: local pad of each tile (sliced axes untiled)", padded, {},
            local_bytes({&dy}, padded));
  return reshard(ctx, padded, x_in.sharding(), "slice gradient to the operand's sharding");
}

ShardedTensor gather_table_grad(SpmdContext& ctx, const ShardedTensor& table_in, const ShardedTensor& ids_in,
                                const ShardedTensor& dy_in) {
  const ShardedTensor table =
      table_in.sharding().is_maximal() ? reshard(ctx, table_in, Sharding::replicated(), "gather gradient") : table_in;
  if (table.shape().size() != 2) {
    fail<InvalidArgumentError>("spmd::gather_table_grad", "the table must be [vocab, dim], got {}",
                               shape_to_string(table.shape()));
  }
  Shape out_shape = ids_in.shape();
  out_shape.push_back(table.shape()[1]);
  if (dy_in.shape() != out_shape) {
    fail<InvalidArgumentError>("spmd::gather_table_grad", "dy must be {}, got {}", shape_to_string(out_shape),
                               shape_to_string(dy_in.shape()));
  }
  const int cores = ctx.num_cores();
  const TileGrid tg = TileGrid::from(table.sharding(), 2, cores);
  // The forward's output sharding: ids untiled, the embedding axis tiled as the table's.
  TileGrid og = remove_dim(merge_into_replication(tg, 0), 0);
  for (std::size_t d = 0; d < ids_in.shape().size(); ++d) og = insert_dim(og, 0);
  const ShardedTensor dy = reshard(ctx, dy_in, og.to_sharding(cores), "gather gradient: dy to the lookup's sharding");
  const ShardedTensor ids = reshard(ctx, ids_in, Sharding::replicated(), "gather gradient: ids replicated");
  const std::int64_t count = num_elements(ids.shape());
  auto shards = per_core(ctx, table.sharding(), [&](int k) {
    const auto bounds = tile_bounds_for_device(table.shape(), table.sharding(), k);
    const std::int64_t rows = bounds.limit[0] - bounds.offset[0];
    const Tensor flat = reshape(cast(ids.shards()[k], DType::kInt64), {count});
    const Tensor local = subtract(flat, Tensor::scalar<std::int64_t>(bounds.offset[0]));
    const Tensor in_range = logical_and(greater_equal(local, Tensor::scalar<std::int64_t>(0)),
                                        less(local, Tensor::scalar<std::int64_t>(rows)));
    const Tensor segment = where(in_range, local, Tensor::scalar<std::int64_t>(-1));  // -1 is dropped
    const Tensor rows_of_dy = reshape(dy.shards()[k], {count, bounds.limit[1] - bounds.offset[1]});
    return unsorted_segment_sum(rows_of_dy, segment, rows);
  });
  ShardedTensor result(table.shape(), table.dtype(), table.sharding(), ctx.devices(), std::move(shards));
  record_op(ctx, "scatter",
            tg.dims[0] > 1 ? "gather gradient: each core scatter-adds the rows of its vocabulary range (local)"
                           : "gather gradient: local scatter-add (vocabulary untiled)",
            result, shard_elements(dy), local_bytes({&dy}, result));
  return table_in.sharding().is_maximal() ? reshard(ctx, result, table_in.sharding(), "gather gradient") : result;
}

}  // namespace tpustrategy::spmd
