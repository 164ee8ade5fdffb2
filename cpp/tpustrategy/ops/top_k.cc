#include "tpustrategy/ops/top_k.h"

#include <algorithm>
#include <numeric>
#include <type_traits>
#include <vector>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/broadcast.h"
#include "tpustrategy/ops/eigen_util.h"
#include "tpustrategy/parallel/worker_pool.h"

namespace tpustrategy {

std::pair<Tensor, Tensor> top_k(const Tensor& x, std::int64_t k, DType index_type) {
  const char* where = "TopKV2";
  detail::check_valid(x, where);
  if (x.rank() == 0) fail<InvalidArgumentError>(where, "input must be >= 1-D, got shape {}", dims_to_string(x.shape()));
  if (k < 0) fail<InvalidArgumentError>(where, "Need k >= 0, got {}", k);
  const std::int64_t n = x.shape().back();
  if (n < k) fail<InvalidArgumentError>(where, "input must have at least k columns. Had {}, needed {}", n, k);
  if (x.dtype() == DType::kBool) fail<TypeError>(where, "top_k does not support bool tensors");
  if (index_type != DType::kInt32 && index_type != DType::kInt64) {
    fail<TypeError>(where, "index_type must be int32 or int64, got {}", dtype_name(index_type));
  }
  Shape out_shape = x.shape();
  out_shape.back() = k;
  Tensor values = Tensor::empty(x.dtype(), out_shape), indices = Tensor::empty(index_type, out_shape);
  const std::int64_t rows = n == 0 ? 0 : x.num_elements() / n;
  if (values.num_elements() == 0) return {values, indices};
  dispatch_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      const T* src = detail::data_of<T>(x);
      T* dst = detail::out_data_of<T>(values);
      const std::int64_t grain = std::max<std::int64_t>(1, kElementwiseGrain / std::max<std::int64_t>(n, 1));
      parallel_for(rows, grain, [&](std::int64_t b, std::int64_t e) {
        std::vector<std::int64_t> order(static_cast<std::size_t>(n));
        for (std::int64_t r = b; r < e; ++r) {
          const T* row = src + r * n;
          std::iota(order.begin(), order.end(), 0);
          // Larger first, lower index first among equals; NaN before every number, so the order is a strict
          // weak order whatever the values (TF's own placement of NaN depends on its heap; not reproduced).
          auto before = [row](std::int64_t i, std::int64_t j) {
            const bool nan_i = row[i] != row[i], nan_j = row[j] != row[j];
            if (nan_i != nan_j) return nan_i;
            if (!nan_i && row[i] != row[j]) return row[i] > row[j];
            return i < j;
          };
          std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
          for (std::int64_t j = 0; j < k; ++j) {
            dst[r * k + j] = row[order[j]];
            if (index_type == DType::kInt32) {
              detail::out_data_of<std::int32_t>(indices)[r * k + j] = static_cast<std::int32_t>(order[j]);
            } else {
              detail::out_data_of<std::int64_t>(indices)[r * k + j] = order[j];
            }
          }
        }
      });
    }
  });
  return {values, indices};
}

}  // namespace tpustrategy
