#pragma once
// The processes behind one MPI communicator group, and the handshake that opens every collective.
//
// Layout: which process hosts each group rank. Processes are the members of `data` / `header` (two
// duplicates of one MPI communicator: collectives and point-to-point data on the first, headers on
// the second, so the two never match each other's messages). A group that lives in one process has
// no MPI communicator at all and never calls MPI.
//
// Handshake: each process sends every other its CollectiveHeader (status, descriptor, sequence
// number) and receives theirs, with a deadline. Then a failed status anywhere -> AbortedError naming
// the process and rank, different descriptors -> InvalidArgumentError naming the processes and what
// each called, a process missing at the deadline -> DeadlineExceededError naming it.
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tpustrategy/collectives/collective_kind.h"
#include "tpustrategy/collectives/collective_signature.h"

namespace tpustrategy::detail {

// What a process is about to do. Fields that do not apply stay at their defaults.
struct CollectiveDescriptor {
  CollectiveKind kind = CollectiveKind::kBarrier;
  std::int32_t dtype = -1;
  std::int64_t count = 0;
  std::int32_t op = -1;
  std::int32_t root = -1;
  std::uint64_t detail = 0;  // a hash of the permutation pairs / split colours and keys; agree: the rest
  // Communicator::agree: hashes of the nest structure, the tensors' dtypes and their shapes.
  std::uint64_t structure = 0;
  std::uint64_t dtypes = 0;
  std::uint64_t shapes = 0;
};

struct ProcessLayout {
  std::vector<int> owner;                  // group rank -> process index
  std::vector<std::vector<int>> ranks_of;  // process index -> its ranks, ascending
  std::vector<int> world_rank;             // process index -> MPI_COMM_WORLD rank
  int self = 0;                            // this process's index
  bool in_order = true;                    // ranks_of concatenated is 0 .. size-1
  int size() const { return static_cast<int>(owner.size()); }
  int process_count() const { return static_cast<int>(ranks_of.size()); }
  // "process 1 (MPI rank 1, ranks 2-3)"; `participant` names the ranks ("replica": "replicas 2-3").
  std::string describe_process(int process, std::string_view participant = "rank") const;
};

ProcessLayout make_layout(std::vector<int> owner, std::vector<int> world_rank, int self);

class ProcessGroup {
 public:
  // Takes ownership of `comm` (MPI_COMM_NULL for a group inside one process).
  ProcessGroup(MPI_Comm comm, ProcessLayout layout, double timeout_seconds);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  const ProcessLayout& layout() const { return layout_; }
  MPI_Comm data_comm() const { return data_; }
  MPI_Comm base_comm() const { return header_; }
  bool multi_process() const { return layout_.process_count() > 1; }
  double timeout_seconds() const { return timeout_seconds_; }
  void set_timeout_seconds(double seconds) { timeout_seconds_ = seconds; }
  std::chrono::steady_clock::time_point deadline() const;

  // Opens collective `what` (named `where` in messages). `local_error`: this process cannot take
  // part (its arguments are bad); the others are told, and the caller rethrows its own error after.
  // Throws as described above; returns normally when every process is in the same collective.
  void handshake(const char* where, const CollectiveDescriptor& what,
                 const std::optional<std::string>& local_error = std::nullopt);
  // Opens a synchronisation point described by `signature` (Communicator::agree): a handshake whose
  // descriptor carries its hashes and whose header its text; disagreement throws TF's error types.
  void agree(const char* where, const CollectiveSignature& signature);
  // Tells the others that `rank` failed with `message` (a handshake with a failed status).
  bool abort(int rank, const std::string& message) noexcept;
  // After a wait that timed out in the middle of a transfer: names the missing peers and makes every
  // later call throw AbortedError.
  [[noreturn]] void fail_deadline(const char* where, const std::string& what, const std::vector<int>& missing);
  void throw_if_broken(const char* where) const;

 private:
  struct Header;
  void exchange(const char* where, const Header& mine, std::vector<Header>& all);
  // The handshake; `signature` is set for agree().
  void open(const char* where, const CollectiveDescriptor& what, const std::optional<std::string>& local_error,
            const CollectiveSignature* signature);

  MPI_Comm data_ = MPI_COMM_NULL;
  MPI_Comm header_ = MPI_COMM_NULL;
  ProcessLayout layout_;
  double timeout_seconds_;
  std::uint64_t sequence_ = 0;
  std::string broken_;  // why the group is unusable (empty: usable)
  // Send buffers of handshakes that timed out: MPI may still read them, so they live as long as we do.
  std::vector<std::unique_ptr<Header>> orphaned_;
};

std::string describe(const CollectiveDescriptor& what);

}  // namespace tpustrategy::detail
