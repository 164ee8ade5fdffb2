// Unary elementwise kernels on Eigen arrays.
#include <type_traits>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/broadcast.h"
#include "tpustrategy/ops/eigen_util.h"
#include "tpustrategy/ops/elementwise.h"
#include "tpustrategy/ops/extended_dtypes.h"
#include "tpustrategy/parallel/worker_pool.h"

namespace tpustrategy {

namespace {

using detail::ConstVecMap;
using detail::VecMap;

enum class Domain { kNumeric, kFloating, kBool };

Domain domain_of(UnaryOp op) {
  switch (op) {
    case UnaryOp::kNegative:
    case UnaryOp::kAbs:
    case UnaryOp::kSquare:
    case UnaryOp::kRelu:
    case UnaryOp::kSign:
      return Domain::kNumeric;
    case UnaryOp::kLogicalNot:
      return Domain::kBool;
    default:
      return Domain::kFloating;
  }
}

template <typename C>
using U = std::make_unsigned_t<C>;

// Integer negate / abs / square wrap around like TF instead of overflowing.
struct WrapNeg {
  template <typename C>
  C operator()(C x) const {
    return static_cast<C>(U<C>(0) - U<C>(x));
  }
};
struct WrapAbs {
  template <typename C>
  C operator()(C x) const {
    return x < 0 ? static_cast<C>(U<C>(0) - U<C>(x)) : x;
  }
};
struct WrapSquare {
  template <typename C>
  C operator()(C x) const {
    return static_cast<C>(U<C>(x) * U<C>(x));
  }
};

template <typename X>
auto apply(UnaryOp op, const X& x) {
  using C = typename X::Scalar;
  constexpr bool kInt = std::is_integral_v<C>;
  // All branches return the same expression type is impossible, so evaluate into a plain array.
  using Result = detail::Vec<C>;
  switch (op) {
    case UnaryOp::kNegative:
      if constexpr (kInt)
        return Result(x.unaryExpr(WrapNeg{}));
      else
        return Result(-x);
    case UnaryOp::kAbs:
      if constexpr (kInt)
        return Result(x.unaryExpr(WrapAbs{}));
      else
        return Result(x.abs());
    case UnaryOp::kSquare:
      if constexpr (kInt)
        return Result(x.unaryExpr(WrapSquare{}));
      else
        return Result(x.square());
    case UnaryOp::kRelu:
      return Result(x.max(C(0)));
    case UnaryOp::kSign:
      return Result(x.sign());
    default:
      break;
  }
  if constexpr (!kInt) {
    switch (op) {
      case UnaryOp::kExp:
        return Result(x.exp());
      case UnaryOp::kLog:
        return Result(x.log());
      case UnaryOp::kSqrt:
        return Result(x.sqrt());
      case UnaryOp::kRsqrt:
        return Result(x.rsqrt());
      case UnaryOp::kTanh:
        return Result(x.tanh());
      case UnaryOp::kSigmoid:
        return Result(x.logistic());
      case UnaryOp::kFloor:
        return Result(x.floor());
      case UnaryOp::kCeil:
        return Result(x.ceil());
      default:
        break;
    }
  }
  fail<InternalError>("unary", "unreachable op");
}

// Writes op(x) for one contiguous chunk; the chunk's result lives in a temporary
// array of the compute type, then is rounded into the output type.
template <typename T>
void unary_chunk(UnaryOp op, const T* src, T* dst, std::int64_t n) {
  using C = detail::Compute<T>;
  if constexpr (std::is_same_v<T, bool>) {
    VecMap<bool>(dst, n) = !ConstVecMap<bool>(src, n);
  } else if constexpr (std::is_same_v<T, C>) {
    // Common float ops straight into the output, without a temporary.
    auto x = ConstVecMap<T>(src, n);
    VecMap<T> out(dst, n);
    if constexpr (!std::is_integral_v<T>) {
      switch (op) {
        case UnaryOp::kExp:
          out = x.exp();
          return;
        case UnaryOp::kLog:
          out = x.log();
          return;
        case UnaryOp::kSqrt:
          out = x.sqrt();
          return;
        case UnaryOp::kTanh:
          out = x.tanh();
          return;
        case UnaryOp::kSigmoid:
          out = x.logistic();
          return;
        case UnaryOp::kNegative:
          out = -x;
          return;
        case UnaryOp::kRelu:
          out = x.max(T(0));
          return;
        default:
          break;
      }
    }
    out = apply(op, x);
  } else {
    VecMap<T>(dst, n) = apply(op, ConstVecMap<T>(src, n).template cast<C>()).template cast<T>();
  }
}

}  // namespace

std::string_view op_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::kNegative:
      return "Neg";
    case UnaryOp::kAbs:
      return "Abs";
    case UnaryOp::kSquare:
      return "Square";
    case UnaryOp::kExp:
      return "Exp";
    case UnaryOp::kLog:
      return "Log";
    case UnaryOp::kSqrt:
      return "Sqrt";
    case UnaryOp::kRsqrt:
      return "Rsqrt";
    case UnaryOp::kTanh:
      return "Tanh";
    case UnaryOp::kSigmoid:
      return "Sigmoid";
    case UnaryOp::kRelu:
      return "Relu";
    case UnaryOp::kFloor:
      return "Floor";
    case UnaryOp::kCeil:
      return "Ceil";
    case UnaryOp::kSign:
      return "Sign";
    case UnaryOp::kLogicalNot:
      return "LogicalNot";
  }
  return "Unary";
}

Tensor unary(UnaryOp op, const Tensor& x) {
  const std::string_view name = op_name(op);
  const char* where = name.data();
  detail::check_valid(x, where);
  const DType dt = x.dtype();
  if (is_extended(dt)) return detail::unary_extended(op, x);
  switch (domain_of(op)) {
    case Domain::kBool:
      if (dt != DType::kBool) fail<TypeError>(where, "{} requires a bool tensor, got {}", name, dtype_name(dt));
      break;
    case Domain::kNumeric:
      if (dt == DType::kBool) fail<TypeError>(where, "{} does not support bool tensors", name);
      break;
    case Domain::kFloating:
      if (!is_floating(dt)) {
        fail<TypeError>(where, "{} requires a floating-point tensor (float16, bfloat16, float32, float64), got {}",
                        name, dtype_name(dt));
      }
      break;
  }
  Tensor out = Tensor::empty(dt, x.shape());
  dispatch_dtype(dt, [&](auto tag) {
    using T = decltype(tag);
    const T* src = detail::data_of<T>(x);
    T* dst = detail::out_data_of<T>(out);
    parallel_for(x.num_elements(), kElementwiseGrain,
                 [&](std::int64_t b, std::int64_t e) { unary_chunk<T>(op, src + b, dst + b, e - b); });
  });
  return out;
}

}  // namespace tpustrategy
