#pragma once
// The process's simulated devices: the TPU cores of the active slice, one host
// CPU per slice host, and logical CPU/GPU devices created on demand (as TF does
// with set_logical_device_configuration). Device names follow TF's canonical
// form "/job:J/replica:0/task:T/device:TPU:k", J as TF names it: "localhost" for a
// process's own devices, "worker" once the devices are tasks of a cluster (a
// multi-host slice, several processes). A multi-host slice's program is the
// cluster's client, as a TPU pod's is: it has a CPU of its own,
// "/job:localhost/replica:0/task:0/device:CPU:0", where values made outside any
// device scope live, and its logical devices are in that job too. Lookups accept
// TF's partial specs ("TPU:3", "/device:CPU:0", "/job:localhost/task:0/device:TPU:0",
// "cpu:0"); a job only decides between devices that both match otherwise (the
// client's CPU:0 or a worker's), and without one the process's own device wins.
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpustrategy/core/device.h"

namespace tpustrategy {

// A parsed (possibly partial) device spec.
struct DeviceSpec {
  std::optional<std::string> job;
  std::optional<int> replica, task;
  std::optional<std::string> type;  // upper-case: TPU, CPU, GPU
  std::optional<int> index;
};

// Parses a TF device string; throws ValueError naming it when malformed.
DeviceSpec parse_device_spec(std::string_view name);
// "/job:{job}/replica:0/task:{task}/device:{type}:{index}".
std::string canonical_device_name(std::string_view job, int task, std::string_view type, int index);

class DeviceRegistry {
 public:
  static DeviceRegistry& global();

  // Replaces the slice's devices (TPU cores and host CPUs, in ordinal order), named in job `job`. `client_cpu`
  // (null for none) is the program's own CPU when the slice's hosts are a cluster it is the client of.
  void set_devices(std::vector<DevicePtr> tpu_devices, std::vector<DevicePtr> host_cpus, std::string job,
                   DevicePtr client_cpu = nullptr);
  // "" = all, in order TPU, CPU, GPU; the process's own CPUs come before the hosts'.
  std::vector<DevicePtr> devices(std::string_view type = "") const;
  // The process's own devices of `type` ("" = all): the client's on a multi-host slice, else task 0's.
  std::vector<DevicePtr> local_devices(std::string_view type = "") const;
  // The CPU of slice host `task` (never the client's).
  DevicePtr host_cpu(int task = 0) const;
  // Where tensors made outside any device scope live (null when there is no CPU): the client's CPU, else host 0's.
  // Per op, so no copy of the device list (thousands of logical CPUs under a large MirroredStrategy).
  DevicePtr default_cpu() const;
  // Resolves a spec to exactly one device; GPU:k and CPU:k (k > 0) devices are created on first use
  // as logical devices of host 0. Unknown TPU ordinals → ValueError listing what exists; a replica or task
  // that names no task of the (given, else the process's own) job → InvalidArgumentError, as TF.
  DevicePtr find(std::string_view name);
  // Splits host 0's CPU into `count` logical CPU devices (CPU:0 … CPU:count-1), as TF's
  // set_logical_device_configuration does.
  void set_logical_cpu_count(int count);
  void set_logical_gpu_count(int count, std::int64_t capacity_bytes);
  // The job of the devices' names ("localhost" until set_devices says otherwise).
  std::string job() const;
  // The job of the process's own devices: "localhost" for a client, else job().
  std::string local_job() const;
  // Renames every device into job `job` (a one-host process that joins a TF_CONFIG cluster becomes
  // "/job:worker/...", as TF's MultiWorkerMirroredStrategy makes it): the process is a task of that cluster, so a
  // client CPU is dropped. Call only while no replica runs: device names are read without a lock.
  void set_job(std::string job);

 private:
  bool is_local(const Device& device) const;              // under mutex_
  void sort_cpus();                                       // under mutex_: local CPUs first, then by (task, index)
  void require_known_task(const DeviceSpec& spec) const;  // under mutex_

  mutable std::mutex mutex_;
  std::vector<DevicePtr> tpus_, cpus_, gpus_;
  DevicePtr client_;
  std::string job_ = "localhost";
};

// The device of the current replica context (runtime/replica_context.h), where new tensors are
// placed. nullptr = the default, host CPU 0.
DevicePtr current_device();
void set_current_device(DevicePtr device);

// RAII: places allocations on `device` for the scope's lifetime.
class DeviceScope {
 public:
  explicit DeviceScope(DevicePtr device) : previous_(current_device()) { set_current_device(std::move(device)); }
  ~DeviceScope() { set_current_device(std::move(previous_)); }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  DevicePtr previous_;
};

}  // namespace tpustrategy
