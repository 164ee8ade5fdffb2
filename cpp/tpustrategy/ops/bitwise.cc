#include "tpustrategy/ops/bitwise.h"

#include <cstdint>
#include <type_traits>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/broadcast.h"
#include "tpustrategy/ops/eigen_util.h"
#include "tpustrategy/ops/extended_dtypes.h"
#include "tpustrategy/parallel/worker_pool.h"

namespace tpustrategy {

namespace {

const char* op_name(BitwiseOp op) {
  switch (op) {
    case BitwiseOp::kAnd:
      return "BitwiseAnd";
    case BitwiseOp::kOr:
      return "BitwiseOr";
    case BitwiseOp::kXor:
      return "BitwiseXor";
    case BitwiseOp::kLeftShift:
      return "LeftShift";
    case BitwiseOp::kRightShift:
      return "RightShift";
  }
  return "Bitwise";
}

template <typename T>
T apply(BitwiseOp op, T x, T y) {
  using U = std::make_unsigned_t<T>;
  constexpr T kMaxShift = static_cast<T>(sizeof(T) * 8 - 1);
  switch (op) {
    case BitwiseOp::kAnd:
      return static_cast<T>(x & y);
    case BitwiseOp::kOr:
      return static_cast<T>(x | y);
    case BitwiseOp::kXor:
      return static_cast<T>(x ^ y);
    case BitwiseOp::kLeftShift: {
      const T s = y < T(0) ? T(0) : (y > kMaxShift ? kMaxShift : y);
      return static_cast<T>(static_cast<std::uint64_t>(static_cast<U>(x)) << s);  // no int promotion
    }
    case BitwiseOp::kRightShift: {
      const T s = y < T(0) ? T(0) : (y > kMaxShift ? kMaxShift : y);
      return static_cast<T>(x >> s);  // arithmetic for signed T (C++20)
    }
  }
  return x;
}

void check_integer(const Tensor& t, const char* where) {
  detail::check_valid(t, where);
  if (!is_integer(t.dtype())) detail::fail_attr_not_allowed(where, t.dtype());
}

}  // namespace

Tensor bitwise(BitwiseOp op, const Tensor& a, const Tensor& b) {
  const char* where = op_name(op);
  check_integer(a, where);
  check_integer(b, where);
  if (a.dtype() != b.dtype()) {
    fail<InvalidArgumentError>(where,
                               "cannot compute {} as input #1(zero-based) was expected to be a {} tensor but is a {} "
                               "tensor",
                               where, dtype_name(a.dtype()), dtype_name(b.dtype()));
  }
  const Shape out_shape = broadcast_shapes(a.shape(), b.shape(), where);
  Tensor out = Tensor::empty(a.dtype(), out_shape);
  dispatch_any_dtype(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const BroadcastPlan plan = plan_broadcast({a.shape(), b.shape()}, out_shape);
      const T* pa = detail::data_of<T>(a);
      const T* pb = detail::data_of<T>(b);
      T* po = detail::out_data_of<T>(out);
      const std::int64_t sa = inner_stride(plan, 0), sb = inner_stride(plan, 1);
      parallel_for(plan.num_elements, kElementwiseGrain, [&](std::int64_t begin, std::int64_t end) {
        for_each_run(plan, begin, end, [&](std::int64_t o, const auto& off, std::int64_t len) {
          for (std::int64_t i = 0; i < len; ++i) po[o + i] = apply<T>(op, pa[off[0] + i * sa], pb[off[1] + i * sb]);
        });
      });
    }
  });
  return out;
}

Tensor invert(const Tensor& x) {
  check_integer(x, "Invert");
  Tensor out = Tensor::empty(x.dtype(), x.shape());
  dispatch_any_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const T* src = detail::data_of<T>(x);
      T* dst = detail::out_data_of<T>(out);
      for (std::int64_t i = 0, n = x.num_elements(); i < n; ++i) dst[i] = static_cast<T>(~src[i]);
    }
  });
  return out;
}

}  // namespace tpustrategy
