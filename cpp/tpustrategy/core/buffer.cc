#include "tpustrategy/core/buffer.h"

#include "tpustrategy/core/buffer_cache.h"
#include "tpustrategy/core/errors.h"

namespace tpustrategy {

// Owned memory comes from the device's BufferCache and goes back to it; the block's capacity is
// size_class(nbytes), so the buffer need not store it.
Buffer::Buffer(std::int64_t nbytes, DevicePtr device) : nbytes_(nbytes), device_(std::move(device)) {
  if (nbytes < 0) fail<ValueError>("Buffer", "negative size {}", nbytes);
  if (device_) device_->allocate(nbytes);
  if (nbytes > 0) {
    try {
      data_ = BufferCache::of(device_).acquire(static_cast<std::size_t>(nbytes)).data;
    } catch (...) {
      if (device_) device_->release(nbytes);
      throw;
    }
  }
}

Buffer::Buffer(void* data, std::int64_t nbytes, DevicePtr device, std::shared_ptr<void> owner)
    : data_(data), nbytes_(nbytes), device_(std::move(device)), owner_(std::move(owner)) {
  if (device_) device_->allocate(nbytes);
}

Buffer::~Buffer() {
  if (owner_ == nullptr && data_ != nullptr) {
    const auto bytes = static_cast<std::size_t>(nbytes_);
    BufferCache::of(device_).give_back({data_, BufferCache::size_class(bytes)});
  }
  if (device_) device_->release(nbytes_);
}

}  // namespace tpustrategy
