#include "tpustrategy/data/batching.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/parallel/worker_pool.h"

namespace tpustrategy::data {

namespace {

// Copies below this size run inline: a pool hand-off costs more than the memcpy.
constexpr std::int64_t kParallelCopyBytes = std::int64_t{1} << 20;

Shape row_shape(const Tensor& t) { return {t.shape().begin() + 1, t.shape().end()}; }

std::int64_t row_bytes(const Tensor& t) {
  return num_elements(row_shape(t)) * static_cast<std::int64_t>(dtype_size(t.dtype()));
}

// Runs copy(i) for i in [0, n), over the worker pool when `total_bytes` is large.
template <typename Copy>
void copy_pieces(std::int64_t n, std::int64_t total_bytes, const Copy& copy) {
  if (total_bytes < kParallelCopyBytes || n < 2) {
    for (std::int64_t i = 0; i < n; ++i) copy(i);
    return;
  }
  parallel_for(n, 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) copy(i);
  });
}

void require_rank1(const Tensor& t, const char* where) {
  if (t.rank() < 1) {
    fail<InvalidArgumentError>(where, "Input element must have a non-scalar value in each component.");
  }
}

}  // namespace

Tensor stack_batch(std::span<const Tensor> elements, int component) {
  if (elements.empty()) fail<InvalidArgumentError>("stack_batch", "cannot stack an empty list of elements");
  const Tensor& first = elements.front();
  for (std::size_t i = 1; i < elements.size(); ++i) {
    const Tensor& e = elements[i];
    if (e.dtype() != first.dtype()) {
      fail<InvalidArgumentError>("stack_batch", "Cannot batch tensors of different dtypes in component {}: {} and {}",
                                 component, dtype_name(first.dtype()), dtype_name(e.dtype()));
    }
    if (e.shape() != first.shape()) {
      fail<InvalidArgumentError>("stack_batch",
                                 "Cannot batch tensors with different shapes in component {}. First element had "
                                 "shape {} and element {} had shape {}.",
                                 component, shape_to_string(first.shape()), i, shape_to_string(e.shape()));
    }
  }
  Shape shape{static_cast<std::int64_t>(elements.size())};
  shape.insert(shape.end(), first.shape().begin(), first.shape().end());
  Tensor out = Tensor::empty(first.dtype(), std::move(shape));
  const auto bytes = static_cast<std::size_t>(first.nbytes());
  auto* dst = static_cast<char*>(out.mutable_raw_data());
  copy_pieces(static_cast<std::int64_t>(elements.size()), out.nbytes(), [&](std::int64_t i) {
    if (bytes > 0) std::memcpy(dst + i * bytes, elements[static_cast<std::size_t>(i)].raw_data(), bytes);
  });
  return out;
}

std::vector<Tensor> unstack_rows(const Tensor& batch) {
  require_rank1(batch, "unstack_rows");
  const Shape shape = row_shape(batch);
  const auto bytes = static_cast<std::size_t>(row_bytes(batch));
  std::vector<Tensor> rows;
  rows.reserve(static_cast<std::size_t>(batch.shape()[0]));
  for (std::int64_t i = 0; i < batch.shape()[0]; ++i) rows.push_back(Tensor::empty(batch.dtype(), shape));
  const auto* src = static_cast<const char*>(batch.raw_data());
  copy_pieces(static_cast<std::int64_t>(rows.size()), batch.nbytes(), [&](std::int64_t i) {
    if (bytes > 0) std::memcpy(rows[static_cast<std::size_t>(i)].mutable_raw_data(), src + i * bytes, bytes);
  });
  return rows;
}

std::vector<Tensor> split_rows(const Tensor& batch, std::span<const std::int64_t> sizes) {
  require_rank1(batch, "split_rows");
  std::int64_t total = 0;
  for (std::int64_t size : sizes) {
    if (size < 0) fail<InvalidArgumentError>("split_rows", "slice sizes must be >= 0, got {}", size);
    total += size;
  }
  if (total > batch.shape()[0]) {
    fail<InvalidArgumentError>("split_rows", "slice sizes add up to {} but the batch has only {} rows", total,
                               batch.shape()[0]);
  }
  const auto bytes = row_bytes(batch);
  std::vector<Tensor> out;
  std::vector<std::int64_t> starts;
  std::int64_t start = 0;
  for (std::int64_t size : sizes) {
    Shape shape = batch.shape();
    shape[0] = size;
    out.push_back(Tensor::empty(batch.dtype(), std::move(shape)));
    starts.push_back(start);
    start += size;
  }
  const auto* src = static_cast<const char*>(batch.raw_data());
  copy_pieces(static_cast<std::int64_t>(out.size()), total * bytes, [&](std::int64_t i) {
    const Tensor& piece = out[static_cast<std::size_t>(i)];
    if (piece.nbytes() > 0) {
      std::memcpy(piece.mutable_raw_data(), src + starts[static_cast<std::size_t>(i)] * bytes,
                  static_cast<std::size_t>(piece.nbytes()));
    }
  });
  return out;
}

Tensor slice_rows(const Tensor& batch, std::int64_t begin, std::int64_t count) {
  require_rank1(batch, "slice_rows");
  if (begin < 0 || count < 0 || begin + count > batch.shape()[0]) {
    fail<InvalidArgumentError>("slice_rows", "rows [{}, {}) are out of range for a batch of {}", begin, begin + count,
                               batch.shape()[0]);
  }
  Shape shape = batch.shape();
  shape[0] = count;
  Tensor out = Tensor::empty(batch.dtype(), std::move(shape));
  if (out.nbytes() > 0) {
    std::memcpy(out.mutable_raw_data(), static_cast<const char*>(batch.raw_data()) + begin * row_bytes(batch),
                static_cast<std::size_t>(out.nbytes()));
  }
  return out;
}

std::vector<Tensor> slice_rows_to_devices(const Tensor& batch, std::span<const std::int64_t> begins,
                                          std::span<const std::int64_t> counts, std::span<const DevicePtr> devices) {
  require_rank1(batch, "slice_rows_to_devices");
  if (begins.size() != counts.size() || counts.size() != devices.size()) {
    fail<InvalidArgumentError>("slice_rows_to_devices", "got {} begins, {} counts and {} devices", begins.size(),
                               counts.size(), devices.size());
  }
  const std::int64_t rows = batch.shape()[0];
  std::int64_t total_bytes = 0;
  const auto bytes = row_bytes(batch);
  for (std::size_t i = 0; i < begins.size(); ++i) {
    if (begins[i] < 0 || counts[i] < 0 || begins[i] + counts[i] > rows) {
      fail<InvalidArgumentError>("slice_rows_to_devices", "rows [{}, {}) are out of range for a batch of {}", begins[i],
                                 begins[i] + counts[i], rows);
    }
    total_bytes += counts[i] * bytes;
  }
  std::vector<Tensor> out;
  out.reserve(begins.size());
  for (std::size_t i = 0; i < begins.size(); ++i) {
    Shape shape = batch.shape();
    shape[0] = counts[i];
    out.push_back(Tensor::empty(batch.dtype(), std::move(shape), devices[i]));  // charged to that device
  }
  const auto* src = static_cast<const char*>(batch.raw_data());
  copy_pieces(static_cast<std::int64_t>(out.size()), total_bytes, [&](std::int64_t i) {
    const Tensor& piece = out[static_cast<std::size_t>(i)];
    if (piece.nbytes() > 0) {
      std::memcpy(piece.mutable_raw_data(), src + begins[static_cast<std::size_t>(i)] * bytes,
                  static_cast<std::size_t>(piece.nbytes()));
    }
  });
  return out;
}

Tensor concat_rows(std::span<const Tensor> parts) {
  if (parts.empty()) fail<InvalidArgumentError>("concat_rows", "cannot concatenate an empty list of tensors");
  const Tensor& first = parts.front();
  require_rank1(first, "concat_rows");
  std::int64_t rows = 0;
  for (const Tensor& p : parts) {
    require_rank1(p, "concat_rows");
    if (p.dtype() != first.dtype() || row_shape(p) != row_shape(first)) {
      fail<InvalidArgumentError>("concat_rows", "cannot concatenate {} {} with {} {}", dtype_name(first.dtype()),
                                 shape_to_string(first.shape()), dtype_name(p.dtype()), shape_to_string(p.shape()));
    }
    rows += p.shape()[0];
  }
  Shape shape = first.shape();
  shape[0] = rows;
  Tensor out = Tensor::empty(first.dtype(), std::move(shape));
  auto* dst = static_cast<char*>(out.mutable_raw_data());
  std::vector<std::int64_t> offsets;
  std::int64_t offset = 0;
  for (const Tensor& p : parts) {
    offsets.push_back(offset);
    offset += p.nbytes();
  }
  copy_pieces(static_cast<std::int64_t>(parts.size()), out.nbytes(), [&](std::int64_t i) {
    const Tensor& p = parts[static_cast<std::size_t>(i)];
    if (p.nbytes() > 0) {
      std::memcpy(dst + offsets[static_cast<std::size_t>(i)], p.raw_data(), static_cast<std::size_t>(p.nbytes()));
    }
  });
  return out;
}

void RowBuffer::push(std::vector<Tensor> components) {
  if (components.empty()) fail<InvalidArgumentError>("rebatch", "an element needs at least one component");
  for (const Tensor& c : components) require_rank1(c, "rebatch");
  const std::int64_t rows = components.front().shape()[0];
  for (std::size_t i = 0; i < components.size(); ++i) {
    if (components[i].shape()[0] != rows) {
      fail<InvalidArgumentError>("rebatch", "components have different batch sizes: {} in component 0, {} in {}", rows,
                                 components[i].shape()[0], i);
    }
  }
  std::lock_guard lock(mutex_);
  if (layout_.empty()) {
    for (const Tensor& c : components) {
      Shape empty = c.shape();
      empty[0] = 0;
      layout_.push_back(Tensor::empty(c.dtype(), std::move(empty)));
    }
  } else {
    if (components.size() != layout_.size()) {
      fail<InvalidArgumentError>("rebatch", "input batches have {} components, then {}", layout_.size(),
                                 components.size());
    }
    for (std::size_t i = 0; i < components.size(); ++i) {
      if (components[i].dtype() != layout_[i].dtype() || row_shape(components[i]) != row_shape(layout_[i])) {
        fail<InvalidArgumentError>("rebatch", "component {} changed from {} rows of {} to {} {}", i,
                                   dtype_name(layout_[i].dtype()), shape_to_string(row_shape(layout_[i])),
                                   dtype_name(components[i].dtype()), shape_to_string(components[i].shape()));
      }
    }
  }
  if (rows == 0) return;
  rows_available_ += rows;
  pending_.push_back(Pending{std::move(components), 0, rows});
}

std::vector<Tensor> RowBuffer::pop(std::int64_t rows) {
  std::lock_guard lock(mutex_);
  if (rows < 0 || rows > rows_available_) {
    fail<InvalidArgumentError>("rebatch", "cannot take {} rows, {} are buffered", rows, rows_available_);
  }
  if (layout_.empty()) fail<FailedPreconditionError>("rebatch", "no batch was pushed yet");
  const std::size_t num_components = layout_.size();
  std::vector<std::vector<Tensor>> pieces(num_components);
  std::int64_t needed = rows;
  while (needed > 0) {
    Pending& front = pending_.front();
    const std::int64_t take = std::min(needed, front.rows - front.offset);
    for (std::size_t c = 0; c < num_components; ++c) {
      const Tensor& batch = front.components[c];
      if (front.offset == 0 && take == front.rows) {
        pieces[c].push_back(batch);  // a whole input batch: share it, no copy
      } else {
        pieces[c].push_back(slice_rows(batch, front.offset, take));
      }
    }
    front.offset += take;
    needed -= take;
    if (front.offset == front.rows) pending_.pop_front();
  }
  rows_available_ -= rows;
  std::vector<Tensor> out;
  out.reserve(num_components);
  for (std::size_t c = 0; c < num_components; ++c) {
    if (pieces[c].empty()) {
      out.push_back(layout_[c]);
    } else if (pieces[c].size() == 1) {
      out.push_back(std::move(pieces[c][0]));
    } else {
      out.push_back(concat_rows(pieces[c]));
    }
  }
  return out;
}

}  // namespace tpustrategy::data
