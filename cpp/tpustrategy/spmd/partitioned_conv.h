#pragma once
// Partitioned 2-D convolution (NHWC input, HWIO filter, stride 1, no dilation). The filter is replicated;
// the input may be tiled on batch, height and width (a tiled channel axis is gathered first). A spatially
// tiled input exchanges halos with its neighbours — one collective-permute per direction and dimension,
// height first, so corner elements travel through the height halo (XLA's windowed-op partitioning); the
// tiles at the border receive zeros, which is exactly SAME padding. Each core then runs a VALID convolution
// on its haloed tile (im2col + matmul on the core). The output keeps the input's tiling.
//
// VALID padding with a tiled spatial dimension gathers that dimension first (the output tiles would not line
// up with the input tiles). The filter gradient sums each core's im2colᵀ · dy and all-reduces it over the
// cores holding distinct tiles; the input gradient of a convolution is not built (the seed model convolves
// the input images, which need none).
#include <string>
#include <vector>

#include "tpustrategy/spmd/sharded_tensor.h"
#include "tpustrategy/spmd/spmd_context.h"

namespace tpustrategy::spmd {

// Per core: its shard of `x` extended by `before` elements of the previous tile and `after` elements of the
// next along tensor dimension `dim` (zeros at the ends). Tiles along `dim` must be even and at least as long
// as the halo. Records one collective-permute per non-empty direction.
std::vector<Tensor> halo_exchange(SpmdContext& ctx, const ShardedTensor& x, int dim, std::int64_t before,
                                  std::int64_t after);

ShardedTensor conv2d(SpmdContext& ctx, const ShardedTensor& x, const ShardedTensor& filter,
                     const std::string& padding = "SAME");
// d loss / d filter for y = conv2d(x, filter, padding) and dy = d loss / d y, replicated.
ShardedTensor conv2d_filter_grad(SpmdContext& ctx, const ShardedTensor& x, const ShardedTensor& filter,
                                 const ShardedTensor& dy, const std::string& padding = "SAME");

}  // namespace tpustrategy::spmd
