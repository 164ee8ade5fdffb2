#include "tpustrategy/ops/random.h"

#include <cmath>
#include <type_traits>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/broadcast.h"
#include "tpustrategy/ops/eigen_util.h"
#include "tpustrategy/parallel/worker_pool.h"

namespace tpustrategy {

std::array<std::uint32_t, 4> philox4x32(std::array<std::uint32_t, 4> counter, std::array<std::uint32_t, 2> key) {
  constexpr std::uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u, kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = std::uint64_t{kM0} * counter[0], p1 = std::uint64_t{kM1} * counter[2];
    const auto hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
    const auto hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
    counter = {hi1 ^ counter[1] ^ key[0], lo1, hi0 ^ counter[3] ^ key[1], lo0};
    key = {key[0] + kW0, key[1] + kW1};
  }
  return counter;
}

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;
constexpr int kMaxAttempts = 256;

// The four words of element i's block; `attempt` separates the redraws of truncated_normal.
std::array<std::uint32_t, 4> block(std::uint64_t seed, std::uint64_t stream, std::int64_t i, int attempt) {
  const auto ui = static_cast<std::uint64_t>(i);
  return philox4x32({static_cast<std::uint32_t>(ui),
                     static_cast<std::uint32_t>(ui >> 32) * kMaxAttempts + static_cast<std::uint32_t>(attempt),
                     static_cast<std::uint32_t>(stream), static_cast<std::uint32_t>(stream >> 32)},
                    {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
}

// Uniform in [0, 1) with 53 random bits, and in (0, 1] (safe for log).
double unit(std::uint32_t hi, std::uint32_t lo) {
  return static_cast<double>(((std::uint64_t{hi} << 32) | lo) >> 11) * 0x1.0p-53;
}
double unit_open(std::uint32_t hi, std::uint32_t lo) { return 1.0 - unit(hi, lo); }

double sample(RandomDistribution dist, std::uint64_t seed, std::uint64_t stream, std::int64_t i) {
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    const auto w = block(seed, stream, i, attempt);
    if (dist == RandomDistribution::kUniform) return unit(w[0], w[1]);
    const double r = std::sqrt(-2.0 * std::log(unit_open(w[0], w[1])));
    const double theta = kTwoPi * unit(w[2], w[3]);
    const double z0 = r * std::cos(theta), z1 = r * std::sin(theta);
    if (dist == RandomDistribution::kNormal || std::abs(z0) <= 2.0) return z0;
    if (std::abs(z1) <= 2.0) return z1;
  }
  return 0.0;  // unreachable in practice: 256 rejected pairs have probability ~1e-680
}

}  // namespace

Tensor random_float(const Shape& shape, DType dtype, RandomDistribution dist, std::uint64_t seed,
                    std::uint64_t stream) {
  check_shape(shape, "RandomStandard");
  if (!is_floating(dtype)) {
    fail<TypeError>("RandomStandard", "random floats need a floating dtype, got {}", dtype_name(dtype));
  }
  Tensor out = Tensor::empty(dtype, shape);
  dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (detail::kIsFloat<T>) {
      T* dst = detail::out_data_of<T>(out);
      parallel_for(out.num_elements(), kElementwiseGrain / 16, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) {
          T v = static_cast<T>(sample(dist, seed, stream, i));
          // Rounding a value just below 1 may give 1: keep uniform samples in [0, 1).
          if (dist == RandomDistribution::kUniform && !(static_cast<double>(v) < 1.0)) v = T(0);
          dst[i] = v;
        }
      });
    }
  });
  return out;
}

Tensor random_int(const Shape& shape, DType dtype, std::int64_t minval, std::int64_t maxval, std::uint64_t seed,
                  std::uint64_t stream) {
  check_shape(shape, "RandomUniformInt");
  if (dtype != DType::kInt32 && dtype != DType::kInt64) {
    fail<TypeError>("RandomUniformInt", "random integers need int32 or int64, got {}", dtype_name(dtype));
  }
  if (minval >= maxval) {
    fail<InvalidArgumentError>("RandomUniformInt", "Need minval < maxval: {} >= {}", minval, maxval);
  }
  const std::uint64_t range = static_cast<std::uint64_t>(maxval) - static_cast<std::uint64_t>(minval);
  Tensor out = Tensor::empty(dtype, shape);
  dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>) {
      T* dst = detail::out_data_of<T>(out);
      parallel_for(out.num_elements(), kElementwiseGrain / 16, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) {
          const auto w = block(seed, stream, i, 0);
          const std::uint64_t bits = (std::uint64_t{w[0]} << 32) | w[1];
          dst[i] = static_cast<T>(static_cast<std::uint64_t>(minval) + bits % range);
        }
      });
    }
  });
  return out;
}

}  // namespace tpustrategy
