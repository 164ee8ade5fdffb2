#include "tpustrategy/ops/cast.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include "tpustrategy/ops/bfloat16_widen.h"
#include "tpustrategy/ops/broadcast.h"
#include "tpustrategy/ops/eigen_util.h"
#include "tpustrategy/ops/extended_dtypes.h"
#include "tpustrategy/parallel/worker_pool.h"

namespace tpustrategy {

namespace {

using detail::ConstVecMap;
using detail::VecMap;

// Float -> integer without undefined behaviour: truncate, saturate, NaN -> 0.
template <typename D, typename F>
D saturating_int(F value) {
  const auto v = static_cast<double>(value);
  if (std::isnan(v)) return 0;
  if (v <= static_cast<double>(std::numeric_limits<D>::lowest())) return std::numeric_limits<D>::lowest();
  if (v >= static_cast<double>(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
  return static_cast<D>(v);
}

template <typename S, typename D>
void cast_range(const S* src, D* dst, std::int64_t n) {
  using CS = detail::Compute<S>;
  if constexpr (std::is_same_v<D, bool>) {
    VecMap<bool>(dst, n) = ConstVecMap<S>(src, n).template cast<CS>() != CS(0);
  } else if constexpr (std::is_integral_v<D> && !std::is_same_v<S, bool> && detail::kIsFloat<S>) {
    for (std::int64_t i = 0; i < n; ++i) dst[i] = saturating_int<D>(src[i]);
  } else if constexpr (std::is_same_v<S, bool>) {
    for (std::int64_t i = 0; i < n; ++i) dst[i] = static_cast<D>(src[i] ? 1.0f : 0.0f);
  } else if constexpr (std::is_same_v<S, Eigen::bfloat16> && std::is_same_v<D, float>) {
    detail::widen_bfloat16(src, dst, n);
  } else if constexpr (sizeof(S) == 2 && sizeof(D) == 2) {  // half <-> bfloat16 via float
    VecMap<D>(dst, n) = ConstVecMap<S>(src, n).template cast<float>().template cast<D>();
  } else {
    VecMap<D>(dst, n) = ConstVecMap<S>(src, n).template cast<D>();
  }
}

}  // namespace

Tensor cast(const Tensor& x, DType dtype) {
  detail::check_valid(x, "Cast");
  if (x.dtype() == dtype) return x;
  Tensor out = Tensor::empty(dtype, x.shape());
  if (is_extended(x.dtype()) || is_extended(dtype)) {
    detail::cast_any(x, out);
    return out;
  }
  dispatch_dtype(x.dtype(), [&](auto src_tag) {
    using S = decltype(src_tag);
    dispatch_dtype(dtype, [&](auto dst_tag) {
      using D = decltype(dst_tag);
      const S* src = detail::data_of<S>(x);
      D* dst = detail::out_data_of<D>(out);
      parallel_for(x.num_elements(), kElementwiseGrain,
                   [&](std::int64_t b, std::int64_t e) { cast_range<S, D>(src + b, dst + b, e - b); });
    });
  });
  return out;
}

}  // namespace tpustrategy
