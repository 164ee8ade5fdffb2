#pragma once
// The Python names of the elementwise unary and binary ops (tf.math's negative, abs, ..., add, subtract, ...):
// _core.ops binds one function per name, and _core.spmd takes the name of the op it partitions.
#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

#include "tpustrategy/ops/elementwise.h"

namespace tpustrategy::bindings {

inline constexpr std::array<std::pair<const char*, UnaryOp>, 14> kUnaryOpNames{{
    {"negative", UnaryOp::kNegative},
    {"abs", UnaryOp::kAbs},
    {"square", UnaryOp::kSquare},
    {"exp", UnaryOp::kExp},
    {"log", UnaryOp::kLog},
    {"sqrt", UnaryOp::kSqrt},
    {"rsqrt", UnaryOp::kRsqrt},
    {"tanh", UnaryOp::kTanh},
    {"sigmoid", UnaryOp::kSigmoid},
    {"relu", UnaryOp::kRelu},
    {"floor", UnaryOp::kFloor},
    {"ceil", UnaryOp::kCeil},
    {"sign", UnaryOp::kSign},
    {"logical_not", UnaryOp::kLogicalNot},
}};

inline constexpr std::array<std::pair<const char*, BinaryOp>, 17> kBinaryOpNames{{
    {"add", BinaryOp::kAdd},
    {"subtract", BinaryOp::kSubtract},
    {"multiply", BinaryOp::kMultiply},
    {"divide", BinaryOp::kDivide},
    {"floordiv", BinaryOp::kFloorDiv},
    {"floormod", BinaryOp::kFloorMod},
    {"pow", BinaryOp::kPow},
    {"maximum", BinaryOp::kMaximum},
    {"minimum", BinaryOp::kMinimum},
    {"equal", BinaryOp::kEqual},
    {"not_equal", BinaryOp::kNotEqual},
    {"less", BinaryOp::kLess},
    {"less_equal", BinaryOp::kLessEqual},
    {"greater", BinaryOp::kGreater},
    {"greater_equal", BinaryOp::kGreaterEqual},
    {"logical_and", BinaryOp::kLogicalAnd},
    {"logical_or", BinaryOp::kLogicalOr},
}};

// The position of `name` in one of the tables above, or -1 when it has none.
template <typename Kind, std::size_t Count>
constexpr int op_index(const std::array<std::pair<const char*, Kind>, Count>& names, std::string_view name) {
  for (std::size_t i = 0; i < Count; ++i) {
    if (name == names[i].first) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace tpustrategy::bindings
