#pragma once
// The geometry of a 2-D sliding window over NHWC tensors (convolutions and pooling): kernel size,
// strides, dilations and the padding, resolved to explicit (top, bottom, left, right) amounts.
// SAME and VALID resolve once, against the input's spatial size, so the gradient kernels and the
// recorded attributes only ever see explicit padding.
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "tpustrategy/core/tensor.h"

namespace tpustrategy {

enum class PaddingKind { kValid, kSame, kExplicit };

// TF's padding attribute: "SAME", "VALID" or "EXPLICIT" (exact spelling); InvalidArgumentError otherwise.
PaddingKind padding_kind(std::string_view padding);

struct Window2D {
  std::int64_t kh = 1, kw = 1;  // kernel (filter) height and width
  std::int64_t sh = 1, sw = 1;  // strides
  std::int64_t dh = 1, dw = 1;  // dilations
  std::int64_t pt = 0, pb = 0, pl = 0, pr = 0;

  std::int64_t out_h(std::int64_t h) const { return out_size(h, kh, sh, dh, pt + pb); }
  std::int64_t out_w(std::int64_t w) const { return out_size(w, kw, sw, dw, pl + pr); }
  static std::int64_t out_size(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t d, std::int64_t pad) {
    const std::int64_t span = in + pad - ((k - 1) * d + 1);
    return span < 0 ? 0 : span / s + 1;
  }

  // The attribute form recorded on tapes (10 integers) and back.
  std::vector<std::int64_t> to_attr() const { return {kh, kw, sh, sw, dh, dw, pt, pb, pl, pr}; }
  static Window2D from_attr(const std::vector<std::int64_t>& a);
};

// The window for an input of spatial size h x w: strides / dilations must be positive; `explicit_pads`
// (top, bottom, left, right, all >= 0) is read for PaddingKind::kExplicit only. `where` names the op in errors.
Window2D make_window(const char* where, std::int64_t h, std::int64_t w, std::int64_t kh, std::int64_t kw,
                     std::array<std::int64_t, 2> strides, std::array<std::int64_t, 2> dilations, PaddingKind padding,
                     std::array<std::int64_t, 4> explicit_pads = {0, 0, 0, 0});

// The sizes of one windowed op: input [n, h, w, c], output [n, oh, ow, *].
struct Geometry2D {
  std::int64_t n, h, w, c, oh, ow;
  Window2D win;
  std::int64_t rows() const { return n * oh * ow; }
  static Geometry2D of(const Shape& input_shape, const Window2D& win) {
    return Geometry2D{input_shape[0],
                      input_shape[1],
                      input_shape[2],
                      input_shape[3],
                      win.out_h(input_shape[1]),
                      win.out_w(input_shape[2]),
                      win};
  }
};

// Calls fn(ky, kx, iy, ix) for each tap of output pixel (oy, ox)'s window that reads inside the input.
template <typename Fn>
void for_each_window_tap(const Geometry2D& g, std::int64_t oy, std::int64_t ox, Fn&& fn) {
  const Window2D& k = g.win;
  for (std::int64_t ky = 0; ky < k.kh; ++ky) {
    const std::int64_t iy = oy * k.sh - k.pt + ky * k.dh;
    if (iy < 0 || iy >= g.h) continue;
    for (std::int64_t kx = 0; kx < k.kw; ++kx) {
      const std::int64_t ix = ox * k.sw - k.pl + kx * k.dw;
      if (ix >= 0 && ix < g.w) fn(ky, kx, iy, ix);
    }
  }
}

// InvalidArgumentError unless `t` has rank 4 (`what`: "input", "filter", ...).
void check_rank4(const char* where, const Tensor& t, const char* what);

}  // namespace tpustrategy
