#include "tpustrategy/runtime/device_registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <tuple>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/runtime/replica_context.h"

namespace tpustrategy {

namespace {

constexpr std::int64_t kHostMemoryBytes = std::int64_t{64} << 30;
constexpr std::int64_t kDefaultGpuBytes = std::int64_t{16} << 30;
constexpr std::string_view kClientJob = "localhost";  // TF's job of a cluster client's own devices

std::optional<int> parse_int(std::string_view text) {
  int value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

std::string upper(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// The job in a canonical device name ("/job:worker/replica:0/..." → "worker").
std::string_view job_of(const Device& device) {
  std::string_view name = device.name();
  constexpr std::string_view kPrefix = "/job:";
  if (name.substr(0, kPrefix.size()) != kPrefix) return {};
  name.remove_prefix(kPrefix.size());
  return name.substr(0, name.find('/'));
}

bool matches(const DeviceSpec& spec, const Device& device) {
  if (spec.type && *spec.type != device.type()) return false;
  if (spec.index && *spec.index != device.index()) return false;
  return !spec.task || *spec.task == device.task();  // job: only a tie-break (find), replica: always 0
}

// Keeps the devices `keep` accepts, unless that would leave none.
template <typename Keep>
void narrow(std::vector<DevicePtr>& found, Keep keep) {
  if (std::any_of(found.begin(), found.end(), [&](const DevicePtr& d) { return keep(*d); }))
    std::erase_if(found, [&](const DevicePtr& d) { return !keep(*d); });
}

// The device of tensors created outside any device scope.
DevicePtr default_cpu_device() { return DeviceRegistry::global().default_cpu(); }

[[maybe_unused]] const bool kDefaultDeviceRegistered = (set_default_device_provider(&default_cpu_device), true);

}  // namespace

DeviceSpec parse_device_spec(std::string_view name) {
  DeviceSpec spec;
  auto bad = [&](std::string_view why) {
    fail<ValueError>("DeviceSpec", "cannot parse device name '{}': {}", std::string(name), std::string(why));
  };
  std::string_view rest = name;
  while (!rest.empty()) {
    if (rest.front() == '/') {
      rest.remove_prefix(1);
      continue;
    }
    auto end = rest.find('/');
    std::string_view part = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
    auto colon = part.find(':');
    if (colon == std::string_view::npos) bad(fmt::format("'{}' is not key:value", part));
    std::string key(part.substr(0, colon));
    std::string_view value = part.substr(colon + 1);
    for (auto& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (key == "job") {
      spec.job = std::string(value);
    } else if (key == "replica" || key == "task") {
      auto v = parse_int(value);
      if (!v) bad(fmt::format("{} '{}' is not a non-negative integer", key, value));
      (key == "replica" ? spec.replica : spec.task) = v;
    } else {
      // "device:TPU:3" or "TPU:3" / "cpu:0"
      std::string_view type = part.substr(0, colon);
      if (key == "device") {
        auto second = value.find(':');
        if (second == std::string_view::npos) bad("device needs type:index");
        type = value.substr(0, second);
        value = value.substr(second + 1);
      }
      std::string t = upper(type);
      if (t != "TPU" && t != "CPU" && t != "GPU") bad(fmt::format("unknown device type '{}'", type));
      spec.type = t;
      if (value != "*") {
        auto v = parse_int(value);
        if (!v) bad(fmt::format("device index '{}' is not a non-negative integer", value));
        spec.index = v;
      }
    }
  }
  return spec;
}

std::string canonical_device_name(std::string_view job, int task, std::string_view type, int index) {
  return fmt::format("/job:{}/replica:0/task:{}/device:{}:{}", job, task, type, index);
}

DeviceRegistry& DeviceRegistry::global() {
  static DeviceRegistry registry;
  return registry;
}

void DeviceRegistry::set_devices(std::vector<DevicePtr> tpu_devices, std::vector<DevicePtr> host_cpus, std::string job,
                                 DevicePtr client_cpu) {
  std::lock_guard lock(mutex_);
  job_ = std::move(job);
  tpus_ = std::move(tpu_devices);
  cpus_ = std::move(host_cpus);
  client_ = std::move(client_cpu);
  if (client_) cpus_.push_back(client_);
  sort_cpus();
  gpus_.clear();
}

bool DeviceRegistry::is_local(const Device& device) const {
  return client_ ? job_of(device) == kClientJob : device.task() == 0;
}

void DeviceRegistry::sort_cpus() {
  std::stable_sort(cpus_.begin(), cpus_.end(), [this](const DevicePtr& a, const DevicePtr& b) {
    return std::tuple(!is_local(*a), a->task(), a->index()) < std::tuple(!is_local(*b), b->task(), b->index());
  });
}

std::vector<DevicePtr> DeviceRegistry::devices(std::string_view type) const {
  std::lock_guard lock(mutex_);
  std::vector<DevicePtr> out;
  std::string t = upper(type);
  if (t.empty() || t == "TPU") out.insert(out.end(), tpus_.begin(), tpus_.end());
  if (t.empty() || t == "CPU") out.insert(out.end(), cpus_.begin(), cpus_.end());
  if (t.empty() || t == "GPU") out.insert(out.end(), gpus_.begin(), gpus_.end());
  return out;
}

std::vector<DevicePtr> DeviceRegistry::local_devices(std::string_view type) const {
  std::vector<DevicePtr> out = devices(type);
  std::lock_guard lock(mutex_);
  std::erase_if(out, [this](const DevicePtr& d) { return !is_local(*d); });
  return out;
}

DevicePtr DeviceRegistry::default_cpu() const {
  std::lock_guard lock(mutex_);
  return cpus_.empty() ? nullptr : cpus_.front();  // sorted: the client's CPU:0 first, else host 0's
}

DevicePtr DeviceRegistry::host_cpu(int task) const {
  std::lock_guard lock(mutex_);
  for (const auto& d : cpus_)
    if (d->task() == task && d->index() == 0 && d != client_) return d;
  if (cpus_.empty()) fail<FailedPreconditionError>("DeviceRegistry", "no host CPU is configured");
  fail<ValueError>("DeviceRegistry", "no host CPU for task {}", task);
}

void DeviceRegistry::require_known_task(const DeviceSpec& spec) const {
  // TF completes a partial name with the process's own job ("localhost" for a cluster's client), replica 0 and
  // task 0, so "/task:1/device:CPU:0" names task 1 of the client's job, never a worker's. A job the slice lacks
  // ("/job:worker/..." on one host, whose job is localhost), or one of its jobs without that replica and task, is
  // an unknown device.
  const std::string job = spec.job.value_or(client_ ? std::string(kClientJob) : job_);
  const int task = spec.task.value_or(0);
  bool job_known = false;
  bool task_known = false;
  for (const auto* list : {&tpus_, &cpus_, &gpus_}) {
    for (const auto& d : *list) {
      if (job_of(*d) != job) continue;
      job_known = true;
      task_known = task_known || d->task() == task;
    }
  }
  if (job_known && task_known && spec.replica.value_or(0) == 0) return;
  // TF's wording (InvalidArgumentError "<full name> unknown device."), with TF's CPU:0 when the name has no device.
  throw InvalidArgumentError(fmt::format("/job:{}/replica:{}/task:{}/device:{}:{} unknown device.", job,
                                         spec.replica.value_or(0), task, spec.type.value_or("CPU"),
                                         spec.index.value_or(0)));
}

DevicePtr DeviceRegistry::find(std::string_view name) {
  DeviceSpec spec = parse_device_spec(name);
  std::lock_guard lock(mutex_);
  if (spec.job || spec.task || spec.replica) require_known_task(spec);
  std::vector<DevicePtr> found;
  for (const auto* list : {&tpus_, &cpus_, &gpus_})
    for (const auto& d : *list)
      if (matches(spec, *d)) found.push_back(d);
  // A job decides between devices that match otherwise (a client's CPU:0 and host 0's).
  if (found.size() > 1 && spec.job) narrow(found, [&](const Device& d) { return job_of(d) == *spec.job; });
  // Without a task, a spec refers to the local task 0 (as "TPU:3" does in TF), and without a job to the process's
  // own device ("CPU:0" is a client's own CPU, as TF resolves it).
  if (found.size() > 1 && !spec.task) std::erase_if(found, [](const DevicePtr& d) { return d->task() != 0; });
  if (found.size() > 1 && !spec.job) narrow(found, [this](const Device& d) { return is_local(d); });
  // Unspecified index means index 0 (TF's "/cpu" and "/job:localhost/task:0" conventions).
  if (found.size() > 1 && !spec.index) {
    std::erase_if(found, [](const DevicePtr& d) { return d->index() != 0; });
    if (!spec.type) std::erase_if(found, [](const DevicePtr& d) { return d->type() != "CPU"; });
  }
  if (found.size() == 1) return found.front();
  const std::string local = client_ ? std::string(kClientJob) : job_;
  if (found.empty() && spec.type && (*spec.type == "GPU" || *spec.type == "CPU") && spec.index &&
      spec.task.value_or(0) == 0 && (!client_ || spec.job.value_or(local) == local)) {
    // A logical device TF would create from set_logical_device_configuration: the process's own.
    int task = 0;
    auto device = std::make_shared<Device>(canonical_device_name(local, task, *spec.type, *spec.index), *spec.type,
                                           task, *spec.index, std::array<int, 4>{0, 0, 0, 0},
                                           *spec.type == "GPU" ? kDefaultGpuBytes : kHostMemoryBytes);
    if (*spec.type == "GPU") {
      gpus_.push_back(device);
      std::sort(gpus_.begin(), gpus_.end(), [](const DevicePtr& a, const DevicePtr& b) {
        return std::pair(a->task(), a->index()) < std::pair(b->task(), b->index());
      });
    } else {
      cpus_.push_back(device);
      sort_cpus();
    }
    return device;
  }
  std::vector<std::string> names;
  for (const auto* list : {&tpus_, &cpus_})
    for (const auto& d : *list) names.push_back(d->name());
  if (found.empty()) {
    fail<ValueError>("DeviceRegistry::find", "no device matches '{}'; the simulated slice has {} devices: {}",
                     std::string(name), names.size(), fmt::join(names, ", "));
  }
  fail<ValueError>("DeviceRegistry::find", "device name '{}' is ambiguous: it matches {} devices", std::string(name),
                   found.size());
}

void DeviceRegistry::set_logical_cpu_count(int count) {
  if (count < 1) fail<ValueError>("set_logical_device_configuration", "need at least one CPU device, got {}", count);
  std::lock_guard lock(mutex_);
  std::erase_if(cpus_, [this](const DevicePtr& d) { return is_local(*d) && d->index() > 0; });
  const std::string local = client_ ? std::string(kClientJob) : job_;
  for (int i = 1; i < count; ++i)
    cpus_.push_back(std::make_shared<Device>(canonical_device_name(local, 0, "CPU", i), "CPU", 0, i,
                                             std::array<int, 4>{0, 0, 0, 0}, kHostMemoryBytes));
  sort_cpus();
}

void DeviceRegistry::set_logical_gpu_count(int count, std::int64_t capacity_bytes) {
  if (count < 0) fail<ValueError>("set_logical_device_configuration", "negative GPU count {}", count);
  std::lock_guard lock(mutex_);
  gpus_.clear();
  const std::string local = client_ ? std::string(kClientJob) : job_;
  for (int i = 0; i < count; ++i)
    gpus_.push_back(std::make_shared<Device>(canonical_device_name(local, 0, "GPU", i), "GPU", 0, i,
                                             std::array<int, 4>{0, 0, 0, 0},
                                             capacity_bytes > 0 ? capacity_bytes : kDefaultGpuBytes));
}

std::string DeviceRegistry::job() const {
  std::lock_guard lock(mutex_);
  return job_;
}

std::string DeviceRegistry::local_job() const {
  std::lock_guard lock(mutex_);
  return client_ ? std::string(kClientJob) : job_;
}

void DeviceRegistry::set_job(std::string job) {
  if (job.empty() || job.find_first_of("/:") != std::string::npos)
    fail<ValueError>("DeviceRegistry::set_job", "invalid job name '{}'", job);
  std::lock_guard lock(mutex_);
  if (client_) std::erase(cpus_, client_);  // the process is a task of the cluster now, not its client
  client_ = nullptr;
  // Device keeps its name immutable for everyone else; the registry that named the devices renames them in place
  // (the Device objects are not const), so tensors already placed on them report the new name too.
  for (const auto* list : {&tpus_, &cpus_, &gpus_})
    for (const auto& d : *list)
      const_cast<std::string&>(d->name()) = canonical_device_name(job, d->task(), d->type(), d->index());
  job_ = std::move(job);
  sort_cpus();
}

DevicePtr current_device() {
  PlacementContext* bound = bound_placement();
  return bound != nullptr ? bound->device : nullptr;
}
void set_current_device(DevicePtr device) { current_context().device = std::move(device); }

}  // namespace tpustrategy
