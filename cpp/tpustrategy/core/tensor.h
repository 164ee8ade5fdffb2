#pragma once
// An immutable dense tensor: dtype, row-major shape and a shared buffer on a
// simulated device. Copies of a Tensor share the buffer; kernels always write
// into fresh buffers, so sharing is safe (a Mirrored value is stored once).
#include <cstdint>
#include <memory>
#include <span>

#include "tpustrategy/core/buffer.h"
#include "tpustrategy/core/dtype.h"
#include "tpustrategy/core/placement.h"
#include "tpustrategy/core/shape.h"

namespace tpustrategy {

class Tensor {
 public:
  Tensor() = default;
  Tensor(DType dtype, Shape shape, std::shared_ptr<Buffer> buffer);

  // Uninitialised tensor on `device` (default: the current device).
  static Tensor empty(DType dtype, Shape shape, DevicePtr device = nullptr);
  static Tensor zeros(DType dtype, Shape shape, DevicePtr device = nullptr);
  // Copies `values` (converted to `dtype`) into a new tensor of `shape`.
  template <typename T>
  static Tensor from_vector(const std::vector<T>& values, Shape shape, DevicePtr device = nullptr);
  template <typename T>
  static Tensor scalar(T value, DevicePtr device = nullptr) {
    return from_vector(std::vector<T>{value}, {}, std::move(device));
  }

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  std::int64_t num_elements() const { return tpustrategy::num_elements(shape_); }
  std::int64_t nbytes() const { return num_elements() * static_cast<std::int64_t>(dtype_size(dtype_)); }
  const std::shared_ptr<Buffer>& buffer() const { return buffer_; }
  const DevicePtr& device() const;
  bool valid() const { return buffer_ != nullptr; }
  // Identity of this tensor value (copies share it; reshaped views and kernel outputs get new ones):
  // what gradient tapes key on, since buffers can be shared between distinct tensors. 0 = invalid.
  std::uint64_t id() const { return id_; }

  const void* raw_data() const { return buffer_ ? buffer_->data() : nullptr; }
  // Only kernels that just allocated the tensor write through this.
  void* mutable_raw_data() const { return buffer_ ? buffer_->data() : nullptr; }
  template <typename T>
  const T* data() const {
    check_type(dtype_of<T>());
    return static_cast<const T*>(raw_data());
  }
  template <typename T>
  T* mutable_data() const {
    check_type(dtype_of<T>());
    return static_cast<T*>(mutable_raw_data());
  }
  // Element values converted to T (for tests and small host-side logic).
  template <typename T>
  std::vector<T> to_vector() const;

  // Same buffer, new shape with the same element count (no copy).
  Tensor reshaped(Shape shape) const;
  // A deep copy placed on `device`.
  Tensor copy_to(DevicePtr device) const;

 private:
  void check_type(DType requested) const;

  DType dtype_ = DType::kFloat32;
  Shape shape_;
  std::shared_ptr<Buffer> buffer_;
  std::uint64_t id_ = 0;
};

template <typename T>
Tensor Tensor::from_vector(const std::vector<T>& values, Shape shape, DevicePtr device) {
  Tensor t = empty(dtype_of<T>(), std::move(shape), std::move(device));
  if (static_cast<std::int64_t>(values.size()) != t.num_elements()) {
    throw std::invalid_argument("[Tensor::from_vector] value count does not match the shape");
  }
  std::copy(values.begin(), values.end(), t.mutable_data<T>());
  return t;
}

template <typename T>
std::vector<T> Tensor::to_vector() const {
  std::vector<T> out(static_cast<std::size_t>(num_elements()));
  dispatch_any_dtype(dtype_, [&](auto tag) {
    using S = decltype(tag);
    const S* src = static_cast<const S*>(raw_data());
    if constexpr (std::is_same_v<S, T>) {
      std::copy(src, src + out.size(), out.begin());
    } else if constexpr (kIsComplex<S> || kIsComplex<T>) {
      throw std::invalid_argument("[Tensor::to_vector] complex values need a complex element type");
    } else {
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<T>(static_cast<double>(src[i]));
    }
  });
  return out;
}

}  // namespace tpustrategy
