#pragma once
// The per-replica context: everything "current" for the code of one replica (or of the caller of
// Strategy.run) — the device and logical core new tensors land on, the mode, the replica id, and the
// slots that later layers fill (gradient tape stack, trace recorder, cost accumulators). It is the
// single source of truth: one thread-local pointer (core/placement.h), switched exactly once per
// greenlet switch by the Python scheduler and once per thread by the C++ runner. Nothing mirrors it.
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "tpustrategy/core/placement.h"

namespace tpustrategy {

// tf.distribute's three situations: outside any replica function (cross-replica), inside one
// (replica), and inside a merge_call's merge_fn (merge: cross-replica code entered from replicas).
enum class ReplicaMode : std::uint8_t { kCrossReplica, kReplica, kMerge };

// "cross_replica", "replica", "merge".
std::string_view replica_mode_name(ReplicaMode mode);

struct ReplicaContext : PlacementContext {
  ReplicaMode mode = ReplicaMode::kCrossReplica;
  int replica_id = -1;  // -1: not a replica
  int num_replicas = 1;
  // The tape stack is PlacementContext::tape_stack (autodiff reads it from core). Empty today: owned and
  // filled by the layers that need them (tracing, cost model).
  std::shared_ptr<void> trace_recorder;
  std::shared_ptr<void> cost_accumulators;
  // tf.distribute's mode stack (which strategy is current, replica or cross-replica context): frames owned
  // by the front end (the Python facade's (strategy, cross-replica context, replica context) entries, kept
  // by the bindings), the top one current. Here, not in the front end, so that the replica's state lives
  // once and is switched with the context.
  std::vector<std::shared_ptr<void>> mode_stack;
};

// The context bound to this thread; the thread's own default context when none is bound.
ReplicaContext& current_context();
// Binds `context` (not owned; it must outlive the binding); null binds the thread's default.
void set_current_context(ReplicaContext* context);
// The thread's default context (what a thread sees before anything is bound).
ReplicaContext& thread_default_context();

// RAII: binds `context` for the scope's lifetime, then restores the previous binding.
class ContextScope {
 public:
  explicit ContextScope(ReplicaContext* context);
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  PlacementContext* previous_;
};

}  // namespace tpustrategy
