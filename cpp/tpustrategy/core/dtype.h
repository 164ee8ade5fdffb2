#pragma once
// Element types of tensors. float16 / bfloat16 are stored as Eigen::half /
// Eigen::bfloat16 (bit-identical to numpy's float16 and ml_dtypes.bfloat16).
#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tpustrategy {

enum class DType : std::uint8_t { kBool, kInt32, kInt64, kFloat16, kBFloat16, kFloat32, kFloat64 };

inline constexpr DType kAllDTypes[] = {DType::kBool,     DType::kInt32,   DType::kInt64,  DType::kFloat16,
                                       DType::kBFloat16, DType::kFloat32, DType::kFloat64};

std::size_t dtype_size(DType dtype);
// TF's name: "bool", "int32", "int64", "float16", "bfloat16", "float32", "float64".
std::string_view dtype_name(DType dtype);
// Parses a TF/numpy dtype name ("float32", "float", "half", "double", ...); throws TypeError.
DType dtype_from_name(std::string_view name);
bool is_floating(DType dtype);
bool is_integer(DType dtype);

// C++ storage type of each dtype.
template <DType D>
struct DTypeTraits;
template <>
struct DTypeTraits<DType::kBool> {
  using type = bool;
};
template <>
struct DTypeTraits<DType::kInt32> {
  using type = std::int32_t;
};
template <>
struct DTypeTraits<DType::kInt64> {
  using type = std::int64_t;
};
template <>
struct DTypeTraits<DType::kFloat16> {
  using type = Eigen::half;
};
template <>
struct DTypeTraits<DType::kBFloat16> {
  using type = Eigen::bfloat16;
};
template <>
struct DTypeTraits<DType::kFloat32> {
  using type = float;
};
template <>
struct DTypeTraits<DType::kFloat64> {
  using type = double;
};

template <typename T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<bool>() {
  return DType::kBool;
}
template <>
constexpr DType dtype_of<std::int32_t>() {
  return DType::kInt32;
}
template <>
constexpr DType dtype_of<std::int64_t>() {
  return DType::kInt64;
}
template <>
constexpr DType dtype_of<Eigen::half>() {
  return DType::kFloat16;
}
template <>
constexpr DType dtype_of<Eigen::bfloat16>() {
  return DType::kBFloat16;
}
template <>
constexpr DType dtype_of<float>() {
  return DType::kFloat32;
}
template <>
constexpr DType dtype_of<double>() {
  return DType::kFloat64;
}

// Type used to accumulate reductions: float16/bfloat16 accumulate in float32.
template <typename T>
struct Accumulator {
  using type = T;
};
template <>
struct Accumulator<Eigen::half> {
  using type = float;
};
template <>
struct Accumulator<Eigen::bfloat16> {
  using type = float;
};

// Calls fn(T{}) with T the storage type of `dtype`.
template <typename Fn>
decltype(auto) dispatch_dtype(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kBool:
      return fn(bool{});
    case DType::kInt32:
      return fn(std::int32_t{});
    case DType::kInt64:
      return fn(std::int64_t{});
    case DType::kFloat16:
      return fn(Eigen::half{});
    case DType::kBFloat16:
      return fn(Eigen::bfloat16{});
    case DType::kFloat32:
      return fn(float{});
    case DType::kFloat64:
      return fn(double{});
  }
  return fn(float{});  // unreachable
}

}  // namespace tpustrategy
