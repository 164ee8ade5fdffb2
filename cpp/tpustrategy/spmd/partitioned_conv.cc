#include "tpustrategy/spmd/partitioned_conv.h"

#include <fmt/format.h>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/matmul.h"
#include "tpustrategy/ops/shape_ops.h"
#include "tpustrategy/spmd/partition_util.h"
#include "tpustrategy/spmd/reshard.h"
#include "tpustrategy/spmd/tile_grid.h"

namespace tpustrategy::spmd {

namespace {

std::vector<std::int64_t> zeros(std::size_t n) { return std::vector<std::int64_t>(n, 0); }

// `t` (per core) with the halos of `dim` exchanged among `groups` (ordered along dim).
std::vector<Tensor> exchange(SpmdContext& ctx, const std::vector<Tensor>& shards, DType dtype, const Sharding& sharding,
                             const std::vector<std::vector<int>>& groups, int dim, std::int64_t before,
                             std::int64_t after, const std::string& why) {
  const int cores = ctx.num_cores();
  const Shape tile = shards[groups[0][0]].shape();
  std::vector<Tensor> received_before(static_cast<std::size_t>(cores)), received_after(static_cast<std::size_t>(cores));
  auto send = [&](std::int64_t width, bool to_next, std::vector<Tensor>& received) {
    if (width == 0) return;
    if (width > tile[dim]) {
      fail<InvalidArgumentError>("spmd::halo_exchange", "a halo of {} exceeds the tile length {} along dimension {}",
                                 width, tile[dim], dim);
    }
    Shape edge = tile;
    edge[dim] = width;
    std::vector<std::pair<int, int>> pairs;
    std::vector<Tensor> inputs(static_cast<std::size_t>(cores));
    std::vector<const void*> in;
    std::vector<void*> out;
    for (const auto& g : groups)
      for (std::size_t i = 0; i + 1 < g.size(); ++i) pairs.emplace_back(to_next ? g[i] : g[i + 1], to_next ? g[i + 1] : g[i]);
    for (int k = 0; k < cores; ++k) {
      if (shards[k].valid()) {
        auto from = zeros(tile.size());
        from[dim] = to_next ? tile[dim] - width : 0;  // the next tile needs my last rows, the previous my first
        inputs[k] = box(shards[k], from, edge, ctx.device(k));
      } else {
        inputs[k] = Tensor::zeros(dtype, edge, ctx.device(k));
      }
      received[k] = Tensor::empty(dtype, edge, ctx.device(k));
      in.push_back(inputs[k].raw_data());
      out.push_back(received[k].mutable_raw_data());
    }
    std::sort(pairs.begin(), pairs.end());
    ctx.communicator().collective_permute(dtype, in, num_elements(edge), pairs, out);
    SpmdEntry e;
    e.kind = SpmdEntryKind::kCollective;
    e.name = "collective-permute";
    e.rule = fmt::format("{}: halo of {} along dimension {} from the {} tile", why, width, dim,
                         to_next ? "previous" : "next");
    e.dtype = dtype;
    e.sharding = sharding.to_string();
    for (int k = 0; k < cores; ++k) {
      e.holds.push_back(shards[k].valid());
      e.shard_shapes.push_back(shards[k].valid() ? edge : Shape{});
    }
    e.operand_shape = edge;
    e.pairs = pairs;
    e.dimension = dim;
    e.flops.assign(static_cast<std::size_t>(cores), 0);
    e.bytes.assign(static_cast<std::size_t>(cores), 0);
    for (auto [s, t] : pairs) e.bytes[s] = received[t].nbytes();
    ctx.record().entries.push_back(std::move(e));
  };
  send(before, /*to_next=*/true, received_before);
  send(after, /*to_next=*/false, received_after);
  std::vector<Tensor> out(static_cast<std::size_t>(cores));
  for (int k = 0; k < cores; ++k) {
    if (!shards[k].valid()) continue;
    std::vector<Tensor> parts;
    if (before) parts.push_back(received_before[k]);
    parts.push_back(shards[k]);
    if (after) parts.push_back(received_after[k]);
    ScopedDevice on(ctx.device(k));
    out[k] = parts.size() == 1 ? shards[k] : concat(parts, dim);
  }
  return out;
}

// Zero padding of `before` / `after` along `dim` (an untiled spatial dimension under SAME padding).
Tensor pad_dim(const Tensor& t, int dim, std::int64_t before, std::int64_t after, const DevicePtr& device) {
  if (before == 0 && after == 0) return t;
  Shape shape = t.shape();
  shape[dim] += before + after;
  Tensor out = Tensor::zeros(t.dtype(), shape, device);
  auto to = zeros(shape.size());
  to[dim] = before;
  copy_box(t.raw_data(), t.shape(), zeros(shape.size()), out.mutable_raw_data(), shape, to, t.shape(),
           dtype_size(t.dtype()));
  return out;
}

// im2col of a padded NHWC tile for a kh x kw VALID window: [n*h*w, kh*kw*c].
Tensor patches(const Tensor& padded, std::int64_t kh, std::int64_t kw, const DevicePtr& device) {
  const auto& s = padded.shape();
  const std::int64_t n = s[0], h = s[1] - kh + 1, w = s[2] - kw + 1, c = s[3];
  const Shape src6{n, s[1], s[2], 1, 1, c};
  const Shape dst6{n, h, w, kh, kw, c};
  Tensor out = Tensor::empty(padded.dtype(), dst6, device);
  for (std::int64_t i = 0; i < kh; ++i) {
    for (std::int64_t j = 0; j < kw; ++j) {
      copy_box(padded.raw_data(), src6, {0, i, j, 0, 0, 0}, out.mutable_raw_data(), dst6, {0, 0, 0, i, j, 0},
               {n, h, w, 1, 1, c}, dtype_size(padded.dtype()));
    }
  }
  return reshape(out, {n * h * w, kh * kw * c});
}

struct Prepared {
  ShardedTensor x;                   // the input, channels untiled
  ShardedTensor filter;              // replicated
  std::vector<Tensor> padded;        // per core: haloed / padded tile
  std::vector<int> tiled_dims;       // grid dims of x that are tiled (0, 1, 2)
};

Prepared prepare(SpmdContext& ctx, const ShardedTensor& x_in, const ShardedTensor& filter_in,
                 const std::string& padding) {
  if (x_in.shape().size() != 4 || filter_in.shape().size() != 4 || x_in.shape()[3] != filter_in.shape()[2]) {
    fail<InvalidArgumentError>("spmd::conv2d", "input must be NHWC and filter HWIO with matching channels, got {} and {}",
                               shape_to_string(x_in.shape()), shape_to_string(filter_in.shape()));
  }
  if (padding != "SAME" && padding != "VALID") {
    fail<InvalidArgumentError>("spmd::conv2d", "padding must be 'SAME' or 'VALID', got '{}'", padding);
  }
  const int cores = ctx.num_cores();
  ShardedTensor x = x_in.sharding().is_maximal() ? reshard(ctx, x_in, Sharding::replicated(), "conv2d input") : x_in;
  x = all_gather_dim(ctx, x, 3, "conv2d: channels gathered");
  const ShardedTensor filter = reshard(ctx, filter_in, Sharding::replicated(), "conv2d: filter replicated");
  const std::int64_t kh = filter.shape()[0], kw = filter.shape()[1];
  for (int d : {1, 2}) {
    const TileGrid g = TileGrid::from(x.sharding(), 4, cores);
    const bool uneven = x.shape()[d] % g.dims[d] != 0;
    if (g.dims[d] > 1 && (padding == "VALID" || uneven)) {
      x = all_gather_dim(ctx, x, d, "conv2d: spatial dimension gathered (VALID padding or uneven tiles)");
    }
  }
  const TileGrid grid = TileGrid::from(x.sharding(), 4, cores);
  std::vector<Tensor> current = x.shards();
  const std::int64_t k[3] = {0, kh, kw};
  // Halos of the tiled dimensions first (height, then width: the width halo carries the height halo's
  // corners), then the zero padding of untiled dimensions, so halos are as small as XLA's.
  auto halo = [&](int d) {
    const std::int64_t before = padding == "SAME" ? (k[d] - 1) / 2 : 0;
    return std::pair{before, padding == "SAME" ? k[d] - 1 - before : 0};
  };
  for (int d : {1, 2}) {
    if (grid.dims[d] == 1) continue;
    const auto [before, after] = halo(d);
    current = exchange(ctx, current, x.dtype(), x.sharding(), groups_along(grid, d), d, before, after,
                       "conv2d with a spatially tiled input");
  }
  for (int d : {1, 2}) {
    if (grid.dims[d] > 1) continue;
    const auto [before, after] = halo(d);
    for (int c = 0; c < cores; ++c)
      if (current[c].valid()) current[c] = pad_dim(current[c], d, before, after, ctx.device(c));
  }
  std::vector<int> tiled;
  for (int d = 0; d < 3; ++d)
    if (grid.dims[d] > 1) tiled.push_back(d);
  return {x, filter, current, tiled};
}

Shape conv_out_shape(const Shape& x, const Shape& f, const std::string& padding) {
  if (padding == "SAME") return {x[0], x[1], x[2], f[3]};
  return {x[0], x[1] - f[0] + 1, x[2] - f[1] + 1, f[3]};
}

}  // namespace

std::vector<Tensor> halo_exchange(SpmdContext& ctx, const ShardedTensor& x, int dim, std::int64_t before,
                                  std::int64_t after) {
  const int rank = static_cast<int>(x.shape().size());
  if (dim < 0 || dim >= rank) fail<InvalidArgumentError>("spmd::halo_exchange", "dimension {} out of range", dim);
  const TileGrid grid = TileGrid::from(x.sharding(), rank, ctx.num_cores());
  if (x.shape()[dim] % grid.dims[dim] != 0) {
    fail<InvalidArgumentError>("spmd::halo_exchange", "dimension {} of {} is not tiled evenly", dim, shape_to_string(x.shape()));
  }
  return exchange(ctx, x.shards(), x.dtype(), x.sharding(), groups_along(grid, dim), dim, before, after, "halo exchange");
}

ShardedTensor conv2d(SpmdContext& ctx, const ShardedTensor& x_in, const ShardedTensor& filter_in,
                     const std::string& padding) {
  const Prepared p = prepare(ctx, x_in, filter_in, padding);
  const Shape& fs = p.filter.shape();
  const Shape out_shape = conv_out_shape(p.x.shape(), fs, padding);
  // Output grid: the input's, channels untiled (so the same sharding text).
  const Sharding out = p.x.sharding();
  std::vector<std::int64_t> flops(static_cast<std::size_t>(ctx.num_cores()), 0);
  auto shards = per_core(ctx, out, [&](int k) {
    const Tensor cols = patches(p.padded[k], fs[0], fs[1], ctx.device(k));
    const Tensor f2 = reshape(p.filter.shards()[k], {fs[0] * fs[1] * fs[2], fs[3]});
    const Tensor y = matmul(cols, f2);
    flops[k] = 2 * y.num_elements() * fs[0] * fs[1] * fs[2];
    const auto& ps = p.padded[k].shape();
    return reshape(y, {ps[0], ps[1] - fs[0] + 1, ps[2] - fs[1] + 1, fs[3]});
  });
  ShardedTensor result(out_shape, p.x.dtype(), out, ctx.devices(), std::move(shards));
  record_op(ctx, "convolution",
            p.tiled_dims.empty() ? "conv2d: local" : "conv2d: local VALID convolution of each haloed tile", result, flops,
            local_bytes({&p.x, &p.filter}, result));
  return result;
}

ShardedTensor conv2d_filter_grad(SpmdContext& ctx, const ShardedTensor& x_in, const ShardedTensor& filter_in,
                                 const ShardedTensor& dy_in, const std::string& padding) {
  const Prepared p = prepare(ctx, x_in, filter_in, padding);
  const Shape& fs = p.filter.shape();
  const ShardedTensor dy = reshard(ctx, dy_in, p.x.sharding(), "conv2d filter gradient: dy to the input's tiling");
  const int cores = ctx.num_cores();
  std::vector<std::int64_t> flops(static_cast<std::size_t>(cores), 0);
  auto partials = per_core(ctx, p.x.sharding(), [&](int k) {
    const Tensor cols = patches(p.padded[k], fs[0], fs[1], ctx.device(k));
    const Tensor g = reshape(dy.shards()[k], {cols.shape()[0], fs[3]});
    flops[k] = 2 * cols.num_elements() * fs[3];
    return reshape(matmul(cols, g, /*transpose_a=*/true), fs);
  });
  const TileGrid grid = TileGrid::from(p.x.sharding(), 4, cores);
  std::vector<int> dims(p.tiled_dims.begin(), p.tiled_dims.end());
  const auto groups = groups_along(grid, dims);
  // Partials live on every holder of x; with no tiled dims each is already the whole gradient.
  std::vector<Tensor> local(static_cast<std::size_t>(cores));
  for (int k = 0; k < cores; ++k) local[k] = partials[k].valid() ? partials[k] : Tensor();
  const Sharding out_sharding = grid.replication() == cores || !dims.empty() ? Sharding::replicated() : p.x.sharding();
  if (dims.empty()) {
    ShardedTensor result(fs, p.x.dtype(), Sharding::replicated(), ctx.devices(), local);
    record_op(ctx, "convolution", "conv2d filter gradient: local", result, flops, local_bytes({&p.x, &dy}, result));
    return result;
  }
  ShardedTensor partial(fs, p.x.dtype(), Sharding::replicated(), ctx.devices(), local);
  record_op(ctx, "convolution", "conv2d filter gradient: local partial over this core's tile", partial, flops,
            local_bytes({&p.x, &dy}, partial));
  auto reduced = all_reduce_groups(ctx, partials, groups, CollectiveOp::kSum);
  ShardedTensor result(fs, p.x.dtype(), out_sharding, ctx.devices(), std::move(reduced));
  record_all_reduce(ctx, result, fs, groups, CollectiveOp::kSum,
                    "conv2d filter gradient over a tiled input: all-reduce of the per-tile partials");
  return result;
}

}  // namespace tpustrategy::spmd
