#include "tpustrategy/core/device.h"

#include <fmt/format.h>

#include "tpustrategy/core/errors.h"

namespace tpustrategy {

Device::Device(std::string name, std::string type, int task, int index, std::array<int, 4> coordinates,
               std::int64_t capacity_bytes, int host_index)
    : name_(std::move(name)),
      type_(std::move(type)),
      task_(task),
      index_(index),
      coordinates_(coordinates),
      host_index_(host_index),
      default_capacity_(capacity_bytes) {
  memory_.capacity = capacity_bytes;
}

void Device::allocate(std::int64_t bytes) {
  std::lock_guard lock(mutex_);
  if (bytes > memory_.capacity - memory_.current) {
    fail<ResourceExhaustedError>("Device::allocate",
                                 "OOM when allocating {} ({} bytes) on {}: {} of {} in use, {} free",
                                 format_bytes(bytes), bytes, name_, format_bytes(memory_.current),
                                 format_bytes(memory_.capacity), format_bytes(memory_.capacity - memory_.current));
  }
  memory_.current += bytes;
  if (memory_.current > memory_.peak) memory_.peak = memory_.current;
  if (memory_.current > window_peak_) window_peak_ = memory_.current;
}

void Device::release(std::int64_t bytes) noexcept {
  std::lock_guard lock(mutex_);
  memory_.current -= bytes;
}

DeviceMemoryInfo Device::memory_info() const {
  std::lock_guard lock(mutex_);
  return memory_;
}

void Device::reset_peak() {
  std::lock_guard lock(mutex_);
  memory_.peak = memory_.current;
}

std::int64_t Device::restart_window_peak() {
  std::lock_guard lock(mutex_);
  const std::int64_t previous = window_peak_;
  window_peak_ = memory_.current;
  return previous;
}

std::int64_t Device::window_peak() const {
  std::lock_guard lock(mutex_);
  return window_peak_;
}

void Device::set_capacity(std::int64_t bytes) {
  std::lock_guard lock(mutex_);
  if (bytes < memory_.current) {
    fail<ValueError>("Device::set_capacity", "cannot set the memory limit of {} to {} ({} bytes): {} already in use",
                     name_, format_bytes(bytes), bytes, format_bytes(memory_.current));
  }
  memory_.capacity = bytes;
}

std::string format_bytes(std::int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  auto value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  if (unit == 0) return fmt::format("{} B", bytes);
  return fmt::format("{:.2f} {}", value, units[unit]);
}

}  // namespace tpustrategy
