#pragma once
// The kinds of cross-replica synchronisation points, shared by the Communicator's observers, the
// Rendezvous that matches participants (runtime/rendezvous.h) and the MPI backend's handshake, which also
// opens a Communicator::split and an abort with it (collectives/mpi/process_group.h).
#include <cstdint>
#include <string_view>

namespace tpustrategy {

enum class CollectiveKind : std::uint8_t {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kBroadcast,
  kAllToAll,
  kCollectivePermute,
  kBarrier,    // no data: a pure synchronisation point
  kMergeCall,  // tf.distribute merge_call: the kernel is the merge function
  kSplit,      // Communicator::split: the group forms subgroups (a collective over the group)
  kAbort,      // a participant failed: announced in place of the collective it will not make
};

// "all_reduce", "all_gather", ...
constexpr std::string_view collective_kind_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return "all_reduce";
    case CollectiveKind::kAllGather:
      return "all_gather";
    case CollectiveKind::kReduceScatter:
      return "reduce_scatter";
    case CollectiveKind::kBroadcast:
      return "broadcast";
    case CollectiveKind::kAllToAll:
      return "all_to_all";
    case CollectiveKind::kCollectivePermute:
      return "collective_permute";
    case CollectiveKind::kBarrier:
      return "barrier";
    case CollectiveKind::kMergeCall:
      return "merge_call";
    case CollectiveKind::kSplit:
      return "split";
    case CollectiveKind::kAbort:
      return "abort";
  }
  return "unknown";
}

}  // namespace tpustrategy
