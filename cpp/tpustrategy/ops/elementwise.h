#pragma once
// Elementwise kernels: unary math and binary arithmetic / comparison with NumPy
// broadcasting. Contiguous runs (including scalar operands) go through Eigen
// array expressions; float16 / bfloat16 compute in float32 and round once.
// Large outputs are split over the worker pool.
//
// Dtype rules follow TF: binary operands must have the same dtype
// (InvalidArgumentError otherwise); divide() of integers returns float64;
// comparisons return bool; transcendental functions need floating dtypes
// (TypeError otherwise); integer floordiv / floormod by zero is an
// InvalidArgumentError ("Integer division by zero").
#include <string_view>

#include "tpustrategy/core/tensor.h"

namespace tpustrategy {

enum class UnaryOp {
  kNegative,
  kAbs,
  kSquare,
  kExp,
  kLog,
  kSqrt,
  kRsqrt,
  kTanh,
  kSigmoid,
  kRelu,
  kFloor,
  kCeil,
  kSign,
  kLogicalNot
};
enum class BinaryOp {
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,
  kFloorDiv,
  kFloorMod,
  kPow,
  kMaximum,
  kMinimum,
  kEqual,
  kNotEqual,
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kLogicalAnd,
  kLogicalOr
};

// TF's kernel names ("AddV2", "RealDiv", ...), used in error messages.
std::string_view op_name(UnaryOp op);
std::string_view op_name(BinaryOp op);
bool is_comparison(BinaryOp op);

Tensor unary(UnaryOp op, const Tensor& x);
Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b);

inline Tensor negative(const Tensor& x) { return unary(UnaryOp::kNegative, x); }
inline Tensor abs(const Tensor& x) { return unary(UnaryOp::kAbs, x); }
inline Tensor square(const Tensor& x) { return unary(UnaryOp::kSquare, x); }
inline Tensor exp(const Tensor& x) { return unary(UnaryOp::kExp, x); }
inline Tensor log(const Tensor& x) { return unary(UnaryOp::kLog, x); }
inline Tensor sqrt(const Tensor& x) { return unary(UnaryOp::kSqrt, x); }
inline Tensor tanh(const Tensor& x) { return unary(UnaryOp::kTanh, x); }
inline Tensor sigmoid(const Tensor& x) { return unary(UnaryOp::kSigmoid, x); }
inline Tensor relu(const Tensor& x) { return unary(UnaryOp::kRelu, x); }
inline Tensor logical_not(const Tensor& x) { return unary(UnaryOp::kLogicalNot, x); }

inline Tensor add(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kAdd, a, b); }
inline Tensor subtract(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kSubtract, a, b); }
inline Tensor multiply(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kMultiply, a, b); }
inline Tensor divide(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kDivide, a, b); }
inline Tensor floordiv(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kFloorDiv, a, b); }
inline Tensor floormod(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kFloorMod, a, b); }
inline Tensor pow(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kPow, a, b); }
inline Tensor maximum(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kMaximum, a, b); }
inline Tensor minimum(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kMinimum, a, b); }
inline Tensor equal(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kEqual, a, b); }
inline Tensor not_equal(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kNotEqual, a, b); }
inline Tensor less(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kLess, a, b); }
inline Tensor less_equal(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kLessEqual, a, b); }
inline Tensor greater(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kGreater, a, b); }
inline Tensor greater_equal(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kGreaterEqual, a, b); }
inline Tensor logical_and(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kLogicalAnd, a, b); }
inline Tensor logical_or(const Tensor& a, const Tensor& b) { return binary(BinaryOp::kLogicalOr, a, b); }

}  // namespace tpustrategy
