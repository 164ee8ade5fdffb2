// libFuzzer harness: TopologyProto bytes (tf.tpu.experimental.Topology(serialized=...)).
// Properties: parsing either succeeds or throws ValueError (never crashes, reads out of bounds or
// throws anything else); a parsed proto re-serialises to bytes that parse to the same proto; a
// Topology built from the bytes either validates or throws ValueError, and when it validates every
// device sits at a distinct in-mesh position.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/tpu/topology.h"
#include "tpustrategy/tpu/topology_proto.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tpustrategy;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  detail::TopologyProto proto;
  try {
    proto = detail::parse_topology_proto(bytes);
  } catch (const ValueError&) {
    return 0;
  }
  const detail::TopologyProto again = detail::parse_topology_proto(detail::serialize_topology_proto(proto));
  check(again.mesh_shape == proto.mesh_shape && again.num_tasks == proto.num_tasks &&
        again.num_tpu_devices_per_task == proto.num_tpu_devices_per_task &&
        again.device_coordinates == proto.device_coordinates);
  // A mesh of up to 2^22 positions is valid but costs ~100 MB of maps to build; meshes up to 8192 positions
  // (every real slice preset fits) exercise the same validation code at thousands of inputs per second.
  std::int64_t positions = 1;
  for (std::int32_t d : proto.mesh_shape) {
    positions *= d > 0 && d < (1 << 16) ? d : 1;
    if (positions > (1 << 13)) return 0;
  }
  try {
    const Topology topology(bytes);
    check(topology.serialized() == bytes);
    std::set<Coordinate> seen;
    const std::int64_t per_task = topology.num_tpus_per_task();
    const std::int64_t listed = static_cast<std::int64_t>(proto.device_coordinates.size()) / Topology::kMeshRank;
    for (std::int64_t flat = 0; flat < listed; ++flat) {
      const Coordinate c =
          topology.device_coordinate(static_cast<int>(flat / per_task), static_cast<int>(flat % per_task));
      check(seen.insert(c).second);
    }
  } catch (const ValueError&) {
  }
  return 0;
}
