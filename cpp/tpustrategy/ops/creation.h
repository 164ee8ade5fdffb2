#pragma once
// Tensor creation and selection: fill, zeros / ones (_like), range, one_hot,
// where (select with broadcasting, or the coordinates of true elements), identity.
#include <cstdint>
#include <optional>

#include "tpustrategy/core/tensor.h"

namespace tpustrategy {

// A tensor of `shape` with every element equal to the scalar `value` (its dtype).
Tensor fill(const Shape& shape, const Tensor& value);
Tensor zeros(const Shape& shape, DType dtype = DType::kFloat32);
Tensor ones(const Shape& shape, DType dtype = DType::kFloat32);
Tensor zeros_like(const Tensor& x, std::optional<DType> dtype = std::nullopt);
Tensor ones_like(const Tensor& x, std::optional<DType> dtype = std::nullopt);
// tf.range: [start, limit) by delta; the three scalars share one numeric dtype.
Tensor range(const Tensor& start, const Tensor& limit, const Tensor& delta);
// tf.one_hot: indices (int32/int64) of any shape; depth inserted at `axis` (-1 = last);
// on_value / off_value are scalars of the output dtype. Out-of-range indices give all off_value.
Tensor one_hot(const Tensor& indices, std::int64_t depth, const Tensor& on_value, const Tensor& off_value,
               std::int64_t axis = -1);
// tf.where(cond, x, y): elements of x where cond else y, all three broadcast together.
Tensor where(const Tensor& condition, const Tensor& x, const Tensor& y);
// tf.where(cond): int64 coordinates [num_true, rank] of the true elements, in row-major order.
Tensor where(const Tensor& condition);
// tf.identity: the same values on the current device (shared when already there).
Tensor identity(const Tensor& x);

}  // namespace tpustrategy
