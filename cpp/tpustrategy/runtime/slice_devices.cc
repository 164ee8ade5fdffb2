#include "tpustrategy/runtime/slice_devices.h"

#include <mutex>

#include "tpustrategy/runtime/device_registry.h"

namespace tpustrategy {

namespace {
constexpr std::int64_t kHostMemoryBytes = std::int64_t{64} << 30;
std::mutex g_mutex;
const SlicePreset* g_active = nullptr;
}  // namespace

void activate_slice(std::string_view preset_name) {
  const SlicePreset& preset = find_slice_preset(preset_name);
  Topology topology = make_topology(preset);
  std::int64_t hbm = per_device_hbm_bytes(chip_spec(preset));
  std::vector<DevicePtr> tpus, cpus;
  // TF names a process's own devices "/job:localhost/..."; a slice of several hosts is a cluster of worker tasks
  // (as a TPU pod is to its client), named "/job:worker/task:T/...".
  const std::string job = topology.num_tasks() > 1 ? "worker" : "localhost";
  for (int task = 0; task < topology.num_tasks(); ++task) {
    cpus.push_back(std::make_shared<Device>(canonical_device_name(job, task, "CPU", 0), "CPU", task, 0,
                                            std::array<int, 4>{0, 0, 0, 0}, kHostMemoryBytes, task));
    for (int d = 0; d < topology.num_tpus_per_task(); ++d) {
      auto c = topology.device_coordinate(task, d);
      tpus.push_back(std::make_shared<Device>(canonical_device_name(job, task, "TPU", d), "TPU", task, d,
                                              std::array<int, 4>{c[0], c[1], c[2], c[3]}, hbm, task));
    }
  }
  // The program is the client of a cluster (TF: experimental_connect_to_cluster): a CPU of its own, on host 0.
  DevicePtr client;
  if (topology.num_tasks() > 1)
    client = std::make_shared<Device>(canonical_device_name("localhost", 0, "CPU", 0), "CPU", 0, 0,
                                      std::array<int, 4>{0, 0, 0, 0}, kHostMemoryBytes, 0);
  DeviceRegistry::global().set_devices(std::move(tpus), std::move(cpus), job, std::move(client));
  std::lock_guard lock(g_mutex);
  g_active = &preset;
}

const SlicePreset& active_slice() {
  std::lock_guard lock(g_mutex);
  return g_active ? *g_active : find_slice_preset("v3-8");
}

}  // namespace tpustrategy
