#pragma once
// Batching kernels of the input pipeline: stack elements into a batch, split a
// batch back into rows or into consecutive slices, and the row buffer behind
// rebatching (batches of new sizes that cross input-batch boundaries).
// All of them copy: tensors are immutable and a batch owns its own buffer.
#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <vector>

#include "tpustrategy/core/tensor.h"

namespace tpustrategy::data {

// Stacks N tensors of equal dtype and shape S into one tensor of shape [N] + S.
// Throws InvalidArgumentError naming the component and the first mismatching element.
// `component` is only used in messages (the index of the tensor in the dataset element).
Tensor stack_batch(std::span<const Tensor> elements, int component = 0);

// The rows of `batch` (rank >= 1) as tensors of shape batch.shape[1:].
std::vector<Tensor> unstack_rows(const Tensor& batch);

// Consecutive slices of `batch` along dim 0 with the given sizes (each >= 0, sum <= dim 0);
// rows past the sum are not returned.
std::vector<Tensor> split_rows(const Tensor& batch, std::span<const std::int64_t> sizes);

// Rows [begin, begin + count) of `batch` as a new tensor of shape [count] + batch.shape[1:].
Tensor slice_rows(const Tensor& batch, std::int64_t begin, std::int64_t count);

// Row ranges [begins[i], begins[i] + counts[i]) of `batch`, range i allocated directly on
// devices[i] (null: the current device). This is how a distributed dataset hands each replica
// its slice of a global batch with a single copy into that replica's memory.
std::vector<Tensor> slice_rows_to_devices(const Tensor& batch, std::span<const std::int64_t> begins,
                                          std::span<const std::int64_t> counts, std::span<const DevicePtr> devices);

// Concatenates tensors of equal dtype and equal shape[1:] along dim 0.
Tensor concat_rows(std::span<const Tensor> parts);

// Rows of a stream of batches (each a list of component tensors sharing dim 0),
// handed out again in batches of any size. This is what rebatch(sizes) iterates on.
// Thread-safe: the Python binding releases the GIL around push/pop, so prefetch threads may call them at once.
class RowBuffer {
 public:
  // Appends one input batch. Components must keep the count, dtypes and row shapes of the first batch.
  void push(std::vector<Tensor> components);
  std::int64_t rows_available() const {
    std::lock_guard lock(mutex_);
    return rows_available_;
  }
  // Whether a batch was pushed yet (so that the row shapes are known).
  bool has_layout() const {
    std::lock_guard lock(mutex_);
    return !layout_.empty();
  }
  // Removes the first `rows` rows (0 <= rows <= rows_available()) as one batch per component;
  // `rows == 0` gives empty batches of shape [0] + row shape.
  std::vector<Tensor> pop(std::int64_t rows);

 private:
  struct Pending {
    std::vector<Tensor> components;
    std::int64_t offset = 0;  // rows of this batch already handed out
    std::int64_t rows = 0;
  };
  mutable std::mutex mutex_;    // guards every member below
  std::vector<Tensor> layout_;  // one empty [0] + row-shape tensor per component
  std::deque<Pending> pending_;
  std::int64_t rows_available_ = 0;
};

}  // namespace tpustrategy::data
