#include "tpustrategy/spmd/partitioned_windowed_dot.h"

#include <fmt/format.h>

#include "tpustrategy/ops/elementwise.h"
#include "tpustrategy/ops/matmul.h"
#include "tpustrategy/spmd/partition_util.h"
#include "tpustrategy/spmd/reshard.h"
#include "tpustrategy/spmd/tile_grid.h"

namespace tpustrategy::spmd {

namespace {

// Which operand stays, and along which dimension of the moving one its P windows lie.
struct WindowedPlan {
  bool keep_lhs = true;
  int kept_dim = 0;          // the kept operand's dimension tiled over all cores (lhs: 0 = m; rhs: 1 = n)
  int moving_dim = 0;        // the moving operand's tiled dimension
  bool contracting = false;  // the windows lie along the contracting dimension (accumulate) or not (write)
};

bool tiled_only_on(const TileGrid& g, int dim, int cores) {
  return g.replication() == 1 && g.dims[dim] == cores && g.dims[1 - dim] == 1;
}

std::optional<WindowedPlan> plan(SpmdContext& ctx, const ShardedTensor& a, const ShardedTensor& b) {
  const int cores = ctx.num_cores();
  if (cores < 2 || a.shape().size() != 2 || b.shape().size() != 2) return std::nullopt;
  if (a.sharding().is_maximal() || b.sharding().is_maximal()) return std::nullopt;
  if (!divides_evenly(a.shape(), a.sharding()) || !divides_evenly(b.shape(), b.sharding())) return std::nullopt;
  const TileGrid ga = TileGrid::from(a.sharding(), 2, cores), gb = TileGrid::from(b.sharding(), 2, cores);
  const std::int64_t threshold = ctx.windowed_einsum_threshold_bytes();
  const auto bytes = [](const ShardedTensor& t) {
    return num_elements(t.shape()) * static_cast<std::int64_t>(dtype_size(t.dtype()));
  };
  // XLA's order: the lhs kept (rhs windowed) first, then the rhs kept.
  if (tiled_only_on(ga, 0, cores) && bytes(b) >= threshold) {
    if (tiled_only_on(gb, 0, cores)) return WindowedPlan{true, 0, 0, true};
    if (tiled_only_on(gb, 1, cores)) return WindowedPlan{true, 0, 1, false};
  }
  if (tiled_only_on(gb, 1, cores) && bytes(a) >= threshold) {
    if (tiled_only_on(ga, 1, cores)) return WindowedPlan{false, 1, 1, true};
    if (tiled_only_on(ga, 0, cores)) return WindowedPlan{false, 1, 0, false};
  }
  return std::nullopt;
}

}  // namespace

std::optional<ShardedTensor> windowed_matmul(SpmdContext& ctx, const ShardedTensor& a, const ShardedTensor& b) {
  const auto p = plan(ctx, a, b);
  if (!p) return std::nullopt;
  const int cores = ctx.num_cores();
  const ShardedTensor& kept = p->keep_lhs ? a : b;
  const ShardedTensor& moving = p->keep_lhs ? b : a;
  const TileGrid moving_grid = TileGrid::from(moving.sharding(), 2, cores);
  // Ring over the moving operand's tile order: the core at position q passes its window to position q − 1,
  // so after i steps it holds window (q + i) mod P.
  std::vector<int> position(static_cast<std::size_t>(cores));
  for (int q = 0; q < cores; ++q) position[moving_grid.devices[q]] = q;
  std::vector<std::pair<int, int>> ring;
  for (int q = 0; q < cores; ++q)
    ring.emplace_back(moving_grid.devices[q], moving_grid.devices[(q + cores - 1) % cores]);
  std::sort(ring.begin(), ring.end());
  const Shape out_shape{a.shape()[0], b.shape()[1]};
  // The output is tiled as the kept operand: its rows (lhs kept) or columns (rhs kept) over the same cores.
  const Sharding out_sharding = kept.sharding();
  const Shape window = moving.shards()[moving_grid.devices[0]].shape();
  const std::int64_t span = window[p->moving_dim];  // one window's extent along its tiled dimension
  std::vector<Tensor> acc = per_core(ctx, out_sharding, [&](int c) {
    return Tensor::zeros(a.dtype(), tile_bounds_for_device(out_shape, out_sharding, c).extent(), ctx.device(c));
  });
  std::vector<Tensor> held = moving.shards();
  for (int step = 0; step < cores; ++step) {
    std::vector<std::int64_t> flops(static_cast<std::size_t>(cores), 0);
    for (int c = 0; c < cores; ++c) {
      ScopedDevice on(ctx.device(c));
      const std::int64_t j = (position[c] + step) % cores;  // the window this core holds now
      const Tensor& mine = kept.shards()[c];
      const Tensor& w = held[c];
      if (p->contracting) {
        // lhs kept: a_c[:, kj] @ w; rhs kept: w @ b_c[kj, :] — accumulate.
        const Tensor slice = p->keep_lhs ? box(mine, {0, j * span}, {mine.shape()[0], span}, ctx.device(c))
                                         : box(mine, {j * span, 0}, {span, mine.shape()[1]}, ctx.device(c));
        const Tensor part = p->keep_lhs ? tpustrategy::matmul(slice, w) : tpustrategy::matmul(w, slice);
        acc[c] = add(acc[c], part);
        flops[c] = 2 * part.num_elements() * span;
      } else {
        // lhs kept: a_c @ w gives output columns window j; rhs kept: w @ b_c gives output rows window j.
        const Tensor part = p->keep_lhs ? tpustrategy::matmul(mine, w) : tpustrategy::matmul(w, mine);
        std::vector<std::int64_t> to{0, 0};
        to[p->keep_lhs ? 1 : 0] = j * span;
        copy_box(part.raw_data(), part.shape(), {0, 0}, acc[c].mutable_raw_data(), acc[c].shape(), to, part.shape(),
                 dtype_size(part.dtype()));
        flops[c] = 2 * part.num_elements() * (p->keep_lhs ? mine.shape()[1] : mine.shape()[0]);
      }
    }
    ShardedTensor partial(out_shape, a.dtype(), out_sharding, ctx.devices(), acc);
    record_op(ctx, "dot",
              fmt::format("windowed einsum ({} kept, {} windows along its {} dimension): iteration {} of {}",
                          p->keep_lhs ? "lhs" : "rhs", p->keep_lhs ? "rhs" : "lhs",
                          p->contracting ? "contracting" : "non-contracting", step + 1, cores),
              partial, flops, local_bytes({&kept}, partial));
    if (step + 1 < cores) {
      held = collective_permute_blocks(ctx, held, moving.dtype(), window, moving.sharding(), ring, p->moving_dim,
                                       "windowed einsum: the window passes to the previous core of the ring");
    }
  }
  return ShardedTensor(out_shape, a.dtype(), out_sharding, ctx.devices(), std::move(acc));
}

}  // namespace tpustrategy::spmd
