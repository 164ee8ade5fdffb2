// A C++ program against the installed tpustrategy package: builds a v3-8 slice, places 8 replicas on its
// cores with DeviceAssignment::build, runs them on the thread-per-replica runner, and all-reduces one
// value per replica. Prints each replica's core and the sum; exits 1 if any replica's sum is wrong.
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "tpustrategy/runtime/replica_runner.h"
#include "tpustrategy/tpu/device_assignment.h"
#include "tpustrategy/tpu/slice_preset.h"

int main() {
  using tpustrategy::CollectiveOp;
  const tpustrategy::SlicePreset& preset = tpustrategy::find_slice_preset("v3-8");
  const tpustrategy::Topology topology = tpustrategy::make_topology(preset);
  const int num_replicas = preset.num_hosts * preset.devices_per_host;  // 8 TensorCores, one replica each
  const auto assignment = tpustrategy::DeviceAssignment::build(topology, std::nullopt, std::nullopt, num_replicas);

  std::vector<float> sums(static_cast<std::size_t>(num_replicas));
  std::mutex print_mutex;
  tpustrategy::run_replicas(num_replicas, [&](tpustrategy::ReplicaCtx& ctx) {
    const int replica = ctx.replica_id();
    // Replica r contributes r + 1, so every replica receives 1 + 2 + ... + 8 = 36.
    const std::vector<float> total =
        ctx.all_reduce(std::vector<float>{static_cast<float>(replica + 1)}, CollectiveOp::kSum);
    sums[static_cast<std::size_t>(replica)] = total[0];
    const std::lock_guard<std::mutex> lock(print_mutex);
    std::printf("replica %d on %s: all_reduce(SUM) = %g\n", replica, assignment.tpu_device(replica).c_str(),
                static_cast<double>(total[0]));
  });

  const float expected = static_cast<float>(num_replicas * (num_replicas + 1) / 2);
  for (const float sum : sums) {
    if (sum != expected) {
      std::printf("FAILED: a replica got %g, expected %g\n", static_cast<double>(sum), static_cast<double>(expected));
      return 1;
    }
  }
  std::printf("%s: %d replicas, every all_reduce(SUM) = %g\n", preset.name.c_str(), num_replicas,
              static_cast<double>(expected));
  return 0;
}
