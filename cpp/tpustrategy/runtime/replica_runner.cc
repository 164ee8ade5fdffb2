#include "tpustrategy/runtime/replica_runner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>

#include "tpustrategy/collectives/communicator.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/runtime/replica_context.h"
#include "tpustrategy/runtime/stored_error.h"

namespace tpustrategy {
namespace {

std::int64_t element_count(const CollectiveDesc& desc) {
  std::int64_t count = 1;
  for (std::int64_t d : desc.shape) count *= d;
  return count;
}

// The runner's kernel for one group: every participant passed its own buffers, and the group's
// Communicator runs the collective. A mirrored result is computed once into participant 0's buffer
// and then copied to the others, since each thread owns a separate vector.
RendezvousKernel group_kernel(std::shared_ptr<Communicator> comm) {
  return [comm = std::move(comm)](std::span<const Contribution> contributions) -> std::vector<CollectiveResult> {
    const CollectiveDesc& desc = contributions.front().desc;
    if (comm->process_count() > 1) comm->agree(signature_of(desc));  // in process: nothing to compare
    const std::int64_t count = element_count(desc);
    const auto n = static_cast<std::int64_t>(contributions.size());
    std::vector<const void*> inputs;
    std::vector<void*> outputs;
    for (const Contribution& c : contributions) {
      inputs.push_back(c.input);
      outputs.push_back(c.output);
    }
    auto copy_to_others = [&](std::int64_t elements) {
      const auto bytes = static_cast<std::size_t>(elements) * dtype_size(desc.dtype);
      if (bytes == 0) return;
      for (std::size_t i = 1; i < outputs.size(); ++i) std::memcpy(outputs[i], outputs[0], bytes);
    };
    switch (desc.kind) {
      case CollectiveKind::kAllReduce:
        comm->all_reduce(desc.dtype, inputs, count, desc.op, outputs[0]);
        copy_to_others(count);
        break;
      case CollectiveKind::kAllGather:
        comm->all_gather(desc.dtype, inputs, count, outputs[0]);
        copy_to_others(count * n);
        break;
      case CollectiveKind::kReduceScatter:
        comm->reduce_scatter(desc.dtype, inputs, count, desc.op, outputs);
        break;
      case CollectiveKind::kBroadcast:
        comm->broadcast(desc.dtype, inputs, count, desc.root, outputs);
        break;
      case CollectiveKind::kAllToAll:
        comm->all_to_all(desc.dtype, inputs, count, outputs);
        break;
      case CollectiveKind::kCollectivePermute:
        comm->collective_permute(desc.dtype, inputs, count, desc.pairs, outputs);
        break;
      case CollectiveKind::kBarrier:
        comm->barrier();
        break;
      case CollectiveKind::kMergeCall:
        break;
      case CollectiveKind::kSplit:
      case CollectiveKind::kAbort:  // the MPI backend's own messages, never a replica's call
        fail<InternalError>("run_replicas", "{} is not a replica collective", collective_kind_name(desc.kind));
    }
    return {};
  };
}

// Rethrows `error` with the same type and "[run_replicas] replica r failed: " in front of its message.
// Called after every replica thread has been joined.
[[noreturn]] void rethrow_naming_replica(std::exception_ptr error, int replica) {
  StoredError stored = StoredError::capture(error);
  // Types outside the known hierarchy cannot be rebuilt with a new message: pass them on unchanged.
  if (stored.kind() == StoredError::Kind::kOther) std::rethrow_exception(error);
  stored.raise(fmt::format("[run_replicas] replica {} failed: ", replica));
}

}  // namespace

namespace detail {

// Shared by the replica threads of one run_replicas call.
class ReplicaRunnerState {
 public:
  explicit ReplicaRunnerState(int num_replicas)
      : num_replicas_(num_replicas), world_(make_in_process_communicator(num_replicas)), done_(num_replicas, false) {}

  int num_replicas() const { return num_replicas_; }
  ReplicaCtx make_ctx(int replica) { return {this, replica}; }

  // The rendezvous of `group` (validated by the caller), created on first use; sets *group_id.
  Rendezvous& rendezvous_for(const ReplicaGroup& group, std::int64_t* group_id) {
    std::lock_guard lock(mutex_);
    auto it = groups_.find(group);
    if (it == groups_.end()) {
      ReplicaGroup members = group;
      std::sort(members.begin(), members.end());
      for (const auto& [other, entry] : groups_) {
        ReplicaGroup other_members = other;
        std::sort(other_members.begin(), other_members.end());
        if (other_members == members) {
          fail<InvalidArgumentError>("ReplicaCtx", "group [{}] lists the same replicas as group [{}] in another order",
                                     fmt::join(group, ", "), fmt::join(other, ", "));
        }
      }
      // The group's communicator is the world's subgroup of its members, ranked in the listed order.
      const auto n = static_cast<std::size_t>(num_replicas_);
      std::vector<int> color(n, -1), key(n, 0);
      for (std::size_t i = 0; i < group.size(); ++i) {
        color[static_cast<std::size_t>(group[i])] = 0;
        key[static_cast<std::size_t>(group[i])] = static_cast<int>(i);
      }
      std::shared_ptr<Communicator> comm = world_->split(color, key).at(0);
      Entry entry{std::make_unique<Rendezvous>(static_cast<int>(group.size()), group_kernel(std::move(comm)),
                                               fmt::format("replicas [{}]", fmt::join(group, ", ")), group),
                  static_cast<std::int64_t>(groups_.size())};
      // Replicas that already finished will never arrive; a failed run cancels newcomers too.
      for (std::size_t i = 0; i < group.size(); ++i) {
        if (done_[group[i]]) entry.rendezvous->depart(static_cast<int>(i));
      }
      if (cancel_error_) entry.rendezvous->cancel(cancel_error_);
      it = groups_.emplace(group, std::move(entry)).first;
    }
    *group_id = it->second.id;
    return *it->second.rendezvous;
  }

  void finished(int replica) {
    std::lock_guard lock(mutex_);
    done_[replica] = true;
    for (auto& [group, entry] : groups_) {
      auto pos = std::find(group.begin(), group.end(), replica);
      if (pos != group.end()) entry.rendezvous->depart(static_cast<int>(pos - group.begin()));
    }
  }

  void failed(int replica, std::exception_ptr error) {
    std::lock_guard lock(mutex_);
    done_[replica] = true;
    if (first_error_) return;  // a consequence of the first failure (cancelled, same mismatch, ...)
    first_error_ = error;
    first_replica_ = replica;
    cancel_error_ =
        StoredError(StoredError::Kind::kCancelled, fmt::format("[run_replicas] cancelled because replica {} failed: {}",
                                                               replica, StoredError::capture(error).message()));
    for (auto& [group, entry] : groups_) entry.rendezvous->cancel(cancel_error_);
  }

  void rethrow_first_error() {
    std::lock_guard lock(mutex_);
    if (first_error_) rethrow_naming_replica(first_error_, first_replica_);
  }

 private:
  struct Entry {
    std::unique_ptr<Rendezvous> rendezvous;
    std::int64_t id;
  };
  const int num_replicas_;
  const std::shared_ptr<Communicator> world_;
  std::mutex mutex_;
  std::map<ReplicaGroup, Entry> groups_;
  std::vector<bool> done_;
  std::exception_ptr first_error_;
  int first_replica_ = -1;
  StoredError cancel_error_;  // values, not exception_ptr: raised concurrently in many threads
};

}  // namespace detail

int ReplicaCtx::num_replicas() const { return state_->num_replicas(); }

int ReplicaCtx::group_size(const ReplicaGroup& group) const {
  return group.empty() ? num_replicas() : static_cast<int>(group.size());
}

void ReplicaCtx::collective(const char* where, CollectiveDesc desc, const void* input, void* output,
                            const ReplicaGroup& requested) {
  ReplicaGroup group = requested;
  if (group.empty()) {
    group.resize(num_replicas());
    std::iota(group.begin(), group.end(), 0);
  }
  std::vector<bool> seen(num_replicas(), false);
  for (int r : group) {
    if (r < 0 || r >= num_replicas()) {
      fail<InvalidArgumentError>(where, "group [{}] names replica {} but there are {} replicas", fmt::join(group, ", "),
                                 r, num_replicas());
    }
    if (seen[r]) fail<InvalidArgumentError>(where, "group [{}] lists replica {} twice", fmt::join(group, ", "), r);
    seen[r] = true;
  }
  auto self = std::find(group.begin(), group.end(), replica_id_);
  if (self == group.end()) {
    fail<InvalidArgumentError>(where, "replica {} is not in group [{}]", replica_id_, fmt::join(group, ", "));
  }
  auto index_of = [&](int replica) -> int {
    auto it = std::find(group.begin(), group.end(), replica);
    if (it == group.end()) {
      fail<InvalidArgumentError>(where, "replica {} is not in group [{}]", replica, fmt::join(group, ", "));
    }
    return static_cast<int>(it - group.begin());
  };
  // Roots and pairs are given as replica ids; kernels and descriptors use participant positions.
  if (desc.kind == CollectiveKind::kBroadcast) desc.root = index_of(desc.root);
  for (auto& [source, target] : desc.pairs) {
    source = index_of(source);
    target = index_of(target);
  }
  Rendezvous& rendezvous = state_->rendezvous_for(group, &desc.group_id);
  desc.sequence = sequence_[group]++;
  Contribution contribution{std::move(desc), input, output, nullptr};
  rendezvous.arrive_and_wait(static_cast<int>(self - group.begin()), std::move(contribution));
}

namespace {
CollectiveDesc make_desc(CollectiveKind kind, DType dtype, std::int64_t count) {
  CollectiveDesc desc;
  desc.kind = kind;
  desc.dtype = dtype;
  desc.shape = {count};
  return desc;
}
}  // namespace

void ReplicaCtx::all_reduce(DType dtype, const void* input, std::int64_t count, CollectiveOp op, void* output,
                            const ReplicaGroup& group) {
  CollectiveDesc desc = make_desc(CollectiveKind::kAllReduce, dtype, count);
  desc.op = op;
  collective("ReplicaCtx::all_reduce", std::move(desc), input, output, group);
}

void ReplicaCtx::all_gather(DType dtype, const void* input, std::int64_t count, void* output,
                            const ReplicaGroup& group) {
  collective("ReplicaCtx::all_gather", make_desc(CollectiveKind::kAllGather, dtype, count), input, output, group);
}

void ReplicaCtx::reduce_scatter(DType dtype, const void* input, std::int64_t count, CollectiveOp op, void* output,
                                const ReplicaGroup& group) {
  if (count % group_size(group) != 0) {
    fail<InvalidArgumentError>("ReplicaCtx::reduce_scatter", "element count {} is not divisible by the group size {}",
                               count, group_size(group));
  }
  CollectiveDesc desc = make_desc(CollectiveKind::kReduceScatter, dtype, count);
  desc.op = op;
  collective("ReplicaCtx::reduce_scatter", std::move(desc), input, output, group);
}

void ReplicaCtx::broadcast(DType dtype, const void* input, std::int64_t count, int root, void* output,
                           const ReplicaGroup& group) {
  CollectiveDesc desc = make_desc(CollectiveKind::kBroadcast, dtype, count);
  desc.root = root;
  collective("ReplicaCtx::broadcast", std::move(desc), input, output, group);
}

void ReplicaCtx::all_to_all(DType dtype, const void* input, std::int64_t count, void* output,
                            const ReplicaGroup& group) {
  if (count % group_size(group) != 0) {
    fail<InvalidArgumentError>("ReplicaCtx::all_to_all", "element count {} is not divisible by the group size {}",
                               count, group_size(group));
  }
  collective("ReplicaCtx::all_to_all", make_desc(CollectiveKind::kAllToAll, dtype, count), input, output, group);
}

void ReplicaCtx::collective_permute(DType dtype, const void* input, std::int64_t count,
                                    const std::vector<std::pair<int, int>>& pairs, void* output,
                                    const ReplicaGroup& group) {
  CollectiveDesc desc = make_desc(CollectiveKind::kCollectivePermute, dtype, count);
  desc.pairs = pairs;
  collective("ReplicaCtx::collective_permute", std::move(desc), input, output, group);
}

void ReplicaCtx::barrier(const ReplicaGroup& group) {
  collective("ReplicaCtx::barrier", make_desc(CollectiveKind::kBarrier, DType::kBool, 0), nullptr, nullptr, group);
}

void run_replicas(int num_replicas, const std::function<void(ReplicaCtx&)>& fn) {
  if (num_replicas < 1) fail<InvalidArgumentError>("run_replicas", "num_replicas must be >= 1, got {}", num_replicas);
  detail::ReplicaRunnerState state(num_replicas);
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(num_replicas));
  auto body = [&state, &fn, num_replicas](int replica) {
    ReplicaContext context;  // this thread's current context: a replica, placed on the default device
    context.mode = ReplicaMode::kReplica;
    context.replica_id = replica;
    context.num_replicas = num_replicas;
    ContextScope bound(&context);
    ReplicaCtx ctx = state.make_ctx(replica);
    try {
      fn(ctx);
      state.finished(replica);
    } catch (...) {
      state.failed(replica, std::current_exception());
    }
  };
  try {
    for (int r = 0; r < num_replicas; ++r) threads.emplace_back(body, r);
  } catch (...) {
    // Could not start every thread: stop the ones that run, then report.
    state.failed(static_cast<int>(threads.size()), std::current_exception());
    for (std::thread& t : threads) t.join();
    throw;
  }
  for (std::thread& t : threads) t.join();
  state.rethrow_first_error();
}

}  // namespace tpustrategy
