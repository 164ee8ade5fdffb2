#pragma once
// What one synchronisation point is, as a front end describes it to the Communicator so that processes can
// check they agree before any data moves (Communicator::agree). Hashes, compared across processes, and a
// text for messages. The Rendezvous builds it from its CollectiveDesc (runtime/rendezvous.h:
// signature_of), after matching the local participants.
#include <cstdint>
#include <string>
#include <string_view>

#include "tpustrategy/collectives/collective_kind.h"

namespace tpustrategy {

struct CollectiveSignature {
  CollectiveKind kind = CollectiveKind::kBarrier;
  std::uint64_t structure = 0;            // the nest's structure (differing alone: TF's ValueError)
  std::uint64_t dtypes = 0;               // the tensors' dtypes
  std::uint64_t shapes = 0;               // the tensors' shapes (differing alone: "Shape mismatch")
  std::uint64_t rest = 0;                 // everything else: op, axes, groups, root, pairs, sequence number
  std::string text;                       // e.g. "all_reduce{op=SUM, tensors=[float32[2,3]], group=0, seq=4}"
  std::string_view participant = "rank";  // what the group's ranks are, in messages ("replica")
};

}  // namespace tpustrategy
