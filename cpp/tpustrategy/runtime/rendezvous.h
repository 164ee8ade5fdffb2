#pragma once
// A Rendezvous gathers one contribution per participant of a group, checks that they describe the
// same collective, runs a kernel once over all of them and hands each participant its result.
//
// Two front ends share it:
//  * threads (C++ callers, the replica runner): arrive_and_wait() blocks on a condition variable; the
//    last participant to arrive runs the kernel on its own thread and wakes the others;
//  * a cooperative scheduler on one thread (the Python greenlet scheduler): arrive() parks a
//    contribution and says whether everyone is there; complete() then runs the kernel (the caller
//    releases the GIL around it) and returns every participant's result.
// Each round is a generation: as soon as a generation is full, arrivals go to the next one, so a fast
// participant can run ahead while the kernel of the previous round is still running.
//
// Failure paths never hang: a mismatch fails the generation for everyone in it (and anyone who still
// arrives at it); depart() tells that a participant will not come, failing a generation that waits
// for it; cancel() wakes every current and future waiter with the stored error until reset().
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tpustrategy/collectives/collective_kind.h"
#include "tpustrategy/collectives/collective_signature.h"
#include "tpustrategy/collectives/reduce_op.h"
#include "tpustrategy/core/dtype.h"
#include "tpustrategy/runtime/stored_error.h"

namespace tpustrategy {

// One tensor of a collective over a nest (the Python front end): its dtype and shape, with -1 for a
// dimension that may differ between participants (the gather axis).
struct LeafSpec {
  DType dtype = DType::kFloat32;
  std::vector<std::int64_t> shape;
  bool operator==(const LeafSpec&) const = default;
};

// What a participant says it is doing. Fields that do not apply to the kind (op for a gather, root for
// a reduction, ...) are ignored by the match check.
struct CollectiveDesc {
  CollectiveKind kind = CollectiveKind::kBarrier;
  CollectiveOp op = CollectiveOp::kSum;  // all_reduce, reduce_scatter
  DType dtype = DType::kFloat32;
  std::vector<std::int64_t> shape;
  std::int64_t group_id = 0;
  std::int64_t sequence = 0;               // the participant's count of earlier collectives in the group
  int root = -1;                           // broadcast: source participant
  std::vector<std::pair<int, int>> pairs;  // collective_permute: (source, target) participants
  std::int64_t axis = 0;                   // all_gather: the axis; all_to_all: the concat axis (tensors)
  std::int64_t split_axis = 0;             // all_to_all: the split axis (tensor front ends)
  // Replica groups (TF's group_assignment), each collective running within each group; empty = one
  // group of every participant.
  std::vector<std::vector<int>> groups;
  // The Python front end: the nest's structure (a mismatch is TF's ValueError) and its leaves, which
  // replace dtype / shape when present.
  std::string structure;
  std::vector<LeafSpec> leaves;

  // e.g. "all_reduce{op=SUM, dtype=float32, shape=[2,3], group=0, seq=4}"
  std::string to_string() const;
};

// Comma-separated names of the fields in which a and b differ ("op, shape"); empty when they match.
// Only "structure" differing is reported as a ValueError, anything else as an InvalidArgumentError.
std::string describe_mismatch(const CollectiveDesc& a, const CollectiveDesc& b);

// What processes compare before they run the point together (Communicator::agree): `desc`'s fields,
// hashed by kind of difference, and its text. `participant` names the group's ranks in messages.
CollectiveSignature signature_of(const CollectiveDesc& desc, std::string_view participant = "rank");

// One participant's contribution. `input` / `output` are the participant's buffers (output optional);
// `payload` is front-end data kept alive until the generation ends (e.g. a tensor handle).
struct Contribution {
  CollectiveDesc desc;
  const void* input = nullptr;
  void* output = nullptr;
  std::shared_ptr<void> payload;
};

// Type-erased per-participant result (e.g. one shared output tensor); may be null.
using CollectiveResult = std::shared_ptr<void>;
// Runs the collective over all contributions (participant order) and returns one result per
// participant, or an empty vector for "no results". Exceptions reach every participant.
using RendezvousKernel = std::function<std::vector<CollectiveResult>(std::span<const Contribution>)>;

class Rendezvous {
 public:
  // `name` appears in error messages, e.g. "replicas [0, 1, 2, 3]". With `replica_ids` (one per
  // participant), messages name participants by replica id ("replica 5") instead of position.
  Rendezvous(int num_participants, RendezvousKernel kernel, std::string name = "rendezvous",
             std::vector<int> replica_ids = {});
  Rendezvous(const Rendezvous&) = delete;
  Rendezvous& operator=(const Rendezvous&) = delete;

  int num_participants() const { return num_participants_; }
  const std::string& name() const { return name_; }

  // Thread front end: contributes, blocks until the generation's kernel has run, returns this
  // participant's result. Throws the mismatch / kernel / departure / cancellation error.
  CollectiveResult arrive_and_wait(int participant, Contribution contribution);

  // Cooperative front end: contributes without blocking; true when every participant has arrived and
  // complete() may run. Throws at once on mismatch, departure or cancellation.
  bool arrive(int participant, Contribution contribution);
  // Runs the kernel of the full generation and returns all results (participant order); the next
  // generation starts immediately. Throws FailedPreconditionError if the generation is not full.
  std::vector<CollectiveResult> complete();
  // Throws the error of the current generation (a mismatch, a departure), if it failed.
  void raise_if_failed() const;
  // Participants parked in the current generation, in participant order.
  std::vector<int> arrived() const;

  // `participant` will not arrive again (it finished): a generation waiting for it fails with
  // FailedPreconditionError, now or when it next receives an arrival. Returns true if it failed one now.
  bool depart(int participant);

  // Wakes every current and future waiter with CancelledError("... cancelled: <reason>") or with
  // `error` (re-raised with its type and message). The first cancellation wins. A kernel already running finishes first
  // (it reads the waiters' buffers).
  void cancel(const std::string& reason);
  void cancel(std::exception_ptr error);
  void cancel(StoredError error);
  bool cancelled() const;

  // Forgets cancellation, departures and the current generation, for reuse after a failed step.
  // Throws FailedPreconditionError while a participant is blocked in arrive_and_wait.
  void reset();

  // Index of the generation that arrivals currently join (starts at 0).
  std::uint64_t generation() const;

 private:
  struct Generation;
  std::shared_ptr<Generation> join_locked(const char* where, int participant, Contribution&& contribution, bool* full);
  void fail_locked(Generation& gen, StoredError error);
  void fail_if_departed_locked(Generation& gen);
  void advance_if_drained_locked();
  void run_kernel(std::unique_lock<std::mutex>& lock, const std::shared_ptr<Generation>& gen);

  const int num_participants_;
  const RendezvousKernel kernel_;
  const std::string name_;
  const std::vector<int> replica_ids_;
  std::string who(int participant) const;
  std::string who(const std::vector<int>& participants) const;

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::shared_ptr<Generation> current_;
  StoredError cancel_error_;
  std::vector<bool> departed_;
  int num_departed_ = 0;  // none: an arrival skips the O(n) scan for departures
  int blocked_ = 0;       // threads inside arrive_and_wait
};

}  // namespace tpustrategy
