#include "tpustrategy/ops/fused_update.h"

#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/broadcast.h"
#include "tpustrategy/ops/eigen_util.h"
#include "tpustrategy/parallel/worker_pool.h"

namespace tpustrategy {

Tensor gradient_descent_update(const Tensor& var, const Tensor& grad, const Tensor& lr) {
  constexpr const char* kWhere = "ApplyGradientDescent";
  if (!var.valid() || !grad.valid() || !lr.valid()) {
    fail<InvalidArgumentError>(kWhere, "var, grad and lr must be tensors, got an empty (default-constructed) one");
  }
  if (!is_floating(var.dtype()) || grad.dtype() != var.dtype() || lr.dtype() != var.dtype()) {
    fail<InvalidArgumentError>(kWhere, "var, grad and lr must share one floating dtype, got {}, {} and {}",
                               dtype_name(var.dtype()), dtype_name(grad.dtype()), dtype_name(lr.dtype()));
  }
  if (grad.shape() != var.shape()) {
    fail<InvalidArgumentError>(kWhere, "var and grad do not have the same shape: {} and {}",
                               dims_to_string(var.shape()), dims_to_string(grad.shape()));
  }
  if (lr.num_elements() != 1) {
    fail<InvalidArgumentError>(kWhere, "lr is not a scalar: shape {}", dims_to_string(lr.shape()));
  }
  Tensor out = Tensor::empty(var.dtype(), var.shape(), var.device());
  dispatch_dtype(var.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (detail::kIsFloat<T>) {
      using C = detail::Compute<T>;
      const T* v = detail::data_of<T>(var);
      const T* g = detail::data_of<T>(grad);
      T* o = detail::out_data_of<T>(out);
      const C rate = static_cast<C>(detail::data_of<T>(lr)[0]);
      parallel_for(var.num_elements(), kElementwiseGrain, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
          const T step = static_cast<T>(static_cast<C>(g[i]) * rate);  // rounded as the separate multiply
          o[i] = static_cast<T>(static_cast<C>(v[i]) - static_cast<C>(step));
        }
      });
    }
  });
  return out;
}

}  // namespace tpustrategy
