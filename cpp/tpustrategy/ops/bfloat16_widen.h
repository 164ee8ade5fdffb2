#pragma once
// bfloat16 -> float32 in bulk. A bfloat16 is the upper half of a float32, so widening is a 16-bit shift
// and exact (NaN payloads and signs kept), the same bits as Eigen's per-element conversion. Written on
// the raw bits so that the compiler vectorizes it: Eigen's cast of a bfloat16 array runs one element at
// a time, which cost a bfloat16 matmul of 128x128 as much time as a third of its GEMM.
#include <Eigen/Core>
#include <bit>
#include <cstdint>

namespace tpustrategy::detail {

inline void widen_bfloat16(const Eigen::bfloat16* src, float* dst, std::int64_t n) {
  static_assert(sizeof(Eigen::bfloat16) == sizeof(std::uint16_t));
  // Loads of the raw 16 bits: through Eigen::bfloat16, GCC 12 keeps the loop scalar.
  const auto* __restrict bits = reinterpret_cast<const std::uint16_t*>(src);
  float* __restrict out = dst;
  for (std::int64_t i = 0; i < n; ++i) out[i] = std::bit_cast<float>(std::uint32_t{bits[i]} << 16);
}

}  // namespace tpustrategy::detail
