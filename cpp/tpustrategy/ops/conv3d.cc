#include "tpustrategy/ops/conv3d.h"

#include <algorithm>
#include <cstring>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/blocked_im2col_gemm.h"
#include "tpustrategy/ops/broadcast.h"
#include "tpustrategy/ops/cast.h"
#include "tpustrategy/ops/eigen_util.h"
#include "tpustrategy/ops/elementwise.h"
#include "tpustrategy/ops/matmul.h"
#include "tpustrategy/ops/shape_ops.h"
#include "tpustrategy/parallel/worker_pool.h"

namespace tpustrategy {

namespace {

bool is_half(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }

void check_dtypes(const char* where, const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) {
    fail<InvalidArgumentError>(where,
                               "cannot compute {} as input #1(zero-based) was expected to be a {} tensor but is a {} "
                               "tensor",
                               where, dtype_name(a.dtype()), dtype_name(b.dtype()));
  }
  if (!is_floating(a.dtype())) {
    fail<InvalidArgumentError>(where,
                               "Value for attr 'T' of {} is not in the list of allowed values: half, bfloat16, "
                               "float, double",
                               dtype_name(a.dtype()));
  }
}

// The filter's spatial extent must be the window's, and its input depth the input's (TF's CPU Conv3D has
// no groups).
void check_filter(const char* where, const Window3D& win, const Shape& filter_shape, std::int64_t in_depth) {
  for (std::size_t i = 0; i < 3; ++i) {
    if (win.k[i] != filter_shape[i]) {
      fail<InternalError>(where, "window does not match the filter {}", dims_to_string(filter_shape));
    }
  }
  if (filter_shape[3] <= 0 || in_depth % filter_shape[3] != 0) {
    fail<InvalidArgumentError>(where, "Input depth must be evenly divisible by filter depth: {} vs {}", in_depth,
                               filter_shape[3]);
  }
  if (filter_shape[3] != in_depth) {
    fail<InvalidArgumentError>(where, "Number of channels in filter ({}) must match last dimension of input ({})",
                               filter_shape[3], in_depth);
  }
}

void check_out_backprop(const char* where, const Tensor& g, const Geometry3D& geo, std::int64_t out_channels) {
  check_rank5(where, g, "out_backprop");
  const Shape expected{geo.n, geo.out[0], geo.out[1], geo.out[2], out_channels};
  if (g.shape() != expected) {
    fail<InvalidArgumentError>(where, "out_backprop has shape {} but the convolution's output has shape {}",
                               dims_to_string(g.shape()), dims_to_string(expected));
  }
}

// Rows [r0, r1) of receptive fields of `x`: cols[r - r0, tap * c + ci] (zero in the padding).
template <typename T>
void im2col_rows(const T* x, T* cols, const Geometry3D& g, std::int64_t r0, std::int64_t r1) {
  const std::int64_t row_len = g.win.taps() * g.c, pixels = g.out_pixels();
  T* dst = cols;
  for (std::int64_t r = r0; r < r1; ++r, dst += row_len) {
    std::fill_n(dst, row_len, T(0));
    const T* xb = x + (r / pixels) * g.in_pixels() * g.c;
    for_each_window_tap3d(g, r % pixels,
                          [&](std::int64_t tap, std::int64_t p) { std::copy_n(xb + p * g.c, g.c, dst + tap * g.c); });
  }
}

// The whole receptive-field matrix of batch items [0, g.n), rows in parallel.
template <typename T>
void im2col(const T* x, T* cols, const Geometry3D& g) {
  const std::int64_t row_len = g.win.taps() * g.c;
  const std::int64_t grain = std::max<std::int64_t>(1, kElementwiseGrain / std::max<std::int64_t>(row_len, 1));
  parallel_for(g.rows(), grain,
               [&](std::int64_t begin, std::int64_t end) { im2col_rows(x, cols + begin * row_len, g, begin, end); });
}

// The adjoint of im2col_rows: dx[b, p, ci] += cols[r - r0, tap * c + ci] for rows [r0, r1), in order.
template <typename T>
void col2im_rows(const T* cols, T* dx, const Geometry3D& g, std::int64_t r0, std::int64_t r1) {
  const std::int64_t row_len = g.win.taps() * g.c, pixels = g.out_pixels();
  const T* src = cols;
  for (std::int64_t r = r0; r < r1; ++r, src += row_len) {
    T* db = dx + (r / pixels) * g.in_pixels() * g.c;
    for_each_window_tap3d(g, r % pixels, [&](std::int64_t tap, std::int64_t p) {
      T* d = db + p * g.c;
      const T* s = src + tap * g.c;
      for (std::int64_t ci = 0; ci < g.c; ++ci) d[ci] += s[ci];
    });
  }
}

// The adjoint of im2col over the whole matrix (batch items in parallel: their gradients are disjoint).
template <typename T>
void col2im(const T* cols, T* dx, const Geometry3D& g) {
  const std::int64_t row_len = g.win.taps() * g.c, pixels = g.out_pixels();
  parallel_for(g.n, 1, [&](std::int64_t begin, std::int64_t end) {
    col2im_rows(cols + begin * pixels * row_len, dx, g, begin * pixels, end * pixels);
  });
}

// conv3d through blocked_im2col_gemm; false when it does not apply.
bool blocked_forward(const Tensor& input, const Tensor& fmat, Tensor& output, const Geometry3D& g) {
  return detail::with_blas_dtype(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = detail::data_of<T>(input);
    return detail::blocked_im2col_gemm<T>(
        g.rows(), fmat.shape()[0], fmat.shape()[1], detail::data_of<T>(fmat), detail::out_data_of<T>(output),
        [&](std::int64_t r0, std::int64_t r1, T* cols) { im2col_rows(x, cols, g, r0, r1); });
  });
}

// conv3d_backprop_input through blocked_gemm_col2im; false when it does not apply.
bool blocked_backprop_input(const Tensor& fmat, const Tensor& gmat, Tensor& dx, const Geometry3D& g) {
  return detail::with_blas_dtype(fmat.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* d = detail::out_data_of<T>(dx);
    return detail::blocked_gemm_col2im<T>(
        g.n, g.out_pixels(), fmat.shape()[0], fmat.shape()[1], detail::data_of<T>(gmat), detail::data_of<T>(fmat),
        [&](std::int64_t r0, std::int64_t r1, const T* dcols) { col2im_rows(dcols, d, g, r0, r1); });
  });
}

// conv3d_backprop_filter through blocked_im2col_gemm_tn; false when it does not apply.
bool blocked_backprop_filter(const Tensor& input, const Tensor& gmat, Tensor& df, const Geometry3D& g) {
  return detail::with_blas_dtype(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = detail::data_of<T>(input);
    return detail::blocked_im2col_gemm_tn<T>(
        g.rows(), g.win.taps() * g.c, gmat.shape()[1], detail::data_of<T>(gmat), detail::out_data_of<T>(df),
        [&](std::int64_t r0, std::int64_t r1, T* cols) { im2col_rows(x, cols, g, r0, r1); });
  });
}

// im2col's copy stays below this many elements (64 MB of float32) whatever the batch, as conv2d's.
constexpr std::int64_t kMaxColumnElements = std::int64_t{1} << 24;

std::int64_t batch_block(const Geometry3D& g) {
  const std::int64_t per_item = std::max<std::int64_t>(1, g.out_pixels() * g.win.taps() * g.c);
  return std::clamp<std::int64_t>(kMaxColumnElements / per_item, 1, std::max<std::int64_t>(g.n, 1));
}

Geometry3D batch_part(const Geometry3D& g, std::int64_t count) {
  Geometry3D part = g;
  part.n = count;
  return part;
}

// Whether the receptive-field matrix is the input itself (a 1x1x1 window, stride 1, no padding): no copy to block.
bool reads_input_as_is(const Window3D& k) {
  return k.taps() == 1 && k.s == Dims3{1, 1, 1} && k.lo == Dims3{0, 0, 0} && k.hi == Dims3{0, 0, 0};
}

// The [count * out_pixels, taps * c] receptive-field matrix of batch items [b0, b0 + count).
Tensor columns(const Tensor& input, const Geometry3D& g, std::int64_t b0, std::int64_t count) {
  const Window3D& k = g.win;
  if (reads_input_as_is(k) && b0 == 0 && count == g.n) return reshape(input, {g.rows(), g.c});
  const Geometry3D part = batch_part(g, count);
  Tensor cols = Tensor::empty(input.dtype(), {part.rows(), k.taps() * g.c});
  if (cols.num_elements() == 0) return cols;
  dispatch_dtype(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (detail::kIsFloat<T>) {
      im2col<T>(detail::data_of<T>(input) + b0 * g.in_pixels() * g.c, detail::out_data_of<T>(cols), part);
    }
  });
  return cols;
}

Tensor batch_rows(const Tensor& m, const Geometry3D& g, std::int64_t b0, std::int64_t count) {
  if (b0 == 0 && count == g.n) return m;
  return slice(m, {b0 * g.out_pixels(), 0}, {count * g.out_pixels(), m.shape()[1]});
}

}  // namespace

Tensor conv3d(const Tensor& input, const Tensor& filter, const Window3D& win) {
  const char* where = "Conv3D";
  check_rank5(where, input, "input");
  check_rank5(where, filter, "filter");
  check_dtypes(where, input, filter);
  check_filter(where, win, filter.shape(), input.shape()[4]);
  if (is_half(input.dtype())) {
    return cast(conv3d(cast(input, DType::kFloat32), cast(filter, DType::kFloat32), win), input.dtype());
  }
  const Geometry3D g = Geometry3D::of(input.shape(), win);
  const std::int64_t out = filter.shape()[4];
  const Shape out_shape{g.n, g.out[0], g.out[1], g.out[2], out};
  if (g.rows() == 0 || out == 0) return Tensor::zeros(input.dtype(), out_shape);
  const Tensor fmat = reshape(filter, {win.taps() * g.c, out});
  const std::int64_t block = batch_block(g);
  Tensor output = Tensor::empty(input.dtype(), out_shape);
  if (!reads_input_as_is(win) && blocked_forward(input, fmat, output, g)) return output;
  for (std::int64_t b0 = 0; b0 < g.n; b0 += block) {
    const std::int64_t count = std::min(block, g.n - b0);
    const Tensor result = matmul(columns(input, g, b0, count), fmat);
    if (count == g.n) return reshape(result, out_shape);
    std::memcpy(static_cast<char*>(output.mutable_raw_data()) + b0 * g.out_pixels() * out * dtype_size(input.dtype()),
                result.raw_data(), static_cast<std::size_t>(result.nbytes()));
  }
  return output;
}

Tensor conv3d_backprop_input(const Shape& input_shape, const Tensor& filter, const Tensor& out_backprop,
                             const Window3D& win) {
  const char* where = "Conv3DBackpropInputV2";
  if (input_shape.size() != 5) fail<InvalidArgumentError>(where, "input tensor must have 5 dimensions");
  check_rank5(where, filter, "filter");
  check_dtypes(where, filter, out_backprop);
  if (filter.shape()[3] != input_shape[4]) {
    fail<InvalidArgumentError>(where,
                               "input and filter_sizes must have the same number of channels. Got {} for input and "
                               "{} for filter_sizes",
                               input_shape[4], filter.shape()[3]);
  }
  check_filter(where, win, filter.shape(), input_shape[4]);
  const Geometry3D g = Geometry3D::of(input_shape, win);
  check_out_backprop(where, out_backprop, g, filter.shape()[4]);
  if (is_half(filter.dtype())) {
    return cast(
        conv3d_backprop_input(input_shape, cast(filter, DType::kFloat32), cast(out_backprop, DType::kFloat32), win),
        filter.dtype());
  }
  const std::int64_t out = filter.shape()[4];
  Tensor dx = Tensor::zeros(filter.dtype(), input_shape);
  if (dx.num_elements() == 0 || g.rows() == 0) return dx;
  const Tensor fmat = reshape(filter, {win.taps() * g.c, out});
  const Tensor gmat = reshape(out_backprop, {g.rows(), out});
  if (blocked_backprop_input(fmat, gmat, dx, g)) return dx;
  const std::int64_t block = batch_block(g);
  for (std::int64_t b0 = 0; b0 < g.n; b0 += block) {
    const std::int64_t count = std::min(block, g.n - b0);
    const Tensor dcols = matmul(batch_rows(gmat, g, b0, count), fmat, false, true);
    dispatch_dtype(filter.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (detail::kIsFloat<T>) {
        col2im<T>(detail::data_of<T>(dcols), detail::out_data_of<T>(dx) + b0 * g.in_pixels() * g.c,
                  batch_part(g, count));
      }
    });
  }
  return dx;
}

Tensor conv3d_backprop_filter(const Tensor& input, const Shape& filter_shape, const Tensor& out_backprop,
                              const Window3D& win) {
  const char* where = "Conv3DBackpropFilterV2";
  check_rank5(where, input, "input");
  if (filter_shape.size() != 5) fail<InvalidArgumentError>(where, "filter_sizes must have 5 dimensions");
  check_dtypes(where, input, out_backprop);
  check_filter(where, win, filter_shape, input.shape()[4]);
  const Geometry3D g = Geometry3D::of(input.shape(), win);
  check_out_backprop(where, out_backprop, g, filter_shape[4]);
  if (is_half(input.dtype())) {
    return cast(
        conv3d_backprop_filter(cast(input, DType::kFloat32), filter_shape, cast(out_backprop, DType::kFloat32), win),
        input.dtype());
  }
  if (g.rows() == 0 || filter_shape[4] == 0) return Tensor::zeros(input.dtype(), filter_shape);
  const Tensor gmat = reshape(out_backprop, {g.rows(), filter_shape[4]});
  Tensor df = Tensor::empty(input.dtype(), filter_shape);
  if (!reads_input_as_is(win) && blocked_backprop_filter(input, gmat, df, g)) return df;
  const std::int64_t block = batch_block(g);
  Tensor total;
  for (std::int64_t b0 = 0; b0 < g.n; b0 += block) {
    const std::int64_t count = std::min(block, g.n - b0);
    const Tensor part = matmul(columns(input, g, b0, count), batch_rows(gmat, g, b0, count), true, false);
    total = total.valid() ? binary(BinaryOp::kAdd, total, part) : part;
  }
  return reshape(total, filter_shape);
}

}  // namespace tpustrategy
