#include "tpustrategy/ops/creation.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <type_traits>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/broadcast.h"
#include "tpustrategy/ops/cast.h"
#include "tpustrategy/ops/eigen_util.h"
#include "tpustrategy/ops/shape_ops.h"
#include "tpustrategy/parallel/worker_pool.h"

namespace tpustrategy {

namespace {

template <typename E>
void select_runs(const BroadcastPlan& plan, const bool* c, const E* x, const E* y, E* out) {
  const std::int64_t sc = inner_stride(plan, 0), sx = inner_stride(plan, 1), sy = inner_stride(plan, 2);
  parallel_for(plan.num_elements, kElementwiseGrain, [&](std::int64_t begin, std::int64_t end) {
    for_each_run(plan, begin, end, [&](std::int64_t o, const auto& off, std::int64_t len) {
      const bool* pc = c + off[0];
      const E* px = x + off[1];
      const E* py = y + off[2];
      if (sc == 1 && sx == 1 && sy == 1) {
        detail::VecMap<E>(out + o, len) =
            detail::ConstVecMap<bool>(pc, len).select(detail::ConstVecMap<E>(px, len), detail::ConstVecMap<E>(py, len));
      } else {
        for (std::int64_t i = 0; i < len; ++i) out[o + i] = pc[i * sc] ? px[i * sx] : py[i * sy];
      }
    });
  });
}

void check_scalar(const Tensor& t, const char* where, const char* what) {
  detail::check_valid(t, where);
  if (t.rank() != 0) {
    fail<InvalidArgumentError>(where, "{} must be a scalar, but has shape {}", what, dims_to_string(t.shape()));
  }
}

}  // namespace

Tensor fill(const Shape& shape, const Tensor& value) {
  check_scalar(value, "Fill", "value");
  check_output_shape(shape, "Fill");
  return broadcast_to(value, shape);
}

Tensor zeros(const Shape& shape, DType dtype) {
  check_output_shape(shape, "Zeros");
  return Tensor::zeros(dtype, shape);
}

Tensor ones(const Shape& shape, DType dtype) { return fill(shape, cast(Tensor::scalar<bool>(true), dtype)); }

Tensor zeros_like(const Tensor& x, std::optional<DType> dtype) {
  detail::check_valid(x, "ZerosLike");
  return zeros(x.shape(), dtype.value_or(x.dtype()));
}

Tensor ones_like(const Tensor& x, std::optional<DType> dtype) {
  detail::check_valid(x, "OnesLike");
  return ones(x.shape(), dtype.value_or(x.dtype()));
}

Tensor range(const Tensor& start, const Tensor& limit, const Tensor& delta) {
  check_scalar(start, "Range", "start");
  check_scalar(limit, "Range", "limit");
  check_scalar(delta, "Range", "delta");
  const DType dt = start.dtype();
  if (limit.dtype() != dt || delta.dtype() != dt) {
    fail<TypeError>("Range", "start, limit and delta must have the same dtype, got {}, {} and {}", dtype_name(dt),
                    dtype_name(limit.dtype()), dtype_name(delta.dtype()));
  }
  if (dt == DType::kBool) fail<TypeError>("Range", "Range does not support bool");
  // TF 2.21: Range's Tidx excludes uint8 and the complex dtypes; the other narrow / unsigned integers pass
  // the attr check but have no CPU kernel (NotFoundError from dispatch_dtype below).
  if (dt == DType::kUInt8 || is_complex(dt)) {
    fail<InvalidArgumentError>("Range",
                               "Value for attr 'Tidx' of {} is not in the list of allowed values: bfloat16, half, "
                               "float, double, int8, int16, int32, int64, uint16, uint32, uint64",
                               dtype_name(dt));
  }
  Tensor out;
  dispatch_dtype(dt, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const std::int64_t s = detail::int_values(start)[0], l = detail::int_values(limit)[0],
                         d = detail::int_values(delta)[0];
      if (d == 0) fail<InvalidArgumentError>("Range", "Requires delta != 0: {}", d);
      if (d > 0 && s > l) fail<InvalidArgumentError>("Range", "Requires start <= limit when delta > 0: {}/{}", s, l);
      if (d < 0 && s < l) fail<InvalidArgumentError>("Range", "Requires start >= limit when delta < 0: {}/{}", s, l);
      using U = std::uint64_t;
      const U span = d > 0 ? U(l) - U(s) : U(s) - U(l);
      const U step = d > 0 ? U(d) : U(0) - U(d);
      const U size = span / step + (span % step != 0);
      if (size > (U{1} << 48))
        fail<InvalidArgumentError>("Range", "Requires the result size to be at most 2^48, got {}", size);
      out = Tensor::empty(dt, {static_cast<std::int64_t>(size)});
      T* p = detail::out_data_of<T>(out);
      for (U i = 0; i < size; ++i) p[i] = static_cast<T>(static_cast<std::int64_t>(U(s) + i * U(d)));
    } else if constexpr (!std::is_same_v<T, bool>) {
      const double s = start.to_vector<double>()[0], l = limit.to_vector<double>()[0], d = delta.to_vector<double>()[0];
      if (!std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d)) {
        fail<InvalidArgumentError>("Range", "start, limit and delta must be finite, got {}, {}, {}", s, l, d);
      }
      if (d == 0) fail<InvalidArgumentError>("Range", "Requires delta != 0: {}", d);
      if (d > 0 && s > l) fail<InvalidArgumentError>("Range", "Requires start <= limit when delta > 0: {}/{}", s, l);
      if (d < 0 && s < l) fail<InvalidArgumentError>("Range", "Requires start >= limit when delta < 0: {}/{}", s, l);
      const double size = std::ceil(std::abs((l - s) / d));
      if (!(size <= 281474976710656.0))
        fail<InvalidArgumentError>("Range", "Requires the result size to be at most 2^48");
      out = Tensor::empty(dt, {static_cast<std::int64_t>(size)});
      T* p = detail::out_data_of<T>(out);
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(size); ++i)
        p[i] = static_cast<T>(s + static_cast<double>(i) * d);
    }
  });
  return out;
}

Tensor one_hot(const Tensor& indices, std::int64_t depth, const Tensor& on_value, const Tensor& off_value,
               std::int64_t axis) {
  detail::check_valid(indices, "OneHot");
  check_scalar(on_value, "OneHot", "on_value");
  check_scalar(off_value, "OneHot", "off_value");
  // TF's TI: uint8, int8, int32, int64.
  const DType ti = indices.dtype();
  if (!is_index_dtype(ti) && ti != DType::kUInt8 && ti != DType::kInt8) {
    fail<InvalidArgumentError>(
        "OneHot", "Value for attr 'TI' of {} is not in the list of allowed values: uint8, int8, int32, int64",
        dtype_name(ti));
  }
  if (on_value.dtype() != off_value.dtype()) {
    fail<TypeError>("OneHot", "on_value ({}) and off_value ({}) must have the same dtype", dtype_name(on_value.dtype()),
                    dtype_name(off_value.dtype()));
  }
  if (depth < 0) fail<InvalidArgumentError>("OneHot", "depth must be non-negative, got: {}", depth);
  const int rank = indices.rank();
  if (axis < -1 || axis > rank) {
    fail<InvalidArgumentError>("OneHot", "Expected axis to be -1 or between [0, {}). But received: {}", rank + 1, axis);
  }
  const int ax = axis == -1 ? rank : static_cast<int>(axis);
  Shape out_shape = indices.shape();
  out_shape.insert(out_shape.begin() + ax, depth);
  check_output_shape(out_shape, "OneHot");
  Tensor out = Tensor::empty(on_value.dtype(), out_shape);
  std::pair<std::int64_t, std::int64_t> view{1, 1};  // [outer, inner] around the depth axis
  for (int d = 0; d < rank; ++d) (d < ax ? view.first : view.second) *= indices.shape()[d];
  const auto idx = detail::int_values(is_index_dtype(ti) ? indices : cast(indices, DType::kInt64));
  dispatch_any_dtype(on_value.dtype(), [&](auto tag) {  // a plain fill: every dtype (TF's T is any type)
    using T = decltype(tag);
    T* p = detail::out_data_of<T>(out);
    const T on = detail::data_of<T>(on_value)[0], off = detail::data_of<T>(off_value)[0];
    std::fill_n(p, out.num_elements(), off);
    for (std::int64_t o = 0; o < view.first; ++o) {
      for (std::int64_t i = 0; i < view.second; ++i) {
        const std::int64_t d = idx[o * view.second + i];
        if (d >= 0 && d < depth) p[(o * depth + d) * view.second + i] = on;
      }
    }
  });
  return out;
}

Tensor where(const Tensor& condition, const Tensor& x, const Tensor& y) {
  detail::check_valid(condition, "SelectV2");
  detail::check_valid(x, "SelectV2");
  detail::check_valid(y, "SelectV2");
  if (condition.dtype() != DType::kBool) {
    fail<TypeError>("SelectV2", "condition must be a bool tensor, got {}", dtype_name(condition.dtype()));
  }
  if (x.dtype() != y.dtype()) {
    fail<InvalidArgumentError>("SelectV2",
                               "cannot compute SelectV2 as input #2(zero-based) was expected to be a {} tensor but is "
                               "a {} tensor",
                               dtype_name(x.dtype()), dtype_name(y.dtype()));
  }
  const Shape shape =
      broadcast_shapes(broadcast_shapes(condition.shape(), x.shape(), "SelectV2"), y.shape(), "SelectV2");
  Tensor out = Tensor::empty(x.dtype(), shape);
  if (out.num_elements() == 0) return out;
  const BroadcastPlan plan = plan_broadcast({condition.shape(), x.shape(), y.shape()}, shape);
  const bool* c = detail::data_of<bool>(condition);
  switch (dtype_size(x.dtype())) {
#define TPUSTRATEGY_SELECT_CASE(bytes, E)                                                             \
  case bytes:                                                                                         \
    select_runs<E>(plan, c, static_cast<const E*>(x.raw_data()), static_cast<const E*>(y.raw_data()), \
                   static_cast<E*>(out.mutable_raw_data()));                                          \
    break;
    TPUSTRATEGY_SELECT_CASE(1, std::uint8_t)
    TPUSTRATEGY_SELECT_CASE(2, std::uint16_t)
    TPUSTRATEGY_SELECT_CASE(4, std::uint32_t)
    TPUSTRATEGY_SELECT_CASE(8, std::uint64_t)
    TPUSTRATEGY_SELECT_CASE(16, std::complex<double>)  // complex128
#undef TPUSTRATEGY_SELECT_CASE
  }
  return out;
}

Tensor where(const Tensor& condition) {
  detail::check_valid(condition, "Where");
  if (condition.dtype() != DType::kBool) {
    fail<TypeError>("Where", "condition must be a bool tensor, got {}", dtype_name(condition.dtype()));
  }
  const bool* c = detail::data_of<bool>(condition);
  const std::int64_t n = condition.num_elements();
  const std::int64_t count = std::count(c, c + n, true);
  const int rank = condition.rank();
  Tensor out = Tensor::empty(DType::kInt64, {count, rank});
  auto* p = detail::out_data_of<std::int64_t>(out);
  for (std::int64_t i = 0, row = 0; i < n; ++i) {
    if (!c[i]) continue;
    std::int64_t rem = i;
    for (int d = rank - 1; d >= 0; --d) {
      p[row * rank + d] = rem % condition.shape()[d];
      rem /= condition.shape()[d];
    }
    ++row;
  }
  return out;
}

Tensor identity(const Tensor& x) {
  detail::check_valid(x, "Identity");
  DevicePtr target = placement_device();
  if (target == x.device()) return x;
  return x.copy_to(target);
}

}  // namespace tpustrategy
