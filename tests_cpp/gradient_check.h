#pragma once
// Finite-difference checks for the gradient functions: the tape's gradient of
// sum(f(inputs) * w) (w fixed pseudo-random weights, so every output element
// counts) against central differences in float64, element by element.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <vector>

#include "ops_test_util.h"
#include "tpustrategy/autodiff/recorded_ops.h"
#include "tpustrategy/autodiff/tape_stack.h"

namespace tpustrategy::testing {

using GradTestFn = std::function<Tensor(const std::vector<Tensor>&)>;

// Deterministic values in [lo, hi) (a small LCG, so tests need no seeds).
inline Tensor uniform(Shape shape, double lo, double hi, std::uint32_t seed = 1) {
  std::vector<double> v(static_cast<std::size_t>(num_elements(shape)));
  std::uint64_t state = 0x9E3779B97F4A7C15ull * (seed + 1);
  for (double& x : v) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x = lo + (hi - lo) * static_cast<double>(state >> 11) / static_cast<double>(1ull << 53);
  }
  return f64(std::move(v), std::move(shape));
}

inline double weighted_sum(const Tensor& y, const Tensor& w) {
  auto yv = values(y), wv = values(w);
  double s = 0;
  for (std::size_t i = 0; i < yv.size(); ++i) s += yv[i] * wv[i];
  return s;
}

// Checks every input's gradient (all inputs float64 and watched) against central differences.
inline void expect_gradients_match(const GradTestFn& f, const std::vector<Tensor>& inputs, double tol = 1e-6,
                                   double h = 1e-6) {
  auto tape = std::make_shared<Tape>();
  std::vector<std::optional<Grad>> grads;
  Tensor w;
  {
    TapeScope scope(tape);
    for (const Tensor& in : inputs) tape->watch(in);
    Tensor y = f(inputs);
    w = uniform(y.shape(), -1, 1, 7);
    Tensor loss = op::reduce_sum(op::mul(y, w));
    grads = tape->gradient({loss}, inputs);
  }
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    ASSERT_TRUE(grads[k].has_value()) << "input " << k << " got no gradient";
    const Tensor dense = to_dense(*grads[k]);
    ASSERT_EQ(dense.shape(), inputs[k].shape()) << "input " << k;
    ASSERT_EQ(dense.dtype(), DType::kFloat64);
    const auto analytic = values(dense);
    const auto base = values(inputs[k]);
    for (std::size_t i = 0; i < base.size(); ++i) {
      auto eval = [&](double delta) {
        std::vector<double> v = base;
        v[i] += delta;
        std::vector<Tensor> args = inputs;
        args[k] = f64(v, inputs[k].shape());
        return weighted_sum(f(args), w);
      };
      const double numeric = (eval(h) - eval(-h)) / (2 * h);
      EXPECT_NEAR(analytic[i], numeric, tol * std::max(1.0, std::abs(numeric))) << "input " << k << " element " << i;
    }
  }
}

}  // namespace tpustrategy::testing
