#pragma once
// Eigen array views over raw tensor memory, shared by the kernels.
#include <cstdint>
#include <type_traits>

#include <Eigen/Core>

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

inline void check_valid(const Tensor& t, const char* where) {
  if (!t.valid()) fail<ValueError>(where, "the tensor argument is empty (default-constructed)");
}

}  // namespace tpustrategy::detail
