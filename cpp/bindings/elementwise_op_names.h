#pragma once
// The Python names of the elementwise unary and binary ops (tf.math's negative, abs, ..., add, subtract, ...):
// _core.ops binds one function per name, and _core.spmd takes the name of the op it partitions.
#include <array>
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

}  // namespace tpustrategy::bindings
