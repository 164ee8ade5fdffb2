#pragma once
// Eigen array views over raw tensor memory, shared by the kernels.
#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/core/tensor.h"

namespace tpustrategy::detail {

template <typename T>
using Vec = Eigen::Array<T, Eigen::Dynamic, 1>;
template <typename T>
using ConstVecMap = Eigen::Map<const Vec<T>>;
template <typename T>
using VecMap = Eigen::Map<Vec<T>>;
template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMatrixMap = Eigen::Map<const RowMatrix<T>>;
template <typename T>
using MatrixMap = Eigen::Map<RowMatrix<T>>;

// Compute type: float16 / bfloat16 compute in float32, everything else in itself.
template <typename T>
using Compute = typename Accumulator<T>::type;

template <typename T>
constexpr bool kIsFloat = std::is_floating_point_v<Compute<T>>;

template <typename T>
const T* data_of(const Tensor& t) {
  return static_cast<const T*>(t.raw_data());
}
template <typename T>
T* out_data_of(const Tensor& t) {
  return static_cast<T*>(t.mutable_raw_data());
}

// The elements of an int32 / int64 / bool tensor as exact int64 values.
inline std::vector<std::int64_t> int_values(const Tensor& t) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(t.num_elements()));
  if (t.dtype() == DType::kInt64) {
    std::copy_n(data_of<std::int64_t>(t), out.size(), out.begin());
  } else if (t.dtype() == DType::kInt32) {
    std::copy_n(data_of<std::int32_t>(t), out.size(), out.begin());
  } else if (t.dtype() == DType::kBool) {
    std::copy_n(data_of<bool>(t), out.size(), out.begin());
  } else {
    fail<TypeError>("int_values", "expected an integer tensor, got {}", dtype_name(t.dtype()));
  }
  return out;
}

inline void check_valid(const Tensor& t, const char* where) {
  if (!t.valid()) fail<ValueError>(where, "the tensor argument is empty (default-constructed)");
}

}  // namespace tpustrategy::detail
