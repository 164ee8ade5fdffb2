#pragma once
// Layout ops: reshape, expand_dims, squeeze, transpose, concat, stack, split,
// tile, broadcast_to, slice and gather. Reshape-like ops share the input's
// buffer (tensors are immutable); the others copy through one strided-copy
// kernel that reads the input at arbitrary (zero, negative, permuted) strides.
#include <cstdint>
#include <vector>

#include "tpustrategy/core/tensor.h"

namespace tpustrategy {

// out[i0..in] = x.flat[base + sum(ik * strides[k])]; the caller guarantees every read is in bounds.
Tensor strided_copy(const Tensor& x, const Shape& out_shape, const std::vector<std::int64_t>& strides,
                    std::int64_t base);

// `shape` may contain one -1 (inferred). Shares the buffer.
Tensor reshape(const Tensor& x, const std::vector<std::int64_t>& shape);
// Inserts a 1 at `axis` in [-rank-1, rank]. Shares the buffer.
Tensor expand_dims(const Tensor& x, std::int64_t axis);
// Removes the given size-1 axes (all size-1 axes when `axes` is empty). Shares the buffer.
Tensor squeeze(const Tensor& x, const std::vector<std::int64_t>& axes = {});
// Permutes the axes (reverses them when `perm` is empty).
Tensor transpose(const Tensor& x, const std::vector<std::int64_t>& perm = {});
Tensor concat(const std::vector<Tensor>& values, std::int64_t axis);
Tensor stack(const std::vector<Tensor>& values, std::int64_t axis = 0);
// Splits into `num` equal parts along `axis`.
std::vector<Tensor> split(const Tensor& x, std::int64_t num, std::int64_t axis = 0);
// Splits into parts of the given sizes (one may be -1) along `axis`.
std::vector<Tensor> split_sizes(const Tensor& x, const std::vector<std::int64_t>& sizes, std::int64_t axis = 0);
// The inverse of stack: the slices along `axis`.
std::vector<Tensor> unstack(const Tensor& x, std::int64_t axis = 0);
Tensor tile(const Tensor& x, const std::vector<std::int64_t>& multiples);
Tensor broadcast_to(const Tensor& x, const Shape& shape);
// tf.slice: `size[i] == -1` means "to the end".
Tensor slice(const Tensor& x, const std::vector<std::int64_t>& begin, const std::vector<std::int64_t>& size);
// tf.gather along `axis` with int32/int64 indices in [0, dim).
Tensor gather(const Tensor& x, const Tensor& indices, std::int64_t axis = 0);

}  // namespace tpustrategy
