#include "tpustrategy/ops/relu_grad.h"

#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/broadcast.h"
#include "tpustrategy/ops/eigen_util.h"
#include "tpustrategy/parallel/worker_pool.h"

namespace tpustrategy {

Tensor relu_grad(const Tensor& gradients, const Tensor& features) {
  constexpr const char* where = "ReluGrad";
  detail::check_valid(gradients, where);
  detail::check_valid(features, where);
  if (gradients.dtype() != features.dtype() || !is_floating(features.dtype())) {
    fail<InvalidArgumentError>(where, "gradients and features must have one floating dtype, got {} and {}",
                               dtype_name(gradients.dtype()), dtype_name(features.dtype()));
  }
  if (gradients.shape() != features.shape()) {
    fail<InvalidArgumentError>(where, "gradients and features must have the same shape, got {} and {}",
                               dims_to_string(gradients.shape()), dims_to_string(features.shape()));
  }
  Tensor out = Tensor::empty(features.dtype(), features.shape());
  dispatch_dtype(features.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (detail::kIsFloat<T>) {
      const T* __restrict g = detail::data_of<T>(gradients);
      const T* __restrict y = detail::data_of<T>(features);
      T* __restrict dst = detail::out_data_of<T>(out);
      parallel_for(out.num_elements(), kElementwiseGrain, [g, y, dst](std::int64_t begin, std::int64_t end) {
        // Both loads unconditional and the pointers local: the compiler makes this a vector compare-and-select
        // (a branch on the feature's sign mispredicts half the time on real activations).
        for (std::int64_t i = begin; i < end; ++i) {
          const T gi = g[i];
          dst[i] = y[i] > T(0) ? gi : T(0);
        }
      });
    }
  });
  return out;
}

}  // namespace tpustrategy
