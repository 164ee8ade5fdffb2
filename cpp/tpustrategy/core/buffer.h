#pragma once
// An immutable-by-convention block of memory on a simulated device. Its bytes
// are charged to the device for as long as the buffer lives. A buffer either
// owns aligned memory or borrows memory kept alive by an opaque owner (used for
// zero-copy views whose owner lives outside the core, e.g. another tensor).
#include <cstdint>
#include <memory>

#include "tpustrategy/core/device.h"

namespace tpustrategy {

class Buffer {
 public:
  // Allocates `nbytes` (64-byte aligned) on `device`; throws ResourceExhaustedError.
  Buffer(std::int64_t nbytes, DevicePtr device);
  // Borrows `data`; `owner` keeps it alive. Charged to `device` like owned memory.
  Buffer(void* data, std::int64_t nbytes, DevicePtr device, std::shared_ptr<void> owner);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const { return data_; }
  std::int64_t nbytes() const { return nbytes_; }
  const DevicePtr& device() const { return device_; }
  bool owns_memory() const { return owner_ == nullptr; }

 private:
  void* data_ = nullptr;
  std::int64_t nbytes_;
  DevicePtr device_;
  std::shared_ptr<void> owner_;
};

}  // namespace tpustrategy
