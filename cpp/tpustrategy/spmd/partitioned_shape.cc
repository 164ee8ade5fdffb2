#include "tpustrategy/spmd/partitioned_shape.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <numeric>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/cast.h"
#include "tpustrategy/ops/elementwise.h"
#include "tpustrategy/ops/shape_ops.h"
#include "tpustrategy/spmd/partition_util.h"
#include "tpustrategy/spmd/reshard.h"
#include "tpustrategy/spmd/tile_grid.h"

namespace tpustrategy::spmd {

namespace {

int rank_of(const ShardedTensor& x) { return static_cast<int>(x.shape().size()); }

ShardedTensor replicated_if_maximal(SpmdContext& ctx, const ShardedTensor& x, const char* why) {
  return x.sharding().is_maximal() ? reshard(ctx, x, Sharding::replicated(), why) : x;
}

// Gathers every dimension of `dims` that is tiled.
ShardedTensor gather_dims(SpmdContext& ctx, ShardedTensor x, const std::vector<int>& dims, const std::string& why) {
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) x = all_gather_dim(ctx, x, *it, why);
  return x;
}

}  // namespace

ShardedTensor transpose(SpmdContext& ctx, const ShardedTensor& x_in, std::vector<std::int64_t> perm) {
  const ShardedTensor x = replicated_if_maximal(ctx, x_in, "transpose of a maximal operand");
  const int rank = rank_of(x);
  if (perm.empty())
    for (int d = rank - 1; d >= 0; --d) perm.push_back(d);
  std::vector<std::int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::int64_t> iota(static_cast<std::size_t>(rank));
  std::iota(iota.begin(), iota.end(), 0);
  if (sorted != iota)
    fail<InvalidArgumentError>("spmd::transpose", "perm [{}] is not a permutation of rank {}", fmt::join(perm, ","),
                               rank);
  const Sharding out =
      transpose_grid(TileGrid::from(x.sharding(), rank, ctx.num_cores()), perm).to_sharding(ctx.num_cores());
  Shape shape(static_cast<std::size_t>(rank));
  for (int i = 0; i < rank; ++i) shape[i] = x.shape()[perm[i]];
  auto shards = per_core(ctx, out, [&](int k) { return tpustrategy::transpose(x.shards()[k], perm); });
  ShardedTensor result(shape, x.dtype(), out, ctx.devices(), std::move(shards));
  record_op(ctx, "transpose", "local: the tile grid is transposed with the tensor", result, {},
            local_bytes({&x}, result));
  return result;
}

ShardedTensor reshape(SpmdContext& ctx, const ShardedTensor& x_in, const Shape& shape) {
  ShardedTensor x = replicated_if_maximal(ctx, x_in, "reshape of a maximal operand");
  if (num_elements(shape) != num_elements(x.shape())) {
    fail<InvalidArgumentError>("spmd::reshape",
                               "Input to reshape is a tensor with {} values, but the requested shape has {}",
                               num_elements(x.shape()), num_elements(shape));
  }
  const int rank = rank_of(x), cores = ctx.num_cores();
  // Group input and output dims into runs of equal products; within a run only the first input dim may be
  // tiled, and it maps to the run's first output dim when its tiles divide that dim.
  TileGrid grid = TileGrid::from(x.sharding(), rank, cores);
  TileGrid out_grid;
  out_grid.dims.assign(shape.size(), 1);
  out_grid.dims.push_back(grid.replication());
  std::vector<int> to_gather;
  std::vector<std::pair<int, int>> mapping;  // tiled input dim -> output dim
  std::size_t i = 0, o = 0;
  while (i < x.shape().size() || o < shape.size()) {
    const std::size_t i0 = i, o0 = o;
    std::int64_t pi = i < x.shape().size() ? x.shape()[i++] : 1, po = o < shape.size() ? shape[o++] : 1;
    while (pi != po) {
      if (pi < po && i < x.shape().size())
        pi *= x.shape()[i++];
      else if (o < shape.size())
        po *= shape[o++];
      else
        break;
    }
    for (std::size_t d = i0; d < i; ++d) {
      if (grid.dims[d] == 1) continue;
      if (d == i0 && o0 < shape.size() && shape[o0] % grid.dims[d] == 0 &&
          (shape[o0] >= x.shape()[d] ? shape[o0] % x.shape()[d] == 0 : x.shape()[d] % shape[o0] == 0)) {
        mapping.emplace_back(static_cast<int>(d), static_cast<int>(o0));
      } else {
        to_gather.push_back(static_cast<int>(d));
      }
    }
  }
  // A tile of the merged output dim must be contiguous: the tiled input dim must be the run's only
  // non-trivial factor below the output dim, or the output dim must not be cut into smaller pieces.
  std::vector<std::pair<int, int>> kept;
  for (auto [d, od] : mapping) {
    const bool split = shape[od] < x.shape()[d];  // input dim split into (shape[od], ...)
    const bool merged_exact = shape[od] >= x.shape()[d];
    if ((split && shape[od] % grid.dims[d] == 0) || merged_exact)
      kept.emplace_back(d, od);
    else
      to_gather.push_back(d);
  }
  std::sort(to_gather.begin(), to_gather.end());
  if (!to_gather.empty()) {
    x = gather_dims(ctx, x, to_gather, "reshape: tiled dimension does not survive the reshape");
    grid = TileGrid::from(x.sharding(), rank, cores);
  }
  out_grid.dims.back() = grid.replication();
  // Devices: output grid coordinate (kept dims) -> input grid coordinate.
  std::int64_t total = 1;
  for (auto d : out_grid.dims) total *= d;
  for (auto [d, od] : kept) out_grid.dims[od] = grid.dims[d];
  total = 1;
  for (auto d : out_grid.dims) total *= d;
  out_grid.devices.resize(static_cast<std::size_t>(total));
  for (std::int64_t p = 0; p < total; ++p) {
    std::vector<std::int64_t> c(out_grid.dims.size());
    std::int64_t rest = p;
    for (int d = static_cast<int>(c.size()) - 1; d >= 0; --d) c[d] = rest % out_grid.dims[d], rest /= out_grid.dims[d];
    std::vector<std::int64_t> ic(grid.dims.size(), 0);
    for (auto [d, od] : kept) ic[d] = c[od];
    ic.back() = c.back();
    out_grid.devices[p] = grid.device_at(ic);
  }
  const Sharding out = out_grid.to_sharding(cores);
  auto shards = per_core(ctx, out, [&](int k) {
    return tpustrategy::reshape(x.shards()[k], tile_bounds_for_device(shape, out, k).extent());
  });
  ShardedTensor result(shape, x.dtype(), out, ctx.devices(), std::move(shards));
  record_op(ctx, "reshape", "local: tiled dimensions stay the major factor of their output dimension", result, {},
            local_bytes({&x}, result));
  return result;
}

ShardedTensor concat(SpmdContext& ctx, const std::vector<ShardedTensor>& values, std::int64_t axis) {
  if (values.empty()) fail<InvalidArgumentError>("spmd::concat", "needs at least one tensor");
  const int rank = rank_of(values[0]);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank)
    fail<InvalidArgumentError>("spmd::concat", "axis {} is out of range for rank {}", axis, rank);
  ShardedTensor first = replicated_if_maximal(ctx, values[0], "concat of a maximal operand");
  first = all_gather_dim(ctx, first, static_cast<int>(axis), "concat along a tiled axis");
  std::vector<ShardedTensor> parts{first};
  Shape shape = first.shape();
  for (std::size_t v = 1; v < values.size(); ++v) {
    // Operands differ only along the axis; tiles of the other dimensions must line up: same sharding.
    parts.push_back(reshard(ctx, values[v], first.sharding(), "concat operand to the first operand's sharding"));
    shape[axis] += values[v].shape()[axis];
  }
  auto shards = per_core(ctx, first.sharding(), [&](int k) {
    std::vector<Tensor> pieces;
    pieces.reserve(parts.size());
    for (const auto& p : parts) pieces.push_back(p.shards()[k]);
    return tpustrategy::concat(pieces, axis);
  });
  ShardedTensor result(shape, first.dtype(), first.sharding(), ctx.devices(), std::move(shards));
  std::vector<const ShardedTensor*> inputs;
  inputs.reserve(parts.size());
  for (const auto& p : parts) inputs.push_back(&p);
  record_op(ctx, "concatenate", "local along an untiled axis", result, {}, local_bytes(inputs, result));
  return result;
}

ShardedTensor slice(SpmdContext& ctx, const ShardedTensor& x_in, const std::vector<std::int64_t>& begin,
                    const std::vector<std::int64_t>& size) {
  ShardedTensor x = replicated_if_maximal(ctx, x_in, "slice of a maximal operand");
  const int rank = rank_of(x);
  if (static_cast<int>(begin.size()) != rank || static_cast<int>(size.size()) != rank) {
    fail<InvalidArgumentError>("spmd::slice", "begin and size need {} entries, got {} and {}", rank, begin.size(),
                               size.size());
  }
  Shape shape(static_cast<std::size_t>(rank));
  std::vector<int> sliced;
  for (int d = 0; d < rank; ++d) {
    shape[d] = size[d] < 0 ? x.shape()[d] - begin[d] : size[d];
    if (begin[d] < 0 || shape[d] < 0 || begin[d] + shape[d] > x.shape()[d]) {
      fail<InvalidArgumentError>("spmd::slice", "slice [{}, {}) of dimension {} (size {}) is out of range", begin[d],
                                 begin[d] + shape[d], d, x.shape()[d]);
    }
    if (shape[d] != x.shape()[d]) sliced.push_back(d);
  }
  x = gather_dims(ctx, x, sliced, "slice of a tiled axis");
  auto shards = per_core(ctx, x.sharding(), [&](int k) {
    const auto bounds = tile_bounds_for_device(x.shape(), x.sharding(), k);
    const auto out_bounds = tile_bounds_for_device(shape, x.sharding(), k);
    std::vector<std::int64_t> from(static_cast<std::size_t>(rank));
    for (int d = 0; d < rank; ++d) from[d] = begin[d] + out_bounds.offset[d] - bounds.offset[d];
    for (int d = 0; d < rank; ++d)
      if (out_bounds.limit[d] == out_bounds.offset[d]) from[d] = 0;
    return box(x.shards()[k], from, out_bounds.extent(), ctx.device(k));
  });
  // Untiled axes were the sliced ones, so the same grid fits the result (ceil tiles of the same dims).
  if (!divides_evenly(shape, x.sharding()) || !divides_evenly(x.shape(), x.sharding())) {
    bool same = true;
    for (int d = 0; d < rank; ++d)
      same =
          same && (shape[d] == x.shape()[d] || !x.sharding().is_tiled() || x.sharding().tile_assignment_dims()[d] == 1);
    if (!same) fail<InvalidArgumentError>("spmd::slice", "uneven tiling of a sliced tensor");
  }
  ShardedTensor result(shape, x.dtype(), x.sharding(), ctx.devices(), std::move(shards));
  record_op(ctx, "slice", "local along untiled axes", result, {}, local_bytes({&x}, result));
  return result;
}

ShardedTensor gather(SpmdContext& ctx, const ShardedTensor& table_in, const ShardedTensor& ids_in) {
  const ShardedTensor table = replicated_if_maximal(ctx, table_in, "gather from a maximal table");
  if (table.shape().size() != 2)
    fail<InvalidArgumentError>("spmd::gather", "the table must be [vocab, dim], got {}",
                               shape_to_string(table.shape()));
  const int cores = ctx.num_cores();
  const int id_rank = rank_of(ids_in);
  const TileGrid tg = TileGrid::from(table.sharding(), 2, cores);
  Shape out_shape = ids_in.shape();
  out_shape.push_back(table.shape()[1]);
  // Output grid: the ids untiled, the embedding axis tiled as the table's (vocabulary tiles become copies).
  TileGrid og = remove_dim(merge_into_replication(tg, 0), 0);
  for (int d = 0; d < id_rank; ++d) og = insert_dim(og, 0);
  const Sharding out = og.to_sharding(cores);
  const ShardedTensor ids = reshard(ctx, ids_in, Sharding::replicated(), "gather: ids replicated");
  const bool vocab_tiled = tg.dims[0] > 1;
  auto partials = per_core(ctx, table.sharding(), [&](int k) {
    const Tensor& local_table = table.shards()[k];
    if (!vocab_tiled) return tpustrategy::gather(local_table, ids.shards()[k], 0);
    const auto offset = tile_offset_for_device(table.shape(), table.sharding(), k)[0];
    const Tensor local_ids = subtract(ids.shards()[k], cast(Tensor::scalar<std::int64_t>(offset), ids.dtype()));
    const Tensor in_range =
        logical_and(greater_equal(local_ids, cast(Tensor::scalar<std::int64_t>(0), ids.dtype())),
                    less(local_ids, cast(Tensor::scalar<std::int64_t>(local_table.shape()[0]), ids.dtype())));
    const Tensor safe = multiply(local_ids, cast(in_range, ids.dtype()));
    const Tensor rows = local_table.shape()[0] == 0
                            ? Tensor::zeros(table.dtype(), tile_bounds_for_device(out_shape, out, k).extent())
                            : tpustrategy::gather(local_table, safe, 0);
    return multiply(rows, cast(expand_dims(in_range, -1), table.dtype()));
  });
  std::vector<std::int64_t> bytes(static_cast<std::size_t>(cores), 0);
  std::vector<Tensor> local(partials.size());
  for (int k = 0; k < cores; ++k) {
    if (out.holds_data(k)) local[k] = partials[k];
    if (partials[k].valid()) bytes[k] = 2 * partials[k].nbytes();
  }
  ShardedTensor partial(out_shape, table.dtype(), out, ctx.devices(), local);
  record_op(ctx, "gather",
            vocab_tiled ? "vocabulary-parallel: each core looks up the ids in its vocabulary range, masked"
                        : "local lookup (vocabulary untiled)",
            partial, {}, bytes);
  if (!vocab_tiled) return partial;
  const auto groups = groups_along(tg, 0);
  auto reduced = all_reduce_groups(ctx, partials, groups, CollectiveOp::kSum);
  ShardedTensor result(out_shape, table.dtype(), out, ctx.devices(), std::move(reduced));
  record_all_reduce(ctx, result, partials[groups[0][0]].shape(), groups, CollectiveOp::kSum,
                    "gather from a vocabulary-sharded table: all-reduce of the masked lookups");
  return result;
}

}  // namespace tpustrategy::spmd
