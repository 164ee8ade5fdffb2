#include "tpustrategy/ops/pool.h"

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/broadcast.h"
#include "tpustrategy/ops/cast.h"
#include "tpustrategy/ops/eigen_util.h"
#include "tpustrategy/parallel/worker_pool.h"

namespace tpustrategy {

namespace {

bool is_half(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }

void check_input(const char* where, const Tensor& input, bool allow_int) {
  if (!input.valid()) fail<ValueError>(where, "the input tensor is empty (default-constructed)");
  if (input.rank() != 4) {
    fail<InvalidArgumentError>(where, "tensor_in_shape must have 2 spatial dimensions, got shape {}",
                               dims_to_string(input.shape()));
  }
  const DType t = input.dtype();
  if (!is_floating(t) && !(allow_int && (t == DType::kInt32 || t == DType::kInt64))) {
    fail<InvalidArgumentError>(where,
                               "Value for attr 'T' of {} is not in the list of allowed values: half, bfloat16, "
                               "float, double{}",
                               dtype_name(t), allow_int ? ", int32, int64" : "");
  }
}

void check_grad(const char* where, const Tensor& grad, const Geometry2D& g, DType dtype) {
  const Shape expected{g.n, g.oh, g.ow, g.c};
  if (!grad.valid() || grad.shape() != expected || grad.dtype() != dtype) {
    fail<InvalidArgumentError>(where, "the gradient must be a {} tensor of the pooled shape {}, got {} {}",
                               dtype_name(dtype), dims_to_string(expected),
                               grad.valid() ? dtype_name(grad.dtype()) : "no", dims_to_string(grad.shape()));
  }
}

std::int64_t grain_for(const Geometry2D& g) {
  return std::max<std::int64_t>(1, kElementwiseGrain / std::max<std::int64_t>(g.win.kh * g.win.kw * g.c, 1));
}

// Flat input index of each output element's first maximum (-1 for a window that reads only padding).
template <typename T>
std::vector<std::int64_t> argmax_positions(const T* x, const Geometry2D& g) {
  std::vector<std::int64_t> pos(static_cast<std::size_t>(g.rows() * g.c), -1);
  parallel_for(g.rows(), grain_for(g), [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t r = begin; r < end; ++r) {
      const std::int64_t b = r / (g.oh * g.ow), oy = (r / g.ow) % g.oh, ox = r % g.ow;
      std::int64_t* best = pos.data() + r * g.c;
      for_each_window_tap(g, oy, ox, [&](auto, auto, auto iy, auto ix) {
        const std::int64_t base = ((b * g.h + iy) * g.w + ix) * g.c;
        for (std::int64_t ci = 0; ci < g.c; ++ci) {
          if (best[ci] < 0 || x[base + ci] > x[best[ci]]) best[ci] = base + ci;
        }
      });
    }
  });
  return pos;
}

template <typename T>
void avg_forward(const T* x, T* y, const Geometry2D& g) {
  using A = detail::Compute<T>;
  parallel_for(g.rows(), grain_for(g), [&](std::int64_t begin, std::int64_t end) {
    std::vector<A> acc(static_cast<std::size_t>(g.c));
    for (std::int64_t r = begin; r < end; ++r) {
      const std::int64_t b = r / (g.oh * g.ow), oy = (r / g.ow) % g.oh, ox = r % g.ow;
      std::fill(acc.begin(), acc.end(), A(0));
      std::int64_t count = 0;
      for_each_window_tap(g, oy, ox, [&](auto, auto, auto iy, auto ix) {
        const T* xp = x + ((b * g.h + iy) * g.w + ix) * g.c;
        for (std::int64_t ci = 0; ci < g.c; ++ci) acc[ci] += static_cast<A>(xp[ci]);
        ++count;
      });
      for (std::int64_t ci = 0; ci < g.c; ++ci) y[r * g.c + ci] = static_cast<T>(acc[ci] / static_cast<A>(count));
    }
  });
}

template <typename T>
void avg_backward(const T* gy, T* dx, const Geometry2D& g) {
  parallel_for(g.n, 1, [&](std::int64_t b0, std::int64_t b1) {
    for (std::int64_t b = b0; b < b1; ++b) {
      for (std::int64_t oy = 0; oy < g.oh; ++oy) {
        for (std::int64_t ox = 0; ox < g.ow; ++ox) {
          std::int64_t count = 0;
          for_each_window_tap(g, oy, ox, [&](auto, auto, auto, auto) { ++count; });
          const T* gp = gy + ((b * g.oh + oy) * g.ow + ox) * g.c;
          for_each_window_tap(g, oy, ox, [&](auto, auto, auto iy, auto ix) {
            T* dp = dx + ((b * g.h + iy) * g.w + ix) * g.c;
            for (std::int64_t ci = 0; ci < g.c; ++ci) dp[ci] += gp[ci] / static_cast<T>(count);
          });
        }
      }
    }
  });
}

}  // namespace

Tensor max_pool2d(const Tensor& input, const Window2D& win) {
  check_input("MaxPool", input, true);
  const Geometry2D g = Geometry2D::of(input.shape(), win);
  Tensor out = Tensor::empty(input.dtype(), {g.n, g.oh, g.ow, g.c});
  if (out.num_elements() == 0) return out;
  dispatch_dtype(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      const T* x = detail::data_of<T>(input);
      T* y = detail::out_data_of<T>(out);
      const std::vector<std::int64_t> pos = argmax_positions<T>(x, g);
      for (std::size_t i = 0; i < pos.size(); ++i) y[i] = pos[i] < 0 ? std::numeric_limits<T>::lowest() : x[pos[i]];
    }
  });
  return out;
}

Tensor avg_pool2d(const Tensor& input, const Window2D& win) {
  check_input("AvgPool", input, false);
  const Geometry2D g = Geometry2D::of(input.shape(), win);
  if (win.pt >= win.kh || win.pb >= win.kh || win.pl >= win.kw || win.pr >= win.kw) {
    // A window that reads only padding would divide by zero; TF forbids such padding too.
    fail<InvalidArgumentError>("AvgPool", "padding ({}, {}, {}, {}) must be smaller than the window {}x{}", win.pt,
                               win.pb, win.pl, win.pr, win.kh, win.kw);
  }
  Tensor out = Tensor::empty(input.dtype(), {g.n, g.oh, g.ow, g.c});
  if (out.num_elements() == 0) return out;
  dispatch_dtype(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (detail::kIsFloat<T>) avg_forward<T>(detail::data_of<T>(input), detail::out_data_of<T>(out), g);
  });
  return out;
}

Tensor max_pool2d_grad(const Tensor& input, const Tensor& grad, const Window2D& win) {
  check_input("MaxPoolGrad", input, false);
  const Geometry2D g = Geometry2D::of(input.shape(), win);
  check_grad("MaxPoolGrad", grad, g, input.dtype());
  if (is_half(input.dtype())) {
    return cast(max_pool2d_grad(cast(input, DType::kFloat32), cast(grad, DType::kFloat32), win), input.dtype());
  }
  Tensor dx = Tensor::zeros(input.dtype(), input.shape());
  if (grad.num_elements() == 0) return dx;
  dispatch_dtype(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const std::vector<std::int64_t> pos = argmax_positions<T>(detail::data_of<T>(input), g);
      const T* gp = detail::data_of<T>(grad);
      T* dp = detail::out_data_of<T>(dx);
      for (std::size_t i = 0; i < pos.size(); ++i) {
        if (pos[i] >= 0) dp[pos[i]] += gp[i];
      }
    }
  });
  return dx;
}

Tensor max_pool2d_grad_grad(const Tensor& input, const Tensor& gg, const Window2D& win) {
  check_input("MaxPoolGradGrad", input, false);
  if (!gg.valid() || gg.shape() != input.shape() || gg.dtype() != input.dtype()) {
    fail<InvalidArgumentError>("MaxPoolGradGrad", "the gradient must be a {} tensor of the input's shape {}",
                               dtype_name(input.dtype()), dims_to_string(input.shape()));
  }
  const Geometry2D g = Geometry2D::of(input.shape(), win);
  if (is_half(input.dtype())) {
    return cast(max_pool2d_grad_grad(cast(input, DType::kFloat32), cast(gg, DType::kFloat32), win), input.dtype());
  }
  Tensor out = Tensor::zeros(input.dtype(), {g.n, g.oh, g.ow, g.c});
  if (out.num_elements() == 0) return out;
  dispatch_dtype(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const std::vector<std::int64_t> pos = argmax_positions<T>(detail::data_of<T>(input), g);
      const T* src = detail::data_of<T>(gg);
      T* dst = detail::out_data_of<T>(out);
      for (std::size_t i = 0; i < pos.size(); ++i) dst[i] = pos[i] < 0 ? T(0) : src[pos[i]];
    }
  });
  return out;
}

Tensor avg_pool2d_grad(const Shape& input_shape, const Tensor& grad, const Window2D& win) {
  if (input_shape.size() != 4) {
    fail<InvalidArgumentError>("AvgPoolGrad", "orig_input_shape must be 4-dimensional, got {}",
                               dims_to_string(input_shape));
  }
  const Geometry2D g = Geometry2D::of(input_shape, win);
  check_input("AvgPoolGrad", grad, false);
  check_grad("AvgPoolGrad", grad, g, grad.dtype());
  if (is_half(grad.dtype())) {
    return cast(avg_pool2d_grad(input_shape, cast(grad, DType::kFloat32), win), grad.dtype());
  }
  Tensor dx = Tensor::zeros(grad.dtype(), input_shape);
  if (grad.num_elements() == 0) return dx;
  dispatch_dtype(grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) avg_backward<T>(detail::data_of<T>(grad), detail::out_data_of<T>(dx), g);
  });
  return dx;
}

}  // namespace tpustrategy
