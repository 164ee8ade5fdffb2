#include "tpustrategy/ops/conv.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

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

using Geometry = Geometry2D;

Geometry geometry(const Shape& input_shape, const Window2D& win) { return Geometry2D::of(input_shape, win); }

bool is_half(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }

void check_dtype(const char* where, const Tensor& a, const Tensor& b, bool allow_int32) {
  if (a.dtype() != b.dtype()) {
    fail<InvalidArgumentError>(where,
                               "cannot compute {} as input #1(zero-based) was expected to be a {} tensor but is a {} "
                               "tensor",
                               where, dtype_name(a.dtype()), dtype_name(b.dtype()));
  }
  if (!is_floating(a.dtype()) && !(allow_int32 && a.dtype() == DType::kInt32)) {
    fail<InvalidArgumentError>(where,
                               "Value for attr 'T' of {} is not in the list of allowed values: half, bfloat16, "
                               "float, double{}",
                               dtype_name(a.dtype()), allow_int32 ? ", int32" : "");
  }
}

void check_window(const char* where, const Window2D& win, const Shape& filter_shape) {
  if (win.kh != filter_shape[0] || win.kw != filter_shape[1]) {
    fail<InternalError>(where, "window {}x{} does not match the filter {}", win.kh, win.kw,
                        dims_to_string(filter_shape));
  }
}

void check_out_backprop(const char* where, const Tensor& g, const Geometry& geo, std::int64_t out_channels) {
  check_rank4(where, g, "out_backprop");
  const Shape expected{geo.n, geo.oh, geo.ow, out_channels};
  if (g.shape() != expected) {
    fail<InvalidArgumentError>(where, "out_backprop has shape {} but the convolution's output has shape {}",
                               dims_to_string(g.shape()), dims_to_string(expected));
  }
}

// Calls fn(column, input) for each window tap of the receptive-field rows [r0, r1) in order: `column` is the tap's
// first element counted from row r0's start (rows of kh * kw * cg elements), `input` the offset of x[n, iy, ix, 0]
// it reads, or -1 in the padding.
template <typename Fn>
void for_each_row_tap(const Geometry& g, std::int64_t cg, std::int64_t r0, std::int64_t r1, Fn&& fn) {
  const Window2D& k = g.win;
  std::int64_t column = 0;
  for (std::int64_t r = r0; r < r1; ++r) {
    const std::int64_t b = r / (g.oh * g.ow), oy = (r / g.ow) % g.oh, ox = r % g.ow;
    for (std::int64_t ky = 0; ky < k.kh; ++ky) {
      const std::int64_t iy = oy * k.sh - k.pt + ky * k.dh;
      for (std::int64_t kx = 0; kx < k.kw; ++kx, column += cg) {
        const std::int64_t ix = ox * k.sw - k.pl + kx * k.dw;
        const bool inside = iy >= 0 && iy < g.h && ix >= 0 && ix < g.w;
        fn(column, inside ? ((b * g.h + iy) * g.w + ix) * g.c : std::int64_t{-1});
      }
    }
  }
}

// Rows [r0, r1) of receptive fields: cols[r - r0, (ky * kw + kx) * cg + ci] = x[n, iy, ix, c0 + ci] (zero in the
// padding).
template <typename T>
void im2col_rows(const T* x, T* cols, const Geometry& g, std::int64_t c0, std::int64_t cg, std::int64_t r0,
                 std::int64_t r1) {
  for_each_row_tap(g, cg, r0, r1, [&](std::int64_t column, std::int64_t input) {
    if (input < 0) {
      std::fill_n(cols + column, cg, T(0));
    } else {
      std::copy_n(x + input + c0, cg, cols + column);
    }
  });
}

// The whole receptive-field matrix, rows in parallel.
template <typename T>
void im2col(const T* x, T* cols, const Geometry& g, std::int64_t c0, std::int64_t cg) {
  const std::int64_t row_len = g.win.kh * g.win.kw * cg;
  const std::int64_t grain = std::max<std::int64_t>(1, kElementwiseGrain / std::max<std::int64_t>(row_len, 1));
  parallel_for(g.rows(), grain, [&](std::int64_t begin, std::int64_t end) {
    im2col_rows(x, cols + begin * row_len, g, c0, cg, begin, end);
  });
}

// The adjoint of im2col_rows: dx[n, iy, ix, c0 + ci] += cols[r - r0, ...] for rows [r0, r1), in order.
template <typename T>
void col2im_rows(const T* cols, T* dx, const Geometry& g, std::int64_t c0, std::int64_t cg, std::int64_t r0,
                 std::int64_t r1) {
  for_each_row_tap(g, cg, r0, r1, [&](std::int64_t column, std::int64_t input) {
    if (input < 0) return;
    T* d = dx + input + c0;
    const T* src = cols + column;
    for (std::int64_t ci = 0; ci < cg; ++ci) d[ci] += src[ci];
  });
}

// The adjoint of im2col over the whole matrix (batch items in parallel: their gradients are disjoint).
template <typename T>
void col2im(const T* cols, T* dx, const Geometry& g, std::int64_t c0, std::int64_t cg) {
  const std::int64_t row_len = g.win.kh * g.win.kw * cg, item_rows = g.oh * g.ow;
  parallel_for(g.n, 1, [&](std::int64_t begin, std::int64_t end) {
    col2im_rows(cols + begin * item_rows * row_len, dx, g, c0, cg, begin * item_rows, end * item_rows);
  });
}

// Receptive-field matrices are built for a few batch items at a time, so im2col's copy stays below this many
// elements (64 MB of float32) whatever the batch: bounded memory, and the block stays warm for the GEMM.
constexpr std::int64_t kMaxColumnElements = std::int64_t{1} << 24;

// Batch items per im2col block for rows of `row_len` elements.
std::int64_t batch_block(const Geometry& g, std::int64_t row_len) {
  const std::int64_t per_item = std::max<std::int64_t>(1, g.oh * g.ow * row_len);
  return std::clamp<std::int64_t>(kMaxColumnElements / per_item, 1, std::max<std::int64_t>(g.n, 1));
}

// Geometry of batch items [b0, b0 + count) alone.
Geometry batch_part(const Geometry& g, std::int64_t count) {
  Geometry part = g;
  part.n = count;
  return part;
}

// Whether the receptive-field matrix is the input itself (a 1x1 window, stride 1, no padding): no copy to block.
bool reads_input_as_is(const Window2D& k) {
  return k.kh == 1 && k.kw == 1 && k.sh == 1 && k.sw == 1 && k.pt + k.pb + k.pl + k.pr == 0;
}

// The [rows, kh*kw*cg] receptive-field matrix of channels [c0, c0 + cg) of batch items [b0, b0 + count).
Tensor columns(const Tensor& input, const Geometry& g, std::int64_t c0, std::int64_t cg, std::int64_t b0,
               std::int64_t count) {
  const Window2D& k = g.win;
  if (reads_input_as_is(k) && cg == g.c && b0 == 0 && count == g.n) return reshape(input, {g.rows(), g.c});
  const Geometry part = batch_part(g, count);
  Tensor cols = Tensor::empty(input.dtype(), {part.rows(), k.kh * k.kw * cg});
  if (cols.num_elements() == 0) return cols;
  dispatch_dtype(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      im2col<T>(detail::data_of<T>(input) + b0 * g.h * g.w * g.c, detail::out_data_of<T>(cols), part, c0, cg);
    }
  });
  return cols;
}

// Rows of batch items [b0, b0 + count) of a [n * oh * ow, channels] matrix.
Tensor batch_rows(const Tensor& m, const Geometry& g, std::int64_t b0, std::int64_t count) {
  if (b0 == 0 && count == g.n) return m;
  return slice(m, {b0 * g.oh * g.ow, 0}, {count * g.oh * g.ow, m.shape()[1]});
}

// Columns [c0, c0 + count) of a matrix.
Tensor column_block(const Tensor& m, std::int64_t c0, std::int64_t count) {
  if (c0 == 0 && count == m.shape()[1]) return m;
  return slice(m, {0, c0}, {m.shape()[0], count});
}

template <typename Fn>
void dispatch_float(DType dtype, Fn&& fn) {
  if (dtype == DType::kFloat32) {
    fn(float{});
  } else if (dtype == DType::kFloat64) {
    fn(double{});
  }
}

// conv2d of one group through blocked_im2col_gemm (float32 / float64 with BLAS); false when it does not apply.
bool blocked_forward(const Tensor& input, const Tensor& fmat, Tensor& output, const Geometry& g) {
  return detail::with_blas_dtype(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = detail::data_of<T>(input);
    return detail::blocked_im2col_gemm<T>(
        g.rows(), fmat.shape()[0], fmat.shape()[1], detail::data_of<T>(fmat), detail::out_data_of<T>(output),
        [&](std::int64_t r0, std::int64_t r1, T* cols) { im2col_rows(x, cols, g, 0, g.c, r0, r1); });
  });
}

// conv2d_backprop_input of one group through blocked_gemm_col2im; false when it does not apply.
bool blocked_backprop_input(const Tensor& fmat, const Tensor& gmat, Tensor& dx, const Geometry& g) {
  return detail::with_blas_dtype(fmat.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* d = detail::out_data_of<T>(dx);
    return detail::blocked_gemm_col2im<T>(
        g.n, g.oh * g.ow, fmat.shape()[0], fmat.shape()[1], detail::data_of<T>(gmat), detail::data_of<T>(fmat),
        [&](std::int64_t r0, std::int64_t r1, const T* dcols) { col2im_rows(dcols, d, g, 0, g.c, r0, r1); });
  });
}

// conv2d_backprop_filter of one group through blocked_im2col_gemm_tn; false when it does not apply.
bool blocked_backprop_filter(const Tensor& input, const Tensor& gmat, Tensor& df, const Geometry& g) {
  return detail::with_blas_dtype(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = detail::data_of<T>(input);
    return detail::blocked_im2col_gemm_tn<T>(
        g.rows(), g.win.kh * g.win.kw * g.c, gmat.shape()[1], detail::data_of<T>(gmat), detail::out_data_of<T>(df),
        [&](std::int64_t r0, std::int64_t r1, T* cols) { im2col_rows(x, cols, g, 0, g.c, r0, r1); });
  });
}

std::int64_t groups_of(const char* where, std::int64_t in_depth, const Shape& filter_shape) {
  const std::int64_t fd = filter_shape[2], out = filter_shape[3];
  if (fd <= 0 || in_depth % fd != 0) {
    fail<InvalidArgumentError>(where, "input depth must be evenly divisible by filter depth: {} vs {}", in_depth, fd);
  }
  const std::int64_t groups = in_depth / fd;
  if (out % groups != 0) {
    fail<InvalidArgumentError>(where, "output depth must be evenly divisible by number of groups: {} vs {}", out,
                               groups);
  }
  return groups;
}

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& filter, const Window2D& win) {
  const char* where = "Conv2D";
  check_rank4(where, input, "convolution input");
  check_rank4(where, filter, "convolution filter");
  check_dtype(where, input, filter, true);
  check_window(where, win, filter.shape());
  const std::int64_t groups = groups_of(where, input.shape()[3], filter.shape());
  if (is_half(input.dtype())) {
    return cast(conv2d(cast(input, DType::kFloat32), cast(filter, DType::kFloat32), win), input.dtype());
  }
  const Geometry g = geometry(input.shape(), win);
  const std::int64_t cg = filter.shape()[2], out = filter.shape()[3], og = out / groups;
  const Tensor fmat = reshape(filter, {win.kh * win.kw * cg, out});
  const std::int64_t block = batch_block(g, win.kh * win.kw * cg);
  Tensor output = Tensor::empty(input.dtype(), {g.n, g.oh, g.ow, out});
  if (groups == 1 && !reads_input_as_is(win) && blocked_forward(input, fmat, output, g)) return output;
  for (std::int64_t b0 = 0; b0 < g.n; b0 += block) {
    const std::int64_t count = std::min(block, g.n - b0);
    std::vector<Tensor> parts;
    for (std::int64_t gi = 0; gi < groups; ++gi) {
      parts.push_back(matmul(columns(input, g, gi * cg, cg, b0, count), column_block(fmat, gi * og, og)));
    }
    const Tensor result = groups == 1 ? parts[0] : concat(parts, 1);
    if (count == g.n) return reshape(result, {g.n, g.oh, g.ow, out});
    std::memcpy(static_cast<char*>(output.mutable_raw_data()) + b0 * g.oh * g.ow * out * dtype_size(input.dtype()),
                result.raw_data(), static_cast<std::size_t>(result.nbytes()));
  }
  return output;
}

Tensor conv2d_backprop_input(const Shape& input_shape, const Tensor& filter, const Tensor& out_backprop,
                             const Window2D& win) {
  const char* where = "Conv2DBackpropInput";
  if (input_shape.size() != 4) {
    fail<InvalidArgumentError>(where, "input_sizes must be 4-dimensional, got {}", dims_to_string(input_shape));
  }
  check_rank4(where, filter, "filter");
  check_dtype(where, filter, out_backprop, false);
  check_window(where, win, filter.shape());
  const std::int64_t groups = groups_of(where, input_shape[3], filter.shape());
  const Geometry g = geometry(input_shape, win);
  check_out_backprop(where, out_backprop, g, filter.shape()[3]);
  if (is_half(filter.dtype())) {
    return cast(
        conv2d_backprop_input(input_shape, cast(filter, DType::kFloat32), cast(out_backprop, DType::kFloat32), win),
        filter.dtype());
  }
  const std::int64_t cg = filter.shape()[2], out = filter.shape()[3], og = out / groups;
  const Tensor fmat = reshape(filter, {win.kh * win.kw * cg, out});
  const Tensor gmat = reshape(out_backprop, {g.rows(), out});
  Tensor dx = Tensor::zeros(filter.dtype(), input_shape);
  if (dx.num_elements() == 0 || g.rows() == 0) return dx;
  if (groups == 1 && blocked_backprop_input(fmat, gmat, dx, g)) return dx;
  const std::int64_t block = batch_block(g, win.kh * win.kw * cg);
  for (std::int64_t b0 = 0; b0 < g.n; b0 += block) {
    const std::int64_t count = std::min(block, g.n - b0);
    const Tensor rows = batch_rows(gmat, g, b0, count);
    for (std::int64_t gi = 0; gi < groups; ++gi) {
      const Tensor dcols = matmul(column_block(rows, gi * og, og), column_block(fmat, gi * og, og), false, true);
      dispatch_dtype(filter.dtype(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (detail::kIsFloat<T>) {
          col2im<T>(detail::data_of<T>(dcols), detail::out_data_of<T>(dx) + b0 * g.h * g.w * g.c, batch_part(g, count),
                    gi * cg, cg);
        }
      });
    }
  }
  return dx;
}

Tensor conv2d_backprop_filter(const Tensor& input, const Shape& filter_shape, const Tensor& out_backprop,
                              const Window2D& win) {
  const char* where = "Conv2DBackpropFilter";
  check_rank4(where, input, "input");
  if (filter_shape.size() != 4) {
    fail<InvalidArgumentError>(where, "filter_sizes must be 4-dimensional, got {}", dims_to_string(filter_shape));
  }
  check_dtype(where, input, out_backprop, false);
  check_window(where, win, filter_shape);
  const std::int64_t groups = groups_of(where, input.shape()[3], filter_shape);
  const Geometry g = geometry(input.shape(), win);
  check_out_backprop(where, out_backprop, g, filter_shape[3]);
  if (is_half(input.dtype())) {
    return cast(
        conv2d_backprop_filter(cast(input, DType::kFloat32), filter_shape, cast(out_backprop, DType::kFloat32), win),
        input.dtype());
  }
  const std::int64_t cg = filter_shape[2], out = filter_shape[3], og = out / groups;
  if (g.rows() == 0) return Tensor::zeros(input.dtype(), filter_shape);
  const Tensor gmat = reshape(out_backprop, {g.rows(), out});
  if (groups == 1 && !reads_input_as_is(win)) {
    Tensor df = Tensor::empty(input.dtype(), filter_shape);
    if (blocked_backprop_filter(input, gmat, df, g)) return df;
  }
  const std::int64_t block = batch_block(g, win.kh * win.kw * cg);
  Tensor total;
  for (std::int64_t b0 = 0; b0 < g.n; b0 += block) {
    const std::int64_t count = std::min(block, g.n - b0);
    const Tensor rows = batch_rows(gmat, g, b0, count);
    std::vector<Tensor> parts;
    for (std::int64_t gi = 0; gi < groups; ++gi) {
      parts.push_back(matmul(columns(input, g, gi * cg, cg, b0, count), column_block(rows, gi * og, og), true, false));
    }
    const Tensor result = groups == 1 ? parts[0] : concat(parts, 1);
    total = total.valid() ? binary(BinaryOp::kAdd, total, result) : result;
  }
  return reshape(total, {filter_shape[0], filter_shape[1], cg, out});
}

namespace {

void check_depthwise(const char* where, std::int64_t in_depth, const Shape& filter_shape) {
  if (filter_shape[2] != in_depth) {
    fail<InvalidArgumentError>(where, "input and filter must have the same depth: {} vs {}", in_depth, filter_shape[2]);
  }
}

// Calls fn(b, oy, ox, ky, kx, iy, ix) for every tap that reads inside the input, batch items [b0, b1) only.
template <typename Fn>
void for_each_tap(const Geometry& g, std::int64_t b0, std::int64_t b1, Fn&& fn) {
  for (std::int64_t b = b0; b < b1; ++b) {
    for (std::int64_t oy = 0; oy < g.oh; ++oy) {
      for (std::int64_t ox = 0; ox < g.ow; ++ox) {
        for_each_window_tap(g, oy, ox, [&](auto ky, auto kx, auto iy, auto ix) { fn(b, oy, ox, ky, kx, iy, ix); });
      }
    }
  }
}

template <typename T>
void depthwise_forward(const T* x, const T* f, T* y, const Geometry& g, std::int64_t m) {
  const std::int64_t c = g.c, cm = c * m;
  parallel_for(g.n, 1, [&](std::int64_t b0, std::int64_t b1) {
    std::fill_n(y + b0 * g.oh * g.ow * cm, (b1 - b0) * g.oh * g.ow * cm, T(0));
    for_each_tap(g, b0, b1, [&](auto b, auto oy, auto ox, auto ky, auto kx, auto iy, auto ix) {
      const T* xp = x + ((b * g.h + iy) * g.w + ix) * c;
      const T* fp = f + (ky * g.win.kw + kx) * cm;
      T* yp = y + ((b * g.oh + oy) * g.ow + ox) * cm;
      for (std::int64_t ci = 0; ci < c; ++ci) {
        for (std::int64_t mi = 0; mi < m; ++mi) yp[ci * m + mi] += xp[ci] * fp[ci * m + mi];
      }
    });
  });
}

template <typename T>
void depthwise_input_grad(const T* f, const T* gy, T* dx, const Geometry& g, std::int64_t m) {
  const std::int64_t c = g.c, cm = c * m;
  parallel_for(g.n, 1, [&](std::int64_t b0, std::int64_t b1) {
    for_each_tap(g, b0, b1, [&](auto b, auto oy, auto ox, auto ky, auto kx, auto iy, auto ix) {
      T* dp = dx + ((b * g.h + iy) * g.w + ix) * c;
      const T* fp = f + (ky * g.win.kw + kx) * cm;
      const T* gp = gy + ((b * g.oh + oy) * g.ow + ox) * cm;
      for (std::int64_t ci = 0; ci < c; ++ci) {
        T s(0);
        for (std::int64_t mi = 0; mi < m; ++mi) s += gp[ci * m + mi] * fp[ci * m + mi];
        dp[ci] += s;
      }
    });
  });
}

template <typename T>
void depthwise_filter_grad(const T* x, const T* gy, T* df, const Geometry& g, std::int64_t m) {
  const std::int64_t c = g.c, cm = c * m, taps = g.win.kh * g.win.kw;
  // Each task owns whole taps of the filter, so no two tasks write the same element.
  parallel_for(taps, 1, [&](std::int64_t t0, std::int64_t t1) {
    for_each_tap(g, 0, g.n, [&](auto b, auto oy, auto ox, auto ky, auto kx, auto iy, auto ix) {
      const std::int64_t tap = ky * g.win.kw + kx;
      if (tap < t0 || tap >= t1) return;
      const T* xp = x + ((b * g.h + iy) * g.w + ix) * c;
      const T* gp = gy + ((b * g.oh + oy) * g.ow + ox) * cm;
      T* dp = df + tap * cm;
      for (std::int64_t ci = 0; ci < c; ++ci) {
        for (std::int64_t mi = 0; mi < m; ++mi) dp[ci * m + mi] += xp[ci] * gp[ci * m + mi];
      }
    });
  });
}

}  // namespace

Tensor depthwise_conv2d(const Tensor& input, const Tensor& filter, const Window2D& win) {
  const char* where = "DepthwiseConv2dNative";
  check_rank4(where, input, "input");
  check_rank4(where, filter, "filter");
  check_dtype(where, input, filter, false);
  check_window(where, win, filter.shape());
  check_depthwise(where, input.shape()[3], filter.shape());
  if (is_half(input.dtype())) {
    return cast(depthwise_conv2d(cast(input, DType::kFloat32), cast(filter, DType::kFloat32), win), input.dtype());
  }
  const Geometry g = geometry(input.shape(), win);
  const std::int64_t m = filter.shape()[3];
  Tensor out = Tensor::empty(input.dtype(), {g.n, g.oh, g.ow, g.c * m});
  if (out.num_elements() == 0) return out;
  dispatch_float(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    depthwise_forward<T>(detail::data_of<T>(input), detail::data_of<T>(filter), detail::out_data_of<T>(out), g, m);
  });
  return out;
}

Tensor depthwise_conv2d_backprop_input(const Shape& input_shape, const Tensor& filter, const Tensor& out_backprop,
                                       const Window2D& win) {
  const char* where = "DepthwiseConv2dNativeBackpropInput";
  if (input_shape.size() != 4) {
    fail<InvalidArgumentError>(where, "input_sizes must be 4-dimensional, got {}", dims_to_string(input_shape));
  }
  check_rank4(where, filter, "filter");
  check_dtype(where, filter, out_backprop, false);
  check_window(where, win, filter.shape());
  check_depthwise(where, input_shape[3], filter.shape());
  const Geometry g = geometry(input_shape, win);
  const std::int64_t m = filter.shape()[3];
  check_out_backprop(where, out_backprop, g, g.c * m);
  if (is_half(filter.dtype())) {
    return cast(depthwise_conv2d_backprop_input(input_shape, cast(filter, DType::kFloat32),
                                                cast(out_backprop, DType::kFloat32), win),
                filter.dtype());
  }
  Tensor dx = Tensor::zeros(filter.dtype(), input_shape);
  if (dx.num_elements() == 0) return dx;
  dispatch_float(filter.dtype(), [&](auto tag) {
    using T = decltype(tag);
    depthwise_input_grad<T>(detail::data_of<T>(filter), detail::data_of<T>(out_backprop), detail::out_data_of<T>(dx), g,
                            m);
  });
  return dx;
}

Tensor depthwise_conv2d_backprop_filter(const Tensor& input, const Shape& filter_shape, const Tensor& out_backprop,
                                        const Window2D& win) {
  const char* where = "DepthwiseConv2dNativeBackpropFilter";
  check_rank4(where, input, "input");
  if (filter_shape.size() != 4) {
    fail<InvalidArgumentError>(where, "filter_sizes must be 4-dimensional, got {}", dims_to_string(filter_shape));
  }
  check_dtype(where, input, out_backprop, false);
  check_window(where, win, filter_shape);
  check_depthwise(where, input.shape()[3], filter_shape);
  const Geometry g = geometry(input.shape(), win);
  const std::int64_t m = filter_shape[3];
  check_out_backprop(where, out_backprop, g, g.c * m);
  if (is_half(input.dtype())) {
    return cast(depthwise_conv2d_backprop_filter(cast(input, DType::kFloat32), filter_shape,
                                                 cast(out_backprop, DType::kFloat32), win),
                input.dtype());
  }
  Tensor df = Tensor::zeros(input.dtype(), filter_shape);
  if (df.num_elements() == 0) return df;
  dispatch_float(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    depthwise_filter_grad<T>(detail::data_of<T>(input), detail::data_of<T>(out_backprop), detail::out_data_of<T>(df), g,
                             m);
  });
  return df;
}

}  // namespace tpustrategy
