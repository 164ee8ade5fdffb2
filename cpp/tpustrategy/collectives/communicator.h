#pragma once
// The Communicator: the one interface every collective of every front end goes through (the greenlet
// scheduler, the C++ thread runner, SPMD partitioning, optimizers' gradient aggregation). It is the hook
// point for tracing, the cost model and autodiff of collectives, and the seam between backends:
//  * in-process: every participant of the group lives in this process (today's buffer kernels);
//  * MPI: the group spans processes, each hosting some participants (collectives/mpi/);
//  * single participant: the trivial fallback (copies, no work).
// The shape follows MLX's distributed GroupImpl (all_sum / all_gather / sum_scatter / split(color)).
//
// A group has `size()` participants, ranked 0 .. size-1 (for a strategy: the replicas, or the logical
// cores of one replica for SPMD). This process hosts `local_ranks()` of them, ascending. Every call is
// made once per process per collective, with the buffers of this process's local participants in the
// order of local_ranks() (in-process: all of them), after the front end (the Rendezvous) has gathered
// them and checked that they describe the same collective. Ranks in arguments (a broadcast root,
// permutation pairs, split colours) are always ranks of the whole group.
//
// Buffers are dense, of `dtype`, `count` elements per participant unless said otherwise. Errors are
// thrown before any data moves (InvalidArgumentError naming the offending value); a backend that
// cannot complete (a peer process failed or did not arrive in time) throws AbortedError /
// DeadlineExceededError naming the process and ranks, and never hangs.
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tpustrategy/collectives/collective_signature.h"
#include "tpustrategy/collectives/reduce_op.h"
#include "tpustrategy/core/dtype.h"

namespace tpustrategy {

class Communicator {
 public:
  virtual ~Communicator() = default;

  // "in_process", "mpi" or "single".
  virtual std::string_view backend() const = 0;
  // Participants of the whole group, in every process.
  virtual int size() const = 0;
  // The group ranks this process hosts, ascending (all of them in process).
  virtual std::span<const int> local_ranks() const = 0;
  // Index of this process among those hosting the group's participants, and their number.
  virtual int process_index() const { return 0; }
  virtual int process_count() const { return 1; }

  // output = op over every participant's input (count elements each). One output for all local
  // participants: a mirrored result is stored once. output may alias local_inputs[0].
  virtual void all_reduce(DType dtype, std::span<const void* const> local_inputs, std::int64_t count, CollectiveOp op,
                          void* output) = 0;
  // output = the inputs of ranks 0 .. size-1 concatenated (size * count elements), shared.
  virtual void all_gather(DType dtype, std::span<const void* const> local_inputs, std::int64_t count, void* output) = 0;
  // With c = count / size: local participant j (rank r) gets op over ranks of input[r*c : (r+1)*c].
  virtual void reduce_scatter(DType dtype, std::span<const void* const> local_inputs, std::int64_t count,
                              CollectiveOp op, std::span<void* const> local_outputs) = 0;
  // Every local output = rank `root`'s input (count elements). local_inputs holds every local
  // participant's buffer; only the root's is read.
  virtual void broadcast(DType dtype, std::span<const void* const> local_inputs, std::int64_t count, int root,
                         std::span<void* const> local_outputs) = 0;
  // With c = count / size: rank t's output[s*c : (s+1)*c] = rank s's input[t*c : (t+1)*c].
  virtual void all_to_all(DType dtype, std::span<const void* const> local_inputs, std::int64_t count,
                          std::span<void* const> local_outputs) = 0;
  // For each (source, target) pair of group ranks: target's output = source's input; outputs no pair
  // targets are zero-filled (XLA CollectivePermute).
  virtual void collective_permute(DType dtype, std::span<const void* const> local_inputs, std::int64_t count,
                                  std::span<const std::pair<int, int>> pairs, std::span<void* const> local_outputs) = 0;
  // Returns when every process of the group has called it (in process: at once).
  virtual void barrier() = 0;
  // Front ends call this once per synchronisation point, before its data calls, when the group spans
  // processes (process_count() > 1), with what their local participants do there (already matched with
  // each other). In process there is nothing to compare. Across processes it opens the point like a
  // collective: processes that disagree all throw, before any data moves, what the Rendezvous throws for
  // replicas that disagree (ValueError when only the nest structure differs, InvalidArgumentError
  // otherwise, "Shape mismatch" when only shapes do), naming the processes and their participants.
  virtual void agree(const CollectiveSignature& signature) { (void)signature; }

  // Subgroups, as MPI_Comm_split: rank r joins subgroup color_of_rank[r], ranked within it by
  // (key_of_rank[r], r). Both spans cover the whole group (every process passes the same values).
  // Returns the subgroups that contain at least one local rank, by colour. A negative colour
  // (MPI_UNDEFINED) leaves that rank out.
  virtual std::map<int, std::shared_ptr<Communicator>> split(std::span<const int> color_of_rank,
                                                             std::span<const int> key_of_rank) const = 0;
};

// All `size` participants in this process, over the buffer kernels of collectives/kernels.h.
std::shared_ptr<Communicator> make_in_process_communicator(int size);
// One participant: collectives are copies (and a MEAN over one is the input).
std::shared_ptr<Communicator> make_single_communicator();
// A process-wide in-process group of `size` participants, made once per size (the tensor-level
// functions use it when the caller names no group). Size 1 is the single-participant backend.
std::shared_ptr<Communicator> shared_in_process_communicator(int size);

}  // namespace tpustrategy
