#include "tpustrategy/core/tensor.h"

#include <atomic>
#include <cstring>

#include "tpustrategy/core/errors.h"

namespace tpustrategy {

namespace {
std::uint64_t next_tensor_id() {
  static std::atomic<std::uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}
}  // namespace

Tensor::Tensor(DType dtype, Shape shape, std::shared_ptr<Buffer> buffer)
    : dtype_(dtype), shape_(std::move(shape)), buffer_(std::move(buffer)) {
  check_shape(shape_, "Tensor");
  if (!buffer_ || buffer_->nbytes() < nbytes()) fail<InternalError>("Tensor", "buffer smaller than the shape needs");
  id_ = next_tensor_id();
}

Tensor Tensor::empty(DType dtype, Shape shape, DevicePtr device) {
  check_shape(shape, "Tensor::empty");
  std::int64_t bytes = tpustrategy::num_elements(shape) * static_cast<std::int64_t>(dtype_size(dtype));
  auto buffer = std::make_shared<Buffer>(bytes, placement_device(std::move(device)));
  return {dtype, std::move(shape), std::move(buffer)};
}

Tensor Tensor::zeros(DType dtype, Shape shape, DevicePtr device) {
  Tensor t = empty(dtype, std::move(shape), std::move(device));
  if (t.nbytes() > 0) std::memset(t.mutable_raw_data(), 0, static_cast<std::size_t>(t.nbytes()));
  return t;
}

const DevicePtr& Tensor::device() const {
  static const DevicePtr kNone;
  return buffer_ ? buffer_->device() : kNone;
}

void Tensor::check_type(DType requested) const {
  if (requested != dtype_) {
    fail<InvalidArgumentError>("Tensor", "tensor has dtype {} but {} was requested", dtype_name(dtype_),
                               dtype_name(requested));
  }
}

Tensor Tensor::reshaped(Shape shape) const {
  check_shape(shape, "reshape");
  if (tpustrategy::num_elements(shape) != num_elements()) {
    fail<InvalidArgumentError>("reshape",
                               "Input to reshape is a tensor with {} values, but the requested shape {} has {}",
                               num_elements(), shape_to_string(shape), tpustrategy::num_elements(shape));
  }
  return {dtype_, std::move(shape), buffer_};
}

Tensor Tensor::copy_to(DevicePtr device) const {
  Tensor out = empty(dtype_, shape_, std::move(device));
  if (nbytes() > 0) std::memcpy(out.mutable_raw_data(), raw_data(), static_cast<std::size_t>(nbytes()));
  return out;
}

}  // namespace tpustrategy
