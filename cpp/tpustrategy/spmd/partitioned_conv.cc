#include "tpustrategy/spmd/partitioned_conv.h"

#include <fmt/format.h>

#include <algorithm>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/conv.h"
#include "tpustrategy/ops/elementwise.h"
#include "tpustrategy/ops/scatter.h"
#include "tpustrategy/ops/shape_ops.h"
#include "tpustrategy/ops/window.h"
#include "tpustrategy/spmd/partition_util.h"
#include "tpustrategy/spmd/reshard.h"
#include "tpustrategy/spmd/tile_grid.h"

namespace tpustrategy::spmd {

namespace {

using Pairs = std::vector<std::pair<int, int>>;

// (previous → next) or (next → previous) pairs of neighbours within each group (groups ordered along the dim).
Pairs neighbour_pairs(const std::vector<std::vector<int>>& groups, bool to_next) {
  Pairs pairs;
  for (const auto& g : groups)
    for (std::size_t i = 0; i + 1 < g.size(); ++i)
      pairs.emplace_back(to_next ? g[i] : g[i + 1], to_next ? g[i + 1] : g[i]);
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

// The box of `t` from `begin` with `length` elements along `dim` (everything along the other dims).
Tensor cut(const Tensor& t, int dim, std::int64_t begin, std::int64_t length, const DevicePtr& device) {
  std::vector<std::int64_t> from(t.shape().size(), 0);
  from[dim] = begin;
  Shape extent = t.shape();
  extent[dim] = length;
  return box(t, from, extent, device);
}

// Zero padding of `before` / `after` along `dim`.
Tensor pad_dim(const Tensor& t, int dim, std::int64_t before, std::int64_t after, const DevicePtr& device) {
  if (before == 0 && after == 0) return t;
  std::vector<std::int64_t> paddings(2 * t.shape().size(), 0);
  const auto at = static_cast<std::size_t>(2) * static_cast<std::size_t>(dim);
  paddings[at] = before;
  paddings[at + 1] = after;
  ScopedDevice on(device);
  return pad(t, paddings);
}

// Per core: `shards` with the halos of `dim` exchanged among `groups` (ordered along dim).
std::vector<Tensor> exchange(SpmdContext& ctx, const std::vector<Tensor>& shards, DType dtype, const Sharding& sharding,
                             const std::vector<std::vector<int>>& groups, int dim, std::int64_t before,
                             std::int64_t after, const std::string& why) {
  const int cores = ctx.num_cores();
  const Shape tile = shards[groups[0][0]].shape();
  auto send = [&](std::int64_t width, bool to_next) {
    if (width == 0) return std::vector<Tensor>(static_cast<std::size_t>(cores));
    if (width > tile[dim]) {
      fail<InvalidArgumentError>("spmd::halo_exchange", "a halo of {} exceeds the tile length {} along dimension {}",
                                 width, tile[dim], dim);
    }
    std::vector<Tensor> edges(static_cast<std::size_t>(cores));
    for (int k = 0; k < cores; ++k)  // the next tile needs my last elements, the previous my first
      if (shards[k].valid()) edges[k] = cut(shards[k], dim, to_next ? tile[dim] - width : 0, width, ctx.device(k));
    Shape edge = tile;
    edge[dim] = width;
    return collective_permute_blocks(ctx, edges, dtype, edge, sharding, neighbour_pairs(groups, to_next), dim,
                                     fmt::format("{}: halo of {} along dimension {} from the {} tile", why, width, dim,
                                                 to_next ? "previous" : "next"));
  };
  const auto from_previous = send(before, /*to_next=*/true);
  const auto from_next = send(after, /*to_next=*/false);
  std::vector<Tensor> out(static_cast<std::size_t>(cores));
  for (int k = 0; k < cores; ++k) {
    if (!shards[k].valid()) continue;
    std::vector<Tensor> parts;
    if (before) parts.push_back(from_previous[k]);
    parts.push_back(shards[k]);
    if (after) parts.push_back(from_next[k]);
    ScopedDevice on(ctx.device(k));
    out[k] = parts.size() == 1 ? shards[k] : concat(parts, dim);
  }
  return out;
}

// How one spatial dimension is partitioned: its global padding and, when it stays tiled, its halos.
struct SpatialPlan {
  bool tiled = false;
  std::int64_t pad_before = 0, pad_after = 0;    // TF's resolved padding (untiled dims pad locally)
  std::int64_t halo_before = 0, halo_after = 0;  // tiled dims; halo_after < 0 trims the tile
};

// The convolution's window as TF resolves it for x (SAME / VALID → explicit padding).
Window2D resolve(const Shape& x, const Shape& f, const ConvWindow& w) {
  if (w.padding != "SAME" && w.padding != "VALID") {
    fail<InvalidArgumentError>("spmd::conv2d", "padding must be 'SAME' or 'VALID', got '{}'", w.padding);
  }
  if (x.size() != 4 || f.size() != 4) {
    fail<InvalidArgumentError>("spmd::conv2d", "input must be NHWC and filter HWIO, got {} and {}", shape_to_string(x),
                               shape_to_string(f));
  }
  return make_window("spmd::conv2d", x[1], x[2], f[0], f[1], w.strides, w.dilations, padding_kind(w.padding));
}

// The partitioning of one convolution, a pure function of shapes and shardings: the input's sharding once the
// channels and the misaligned spatial dimensions are gathered, and each spatial dimension's padding / halos.
struct ConvPlan {
  Sharding sharding = Sharding::replicated();  // x's sharding for the convolution
  SpatialPlan dims[2];                         // height, width
  std::vector<int> gathered;                   // spatial dims gathered, in order, with the reason
  std::vector<std::string> why;
  Window2D local;  // the per-core VALID window
};

ConvPlan plan_conv(const Shape& xs, const Sharding& x_sharding, const Shape& fs, const Window2D& global, int cores) {
  if (xs.size() != 4 || fs.size() != 4 || xs[3] != fs[2]) {
    fail<InvalidArgumentError>("spmd::conv2d",
                               "input must be NHWC and filter HWIO with matching channels, got {} and {}",
                               shape_to_string(xs), shape_to_string(fs));
  }
  const Sharding source = x_sharding.is_maximal() ? Sharding::replicated() : x_sharding;
  TileGrid grid = TileGrid::from(source, 4, cores);
  if (grid.dims[3] > 1) grid = merge_into_replication(grid, 3);
  ConvPlan plan;
  plan.local = Window2D{fs[0], fs[1], global.sh, global.sw, global.dh, global.dw, 0, 0, 0, 0};
  const std::int64_t k[2] = {fs[0], fs[1]}, strides[2] = {global.sh, global.sw}, rates[2] = {global.dh, global.dw};
  const std::int64_t pads[2][2] = {{global.pt, global.pb}, {global.pl, global.pr}};
  const std::int64_t out[2] = {global.out_h(xs[1]), global.out_w(xs[2])};
  for (int d : {1, 2}) {
    const int i = d - 1;
    SpatialPlan& sp = plan.dims[i];
    sp.pad_before = pads[i][0];
    sp.pad_after = pads[i][1];
    const std::int64_t parts = grid.dims[d];
    if (parts == 1) continue;
    const std::int64_t n = xs[d], s = strides[i], span = rates[i] * (k[i] - 1) + 1, tile = n / parts;
    sp.halo_before = pads[i][0];
    sp.halo_after = span - s - pads[i][0];
    // The output tiles line up with the input tiles when each input tile of T yields T / s outputs.
    if (n % parts == 0 && tile % s == 0 && out[i] * s == n && sp.halo_before <= tile && sp.halo_after <= tile) {
      sp.tiled = true;
      continue;
    }
    plan.gathered.push_back(d);
    plan.why.push_back(
        fmt::format("conv2d: spatial dimension {} gathered (its {} output elements do not line up with "
                    "{} input tiles of {} at stride {})",
                    d, out[i], parts, n % parts ? "uneven" : std::to_string(tile), s));
    grid = merge_into_replication(grid, d);
  }
  plan.sharding = grid.to_sharding(cores);
  return plan;
}

struct Prepared {
  ShardedTensor x;       // the input in plan.sharding
  ShardedTensor filter;  // replicated
  ConvPlan plan;
  std::vector<Tensor> padded;   // per core: haloed / padded tile
  std::vector<int> tiled_dims;  // grid dims of x that are tiled (0, 1, 2)
};

// Gathers what cannot stay tiled and builds each core's haloed tile.
Prepared prepare(SpmdContext& ctx, const ShardedTensor& x_in, const ShardedTensor& filter_in, const Window2D& global) {
  const int cores = ctx.num_cores();
  ConvPlan plan = plan_conv(x_in.shape(), x_in.sharding(), filter_in.shape(), global, cores);
  ShardedTensor x = x_in.sharding().is_maximal() ? reshard(ctx, x_in, Sharding::replicated(), "conv2d input") : x_in;
  x = all_gather_dim(ctx, x, 3, "conv2d: channels gathered");
  for (std::size_t g = 0; g < plan.gathered.size(); ++g) x = all_gather_dim(ctx, x, plan.gathered[g], plan.why[g]);
  const ShardedTensor filter = reshard(ctx, filter_in, Sharding::replicated(), "conv2d: filter replicated");
  const TileGrid grid = TileGrid::from(x.sharding(), 4, cores);
  std::vector<Tensor> padded = x.shards();
  // Halos of the tiled dimensions first (height, then width: the width halo carries the height halo's
  // corners), then the zero padding of untiled dimensions, so halos are as small as XLA's.
  for (int d : {1, 2}) {
    const SpatialPlan& sp = plan.dims[d - 1];
    if (!sp.tiled) continue;
    padded = exchange(ctx, padded, x.dtype(), x.sharding(), groups_along(grid, d), d, sp.halo_before,
                      std::max<std::int64_t>(sp.halo_after, 0), "conv2d with a spatially tiled input");
    if (sp.halo_after >= 0) continue;
    for (int c = 0; c < cores; ++c)
      if (padded[c].valid()) padded[c] = cut(padded[c], d, 0, padded[c].shape()[d] + sp.halo_after, ctx.device(c));
  }
  for (int d : {1, 2}) {
    const SpatialPlan& sp = plan.dims[d - 1];
    if (sp.tiled) continue;
    for (int c = 0; c < cores; ++c)
      if (padded[c].valid()) padded[c] = pad_dim(padded[c], d, sp.pad_before, sp.pad_after, ctx.device(c));
  }
  std::vector<int> tiled;
  for (int d = 0; d < 3; ++d)
    if (grid.dims[d] > 1) tiled.push_back(d);
  return {x, filter, std::move(plan), std::move(padded), std::move(tiled)};
}

// The partitioned convolution for a resolved global window.
ShardedTensor convolve(SpmdContext& ctx, const ShardedTensor& x_in, const ShardedTensor& filter_in,
                       const Window2D& global, const std::string& what) {
  const Prepared p = prepare(ctx, x_in, filter_in, global);
  const Shape& fs = p.filter.shape();
  const Shape& xs = p.x.shape();
  const Shape out_shape{xs[0], global.out_h(xs[1]), global.out_w(xs[2]), fs[3]};
  // Output grid: the input's, channels untiled (so the same sharding text).
  const Sharding out = p.x.sharding();
  std::vector<std::int64_t> flops(static_cast<std::size_t>(ctx.num_cores()), 0);
  auto shards = per_core(ctx, out, [&](int k) {
    Tensor y = tpustrategy::conv2d(p.padded[k], p.filter.shards()[k], p.plan.local);
    flops[k] = 2 * y.num_elements() * fs[0] * fs[1] * fs[2];
    return y;
  });
  ShardedTensor result(out_shape, p.x.dtype(), out, ctx.devices(), std::move(shards));
  record_op(ctx, "convolution",
            fmt::format("{}: {}", what, p.tiled_dims.empty() ? "local" : "local VALID convolution of each haloed tile"),
            result, flops, local_bytes({&p.x, &p.filter}, result));
  return result;
}

std::string window_text(const ConvWindow& w) {
  return fmt::format("{}, strides {}x{}, dilations {}x{}", w.padding, w.strides[0], w.strides[1], w.dilations[0],
                     w.dilations[1]);
}

}  // namespace

std::vector<Tensor> halo_exchange(SpmdContext& ctx, const ShardedTensor& x, int dim, std::int64_t before,
                                  std::int64_t after) {
  const int rank = static_cast<int>(x.shape().size());
  if (dim < 0 || dim >= rank) fail<InvalidArgumentError>("spmd::halo_exchange", "dimension {} out of range", dim);
  const TileGrid grid = TileGrid::from(x.sharding(), rank, ctx.num_cores());
  if (x.shape()[dim] % grid.dims[dim] != 0) {
    fail<InvalidArgumentError>("spmd::halo_exchange", "dimension {} of {} is not tiled evenly", dim,
                               shape_to_string(x.shape()));
  }
  return exchange(ctx, x.shards(), x.dtype(), x.sharding(), groups_along(grid, dim), dim, before, after,
                  "halo exchange");
}

ShardedTensor conv2d(SpmdContext& ctx, const ShardedTensor& x_in, const ShardedTensor& filter_in,
                     const ConvWindow& window) {
  return convolve(ctx, x_in, filter_in, resolve(x_in.shape(), filter_in.shape(), window),
                  fmt::format("conv2d ({})", window_text(window)));
}

ShardedTensor conv2d_filter_grad(SpmdContext& ctx, const ShardedTensor& x_in, const ShardedTensor& filter_in,
                                 const ShardedTensor& dy_in, const ConvWindow& window) {
  const Prepared p = prepare(ctx, x_in, filter_in, resolve(x_in.shape(), filter_in.shape(), window));
  const Shape& fs = p.filter.shape();
  const ShardedTensor dy = reshard(ctx, dy_in, p.x.sharding(), "conv2d filter gradient: dy to the input's tiling");
  const int cores = ctx.num_cores();
  std::vector<std::int64_t> flops(static_cast<std::size_t>(cores), 0);
  auto partials = per_core(ctx, p.x.sharding(), [&](int k) {
    flops[k] = 2 * dy.shards()[k].num_elements() * fs[0] * fs[1] * fs[2];
    return conv2d_backprop_filter(p.padded[k], fs, dy.shards()[k], p.plan.local);
  });
  const TileGrid grid = TileGrid::from(p.x.sharding(), 4, cores);
  const std::vector<int> dims(p.tiled_dims.begin(), p.tiled_dims.end());
  // Partials live on every holder of x; with no tiled dims each is already the whole gradient.
  if (dims.empty()) {
    ShardedTensor result(fs, p.x.dtype(), Sharding::replicated(), ctx.devices(), partials);
    record_op(ctx, "convolution", "conv2d filter gradient: local", result, flops, local_bytes({&p.x, &dy}, result));
    return result;
  }
  ShardedTensor partial(fs, p.x.dtype(), Sharding::replicated(), ctx.devices(), partials);
  record_op(ctx, "convolution", "conv2d filter gradient: local partial over this core's tile", partial, flops,
            local_bytes({&p.x, &dy}, partial));
  const auto groups = groups_along(grid, dims);
  auto reduced = all_reduce_groups(ctx, partials, groups, CollectiveOp::kSum);
  ShardedTensor result(fs, p.x.dtype(), Sharding::replicated(), ctx.devices(), std::move(reduced));
  record_all_reduce(ctx, result, fs, groups, CollectiveOp::kSum,
                    "conv2d filter gradient over a tiled input: all-reduce of the per-tile partials");
  return result;
}

ShardedTensor conv2d_input_grad(SpmdContext& ctx, const ShardedTensor& x_in, const ShardedTensor& filter_in,
                                const ShardedTensor& dy_in, const ConvWindow& window) {
  // XLA's transposed convolution: dy is tiled as x, each core receives the dy elements whose windows reach
  // into its tile — floor((K − 1 − before) / s) from the previous tile and floor((before − 1) / s) + 1 from the
  // next (the forward halos reversed; K the window span, s the stride) — and backprops them into the region
  // they read, of which it keeps its own tile. The forward's alignment bounds these halos by dy's tile.
  const int cores = ctx.num_cores();
  const Window2D global = resolve(x_in.shape(), filter_in.shape(), window);
  const ConvPlan plan = plan_conv(x_in.shape(), x_in.sharding(), filter_in.shape(), global, cores);
  const ShardedTensor f = reshard(ctx, filter_in, Sharding::replicated(), "conv2d input gradient: filter replicated");
  const ShardedTensor dy = reshard(ctx, dy_in, plan.sharding, "conv2d input gradient: dy to the input's tiling");
  const Shape& fs = f.shape();
  const std::int64_t k[2] = {fs[0], fs[1]}, strides[2] = {global.sh, global.sw}, rates[2] = {global.dh, global.dw};
  std::int64_t dy_before[2] = {0, 0};
  const TileGrid grid = TileGrid::from(plan.sharding, 4, cores);
  std::vector<Tensor> haloed = dy.shards();
  for (int d : {1, 2}) {
    const int i = d - 1;
    const SpatialPlan& sp = plan.dims[i];
    if (!sp.tiled) continue;
    const std::int64_t span = rates[i] * (k[i] - 1) + 1;
    dy_before[i] = (span - 1 - sp.pad_before) / strides[i];
    const std::int64_t after = sp.pad_before == 0 ? 0 : (sp.pad_before - 1) / strides[i] + 1;
    haloed = exchange(ctx, haloed, dy.dtype(), plan.sharding, groups_along(grid, d), d, dy_before[i], after,
                      "conv2d input gradient: dy");
  }
  std::vector<std::int64_t> flops(static_cast<std::size_t>(cores), 0);
  auto shards = per_core(ctx, plan.sharding, [&](int c) {
    const Shape tile = tile_bounds_for_device(x_in.shape(), plan.sharding, c).extent();
    const Tensor& g = haloed[c];
    // The region g's windows read, from (its first element · s − before) on.
    Shape region = tile;
    for (int i = 0; i < 2; ++i) region[i + 1] = (g.shape()[i + 1] - 1) * strides[i] + rates[i] * (k[i] - 1) + 1;
    region[3] = fs[2];
    Tensor dx = conv2d_backprop_input(region, f.shards()[c], g, plan.local);
    flops[c] = 2 * g.num_elements() * fs[0] * fs[1] * fs[2];
    for (int d : {1, 2}) {
      const int i = d - 1;
      const std::int64_t offset = dy_before[i] * strides[i] + plan.dims[i].pad_before;
      const std::int64_t missing = offset + tile[d] - region[d];  // trailing elements no window reads
      if (missing > 0) dx = pad_dim(dx, d, 0, missing, ctx.device(c));
      dx = cut(dx, d, offset, tile[d], ctx.device(c));
    }
    return dx;
  });
  ShardedTensor dx(x_in.shape(), dy.dtype(), plan.sharding, ctx.devices(), std::move(shards));
  record_op(ctx, "convolution",
            fmt::format("conv2d input gradient ({}): local transposed convolution of each haloed dy tile",
                        window_text(window)),
            dx, flops, local_bytes({&dy, &f}, dx));
  return reshard(ctx, dx, x_in.sharding(), "conv2d input gradient to the input's sharding");
}

}  // namespace tpustrategy::spmd
