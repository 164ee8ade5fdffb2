#include "tpustrategy/core/buffer.h"

#include <cstdlib>
#include <new>

#include "tpustrategy/core/errors.h"

namespace tpustrategy {

namespace {
constexpr std::size_t kAlignment = 64;
}

Buffer::Buffer(std::int64_t nbytes, DevicePtr device) : nbytes_(nbytes), device_(std::move(device)) {
  if (nbytes < 0) fail<ValueError>("Buffer", "negative size {}", nbytes);
  if (device_) device_->allocate(nbytes);
  if (nbytes > 0) {
    std::size_t rounded = (static_cast<std::size_t>(nbytes) + kAlignment - 1) / kAlignment * kAlignment;
    data_ = std::aligned_alloc(kAlignment, rounded);
    if (data_ == nullptr) {
      if (device_) device_->release(nbytes);
      fail<ResourceExhaustedError>("Buffer", "host allocation of {} failed", format_bytes(nbytes));
    }
  }
}

Buffer::Buffer(void* data, std::int64_t nbytes, DevicePtr device, std::shared_ptr<void> owner)
    : data_(data), nbytes_(nbytes), device_(std::move(device)), owner_(std::move(owner)) {
  if (device_) device_->allocate(nbytes);
}

Buffer::~Buffer() {
  if (owner_ == nullptr) std::free(data_);
  if (device_) device_->release(nbytes_);
}

}  // namespace tpustrategy
