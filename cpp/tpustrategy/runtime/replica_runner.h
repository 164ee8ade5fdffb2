#pragma once
// A thread-per-replica runner for C++ callers (the GoogleTest suite, C++ users): the same Rendezvous
// and Communicator (collectives/communicator.h) that the Python greenlet scheduler drives, behind blocking calls.
//
//   run_replicas(4, [](ReplicaCtx& ctx) {
//     std::vector<float> g = ctx.all_reduce(std::vector<float>{1.f * ctx.replica_id()}, CollectiveOp::kSum);
//   });
//
// A collective may name a group of replica ids (participant order = the listed order); only those
// replicas take part, through one Rendezvous per group. Every replica must issue the same collectives
// on a group in the same order; a mismatch (kind, op, dtype, count, root, pairs) is an
// InvalidArgumentError in every participant, not a hang. If a replica throws, every rendezvous is
// cancelled so the others wake with CancelledError; if a replica returns while others wait for it,
// they get FailedPreconditionError. run_replicas joins every thread and rethrows the first original
// error, with the same type, prefixed with the replica that raised it.
#include <cstdint>
#include <functional>
#include <map>
#include <type_traits>
#include <utility>
#include <vector>

#include "tpustrategy/collectives/reduce_op.h"
#include "tpustrategy/core/dtype.h"
#include "tpustrategy/runtime/rendezvous.h"

namespace tpustrategy {

// Replica ids taking part in a collective, in participant order; empty means all replicas.
using ReplicaGroup = std::vector<int>;

namespace detail {
class ReplicaRunnerState;
}

class ReplicaCtx {
 public:
  int replica_id() const { return replica_id_; }
  int num_replicas() const;

  // ---- raw buffers: `count` elements of `dtype` in, sizes out as in collectives/communicator.h ----
  void all_reduce(DType dtype, const void* input, std::int64_t count, CollectiveOp op, void* output,
                  const ReplicaGroup& group = {});
  // output holds count * group size elements.
  void all_gather(DType dtype, const void* input, std::int64_t count, void* output, const ReplicaGroup& group = {});
  // output holds count / group size elements.
  void reduce_scatter(DType dtype, const void* input, std::int64_t count, CollectiveOp op, void* output,
                      const ReplicaGroup& group = {});
  // `root` is a replica id in the group; only the root's input is read (others may pass nullptr).
  void broadcast(DType dtype, const void* input, std::int64_t count, int root, void* output,
                 const ReplicaGroup& group = {});
  void all_to_all(DType dtype, const void* input, std::int64_t count, void* output, const ReplicaGroup& group = {});
  // `pairs` are (source, target) replica ids in the group; untargeted replicas receive zeros.
  void collective_permute(DType dtype, const void* input, std::int64_t count,
                          const std::vector<std::pair<int, int>>& pairs, void* output, const ReplicaGroup& group = {});
  void barrier(const ReplicaGroup& group = {});

  // ---- std::vector helpers (not std::vector<bool>, which has no contiguous storage) ----
  template <typename T>
  std::vector<T> all_reduce(const std::vector<T>& input, CollectiveOp op, const ReplicaGroup& group = {}) {
    std::vector<T> out(input.size());
    all_reduce(dtype_of<T>(), input.data(), size_of(input), op, out.data(), group);
    return out;
  }
  template <typename T>
  std::vector<T> all_gather(const std::vector<T>& input, const ReplicaGroup& group = {}) {
    std::vector<T> out(input.size() * static_cast<std::size_t>(group_size(group)));
    all_gather(dtype_of<T>(), input.data(), size_of(input), out.data(), group);
    return out;
  }
  template <typename T>
  std::vector<T> reduce_scatter(const std::vector<T>& input, CollectiveOp op, const ReplicaGroup& group = {}) {
    std::vector<T> out(input.size() / static_cast<std::size_t>(group_size(group)));
    reduce_scatter(dtype_of<T>(), input.data(), size_of(input), op, out.data(), group);
    return out;
  }
  template <typename T>
  std::vector<T> broadcast(const std::vector<T>& input, int root, const ReplicaGroup& group = {}) {
    std::vector<T> out(input.size());
    broadcast(dtype_of<T>(), input.data(), size_of(input), root, out.data(), group);
    return out;
  }
  template <typename T>
  std::vector<T> all_to_all(const std::vector<T>& input, const ReplicaGroup& group = {}) {
    std::vector<T> out(input.size());
    all_to_all(dtype_of<T>(), input.data(), size_of(input), out.data(), group);
    return out;
  }
  template <typename T>
  std::vector<T> collective_permute(const std::vector<T>& input, const std::vector<std::pair<int, int>>& pairs,
                                    const ReplicaGroup& group = {}) {
    std::vector<T> out(input.size());
    collective_permute(dtype_of<T>(), input.data(), size_of(input), pairs, out.data(), group);
    return out;
  }

 private:
  friend class detail::ReplicaRunnerState;
  ReplicaCtx(detail::ReplicaRunnerState* state, int replica_id) : state_(state), replica_id_(replica_id) {}

  template <typename T>
  static std::int64_t size_of(const std::vector<T>& v) {
    static_assert(!std::is_same_v<T, bool>, "std::vector<bool> is not contiguous; use the raw-buffer overload");
    return static_cast<std::int64_t>(v.size());
  }
  int group_size(const ReplicaGroup& group) const;
  // Validates the group, fills in group id and sequence number, and joins the group's rendezvous.
  void collective(const char* where, CollectiveDesc desc, const void* input, void* output,
                  const ReplicaGroup& requested);

  detail::ReplicaRunnerState* state_;
  int replica_id_;
  std::map<ReplicaGroup, std::int64_t> sequence_;  // collectives issued so far, per group
};

// Runs fn on num_replicas threads, one ReplicaCtx each, and joins them all; rethrows the first
// original error (see above). num_replicas < 1 is an InvalidArgumentError.
void run_replicas(int num_replicas, const std::function<void(ReplicaCtx&)>& fn);

}  // namespace tpustrategy
