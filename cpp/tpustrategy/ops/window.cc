#include "tpustrategy/ops/window.h"

#include <algorithm>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/broadcast.h"

namespace tpustrategy {

PaddingKind padding_kind(std::string_view padding) {
  if (padding == "SAME") return PaddingKind::kSame;
  if (padding == "VALID") return PaddingKind::kValid;
  if (padding == "EXPLICIT") return PaddingKind::kExplicit;
  fail<InvalidArgumentError>("padding",
                             "Value for attr 'padding' of \"{}\" is not in the list of allowed values: \"SAME\", "
                             "\"VALID\", \"EXPLICIT\"",
                             padding);
}

Window2D Window2D::from_attr(const std::vector<std::int64_t>& a) {
  if (a.size() != 10) fail<InternalError>("Window2D", "expected 10 window attributes, got {}", a.size());
  return Window2D{a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]};
}

Window2D make_window(const char* where, std::int64_t h, std::int64_t w, std::int64_t kh, std::int64_t kw,
                     std::array<std::int64_t, 2> strides, std::array<std::int64_t, 2> dilations, PaddingKind padding,
                     std::array<std::int64_t, 4> explicit_pads) {
  if (strides[0] <= 0 || strides[1] <= 0) {
    fail<InvalidArgumentError>(where, "Row and column strides should be larger than 0, got [{}, {}]", strides[0],
                               strides[1]);
  }
  if (dilations[0] <= 0 || dilations[1] <= 0) {
    fail<InvalidArgumentError>(where, "Dilated rates should be larger than 0, got [{}, {}]", dilations[0],
                               dilations[1]);
  }
  if (kh <= 0 || kw <= 0) {
    fail<InvalidArgumentError>(where, "Sliding window ksize must be positive, got [{}, {}]", kh, kw);
  }
  Window2D win{kh, kw, strides[0], strides[1], dilations[0], dilations[1], 0, 0, 0, 0};
  if (padding == PaddingKind::kExplicit) {
    for (std::int64_t p : explicit_pads) {
      if (p < 0) {
        fail<InvalidArgumentError>(where, "All elements of explicit_paddings must be nonnegative, got [{}, {}, {}, {}]",
                                   explicit_pads[0], explicit_pads[1], explicit_pads[2], explicit_pads[3]);
      }
    }
    win.pt = explicit_pads[0];
    win.pb = explicit_pads[1];
    win.pl = explicit_pads[2];
    win.pr = explicit_pads[3];
  } else if (padding == PaddingKind::kSame) {
    // TF's SAME: out = ceil(in / stride), the padding split with the odd element at the end.
    auto split = [](std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t d, std::int64_t& lo,
                    std::int64_t& hi) {
      const std::int64_t out = (in + s - 1) / s;
      const std::int64_t total = std::max<std::int64_t>((out - 1) * s + (k - 1) * d + 1 - in, 0);
      lo = total / 2;
      hi = total - lo;
    };
    split(h, kh, win.sh, win.dh, win.pt, win.pb);
    split(w, kw, win.sw, win.dw, win.pl, win.pr);
  }
  return win;
}

void check_rank4(const char* where, const Tensor& t, const char* what) {
  if (!t.valid()) fail<ValueError>(where, "the {} tensor is empty (default-constructed)", what);
  if (t.rank() != 4) {
    fail<InvalidArgumentError>(where, "{} must be 4-dimensional: {}", what, dims_to_string(t.shape()));
  }
}

}  // namespace tpustrategy
