#pragma once
// Small helpers for the ops tests: build tensors from initializer lists and read them back.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tpustrategy/core/tensor.h"
#include "tpustrategy/ops/cast.h"

namespace tpustrategy::testing {

template <typename T>
Tensor make(std::vector<T> values, Shape shape) {
  return Tensor::from_vector<T>(values, std::move(shape));
}
inline Tensor f32(std::vector<float> v, Shape s) { return make<float>(std::move(v), std::move(s)); }
inline Tensor f64(std::vector<double> v, Shape s) { return make<double>(std::move(v), std::move(s)); }
inline Tensor i32(std::vector<std::int32_t> v, Shape s) { return make<std::int32_t>(std::move(v), std::move(s)); }
inline Tensor i64(std::vector<std::int64_t> v, Shape s) { return make<std::int64_t>(std::move(v), std::move(s)); }
inline Tensor b8(std::vector<bool> v, Shape s) {
  Tensor t = Tensor::empty(DType::kBool, std::move(s));
  for (std::size_t i = 0; i < v.size(); ++i) t.mutable_data<bool>()[i] = v[i];
  return t;
}
// A tensor of `dtype` holding `values` (converted from double).
inline Tensor typed(DType dtype, std::vector<double> values, Shape shape) {
  return cast(f64(std::move(values), std::move(shape)), dtype);
}
inline std::vector<double> values(const Tensor& t) { return t.to_vector<double>(); }

}  // namespace tpustrategy::testing
