#include "tpustrategy/spmd/partitioned_reduce.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/cast.h"
#include "tpustrategy/ops/creation.h"
#include "tpustrategy/ops/elementwise.h"
#include "tpustrategy/ops/indexing.h"
#include "tpustrategy/ops/nn.h"
#include "tpustrategy/ops/shape_ops.h"
#include "tpustrategy/spmd/partition_util.h"
#include "tpustrategy/spmd/partitioned_elementwise.h"
#include "tpustrategy/spmd/tile_grid.h"

namespace tpustrategy::spmd {

namespace {

CollectiveOp combine_op(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::kSum:
    case ReduceKind::kMean:
      return CollectiveOp::kSum;
    case ReduceKind::kMax:
    case ReduceKind::kAny:
      return CollectiveOp::kMax;
    case ReduceKind::kMin:
    case ReduceKind::kAll:
      return CollectiveOp::kMin;
    case ReduceKind::kProd:
      return CollectiveOp::kProd;
  }
  return CollectiveOp::kSum;
}

const char* reduce_name(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::kSum:
      return "reduce_sum";
    case ReduceKind::kMean:
      return "reduce_mean";
    case ReduceKind::kMax:
      return "reduce_max";
    case ReduceKind::kMin:
      return "reduce_min";
    case ReduceKind::kProd:
      return "reduce_prod";
    case ReduceKind::kAny:
      return "reduce_any";
    case ReduceKind::kAll:
      return "reduce_all";
  }
  return "reduce";
}

std::int64_t normalize_axis(std::int64_t axis, int rank, const char* where) {
  if (axis < -rank || axis >= rank)
    fail<InvalidArgumentError>(where, "axis {} is out of range for rank {}", axis, rank);
  return axis < 0 ? axis + rank : axis;
}

}  // namespace

ShardedTensor reduce(SpmdContext& ctx, ReduceKind kind, const ShardedTensor& x, std::vector<std::int64_t> axes,
                     bool keepdims) {
  const int rank = static_cast<int>(x.shape().size());
  if (axes.empty())
    for (int d = 0; d < rank; ++d) axes.push_back(d);
  for (auto& a : axes) a = normalize_axis(a, rank, "spmd::reduce");
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  ShardedTensor in = x;
  if (x.sharding().is_maximal()) in = reshard(ctx, x, Sharding::replicated(), "reduce of a maximal operand");
  TileGrid grid = TileGrid::from(in.sharding(), rank, ctx.num_cores());
  std::vector<int> tiled_axes;
  for (auto a : axes)
    if (grid.dims[a] > 1) tiled_axes.push_back(static_cast<int>(a));
  const auto groups = groups_along(grid, tiled_axes);
  TileGrid out_grid = grid;
  for (int a : tiled_axes) out_grid = merge_into_replication(out_grid, a);
  if (!keepdims)
    for (auto it = axes.rbegin(); it != axes.rend(); ++it) out_grid = remove_dim(out_grid, static_cast<int>(*it));
  const Sharding out_sharding = out_grid.to_sharding(ctx.num_cores());
  Shape out_shape;
  for (int d = 0; d < rank; ++d) {
    const bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
    if (!reduced)
      out_shape.push_back(x.shape()[d]);
    else if (keepdims)
      out_shape.push_back(1);
  }
  const ReduceKind local_kind = kind == ReduceKind::kMean && !tiled_axes.empty() ? ReduceKind::kSum : kind;
  auto partials = per_core(ctx, in.sharding(),
                           [&](int k) { return tpustrategy::reduce(local_kind, in.shards()[k], axes, keepdims); });
  // Local results on every holder of the input; the output keeps them where out_sharding places data.
  std::vector<Tensor> local(partials.size());
  for (int k = 0; k < ctx.num_cores(); ++k)
    if (out_sharding.holds_data(k)) local[k] = partials[k];
  ShardedTensor partial_result(out_shape, local_kind == kind ? partials[groups[0][0]].dtype() : x.dtype(), out_sharding,
                               ctx.devices(), local);
  std::vector<std::int64_t> flops = shard_elements(in);
  record_op(ctx, reduce_name(local_kind),
            tiled_axes.empty()
                ? "reduction over untiled axes: local"
                : fmt::format("reduction over tiled axes [{}]: local partial result", fmt::join(tiled_axes, ",")),
            partial_result, flops, local_bytes({&in}, partial_result));
  if (tiled_axes.empty()) return partial_result;
  // One all-reduce per tiled reduced axis, the minor axis first (XLA's order), each over the groups of cores
  // that differ only along that axis.
  std::vector<Tensor> reduced = partials;
  for (auto it = tiled_axes.rbegin(); it != tiled_axes.rend(); ++it) {
    const auto axis_groups = groups_along(grid, *it);
    reduced = all_reduce_groups(ctx, reduced, axis_groups, combine_op(kind));
    std::vector<Tensor> held(reduced.size());
    for (int k = 0; k < ctx.num_cores(); ++k)
      if (out_sharding.holds_data(k)) held[k] = reduced[k];
    const DType step_dtype = reduced[axis_groups[0][0]].dtype();
    ShardedTensor step(out_shape, step_dtype, out_sharding, ctx.devices(), std::move(held));
    record_all_reduce(ctx, step, reduced[axis_groups[0][0]].shape(), axis_groups, combine_op(kind),
                      fmt::format("{} over tiled axis {}: all-reduce of the partial results over its groups",
                                  reduce_name(kind), *it));
  }
  if (kind == ReduceKind::kMean) {
    std::int64_t count = 1;
    for (auto a : axes) count *= x.shape()[a];
    for (int k = 0; k < ctx.num_cores(); ++k) {
      if (!reduced[k].valid()) continue;
      ScopedDevice on(ctx.device(k));
      const Tensor n = cast(Tensor::scalar<double>(static_cast<double>(count)), reduced[k].dtype());
      reduced[k] = is_floating(reduced[k].dtype()) ? divide(reduced[k], n) : floordiv(reduced[k], n);
    }
  }
  std::vector<Tensor> shards(reduced.size());
  for (int k = 0; k < ctx.num_cores(); ++k)
    if (out_sharding.holds_data(k)) shards[k] = reduced[k];
  const DType dtype = reduced[groups[0][0]].dtype();
  ShardedTensor result(out_shape, dtype, out_sharding, ctx.devices(), std::move(shards));
  if (kind == ReduceKind::kMean) {
    record_op(ctx, "divide", "mean: the all-reduced sum divided by the global count", result, shard_elements(result),
              local_bytes({&result}, result));
  }
  return result;
}

}  // namespace tpustrategy::spmd

namespace tpustrategy::spmd {

ShardedTensor softmax(SpmdContext& ctx, const ShardedTensor& logits, std::int64_t axis) {
  const int rank = static_cast<int>(logits.shape().size());
  axis = normalize_axis(axis, rank, "spmd::softmax");
  ShardedTensor x = logits.sharding().is_maximal() ? reshard(ctx, logits, Sharding::replicated(), "softmax") : logits;
  const TileGrid grid = TileGrid::from(x.sharding(), rank, ctx.num_cores());
  if (grid.dims[axis] == 1) {
    auto shards = per_core(ctx, x.sharding(), [&](int k) { return tpustrategy::softmax(x.shards()[k], axis); });
    ShardedTensor result(x.shape(), x.dtype(), x.sharding(), ctx.devices(), std::move(shards));
    auto flops = shard_elements(result);
    for (auto& f : flops) f *= 5;
    record_op(ctx, "softmax", "softmax over an untiled axis: local", result, flops, local_bytes({&x}, result));
    return result;
  }
  // The max and the sum over the tiled axis each need one all-reduce over that axis's groups.
  const ShardedTensor m = reduce(ctx, ReduceKind::kMax, x, {axis}, /*keepdims=*/true);
  const ShardedTensor e = unary(ctx, UnaryOp::kExp, binary(ctx, BinaryOp::kSubtract, x, m));
  const ShardedTensor s = reduce(ctx, ReduceKind::kSum, e, {axis}, /*keepdims=*/true);
  return binary(ctx, BinaryOp::kDivide, e, s);
}

ShardedTensor sparse_softmax_cross_entropy(SpmdContext& ctx, const ShardedTensor& logits_in,
                                           const ShardedTensor& labels_in) {
  if (logits_in.shape().size() != 2 || labels_in.shape().size() != 1 || labels_in.shape()[0] != logits_in.shape()[0]) {
    fail<InvalidArgumentError>("spmd::sparse_softmax_cross_entropy",
                               "logits must be [batch, classes] and labels [batch], got {} and {}",
                               shape_to_string(logits_in.shape()), shape_to_string(labels_in.shape()));
  }
  const int cores = ctx.num_cores();
  const ShardedTensor logits = logits_in.sharding().is_maximal()
                                   ? reshard(ctx, logits_in, Sharding::replicated(), "cross-entropy logits")
                                   : logits_in;
  const TileGrid grid = TileGrid::from(logits.sharding(), 2, cores);
  const Sharding row_sharding = remove_dim(merge_into_replication(grid, 1), 1).to_sharding(cores);
  const ShardedTensor labels =
      reshard(ctx, labels_in, row_sharding, "cross-entropy labels to the logits' batch tiling");
  const bool tiled = grid.dims[1] > 1;
  const auto groups = tiled ? groups_along(grid, 1) : std::vector<std::vector<int>>{};
  const Shape out_shape{logits.shape()[0]};
  auto make = [&](std::vector<Tensor> shards) {
    std::vector<Tensor> held(shards.size());
    for (int k = 0; k < cores; ++k)
      if (row_sharding.holds_data(k)) held[k] = shards[k];
    return ShardedTensor(out_shape, logits.dtype(), row_sharding, ctx.devices(), std::move(held));
  };
  auto maxes = per_core(ctx, logits.sharding(), [&](int k) {
    return tpustrategy::reduce(ReduceKind::kMax, logits.shards()[k], std::vector<std::int64_t>{1});
  });
  if (tiled) {
    maxes = all_reduce_groups(ctx, maxes, groups, CollectiveOp::kMax);
    record_all_reduce(ctx, make(maxes), maxes[groups[0][0]].shape(), groups, CollectiveOp::kMax,
                      "cross-entropy over tiled classes: all-reduce of the local maxima");
  }
  auto sums = per_core(ctx, logits.sharding(), [&](int k) {
    return tpustrategy::reduce(ReduceKind::kSum, exp(subtract(logits.shards()[k], expand_dims(maxes[k], 1))),
                               std::vector<std::int64_t>{1});
  });
  auto picked = per_core(ctx, logits.sharding(), [&](int k) {
    const auto offset = tile_offset_for_device(logits.shape(), logits.sharding(), k)[1];
    const Tensor& l = logits.shards()[k];
    const Tensor local = subtract(cast(labels.shards()[k], DType::kInt64), Tensor::scalar<std::int64_t>(offset));
    const Tensor mask = one_hot(local, l.shape()[1], cast(Tensor::scalar<double>(1.0), l.dtype()),
                                cast(Tensor::scalar<double>(0.0), l.dtype()), -1);
    return tpustrategy::reduce(ReduceKind::kSum, multiply(l, mask), std::vector<std::int64_t>{1});
  });
  if (tiled) {
    sums = all_reduce_groups(ctx, sums, groups, CollectiveOp::kSum);
    record_all_reduce(ctx, make(sums), sums[groups[0][0]].shape(), groups, CollectiveOp::kSum,
                      "cross-entropy over tiled classes: all-reduce of the local sums of exp");
    picked = all_reduce_groups(ctx, picked, groups, CollectiveOp::kSum);
    record_all_reduce(ctx, make(picked), picked[groups[0][0]].shape(), groups, CollectiveOp::kSum,
                      "cross-entropy over tiled classes: all-reduce of the label logit (one core holds it)");
  }
  auto loss = per_core(ctx, row_sharding, [&](int k) { return subtract(add(log(sums[k]), maxes[k]), picked[k]); });
  ShardedTensor result = make(loss);
  auto flops = shard_elements(logits);
  for (auto& f : flops) f *= 6;
  record_op(ctx, "sparse_softmax_cross_entropy",
            tiled ? "classes tiled: local partials combined by all-reduces" : "classes untiled: local", result, flops,
            local_bytes({&logits}, result));
  return result;
}

}  // namespace tpustrategy::spmd
