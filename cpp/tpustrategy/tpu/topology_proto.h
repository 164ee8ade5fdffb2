#pragma once
// The TopologyProto wire format (tensorflow/core/protobuf/tpu/topology.proto, proto3), without libprotobuf:
//   1: repeated int32 mesh_shape (packed)      2: int32 num_tasks
//   3: int32 num_tpu_devices_per_task          4: repeated int32 device_coordinates (packed, flattened)
// Serialisation writes what protobuf writes: fields in number order, zero scalars and empty repeated fields omitted,
// negative int32 as 10-byte sign-extended varints. Parsing accepts packed and unpacked repeated fields, lets a repeated
// scalar's last occurrence win and skips unknown fields, as protobuf does; anything malformed throws ValueError saying
// what and where (never reads past the end). A known field with a wire type protobuf could not have written is rejected
// (protobuf would keep it as an unknown field): such bytes are not a topology anyone produced.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tpustrategy::detail {

struct TopologyProto {
  std::vector<std::int32_t> mesh_shape;
  std::int32_t num_tasks = 0;
  std::int32_t num_tpu_devices_per_task = 0;
  std::vector<std::int32_t> device_coordinates;
};

std::string serialize_topology_proto(const TopologyProto& proto);
TopologyProto parse_topology_proto(std::string_view bytes);

}  // namespace tpustrategy::detail
