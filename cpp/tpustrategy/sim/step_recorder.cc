#include "tpustrategy/sim/step_recorder.h"

#include <memory>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

#include "tpustrategy/autodiff/op_trace_hook.h"
#include "tpustrategy/collectives/collective_members.h"
#include "tpustrategy/collectives/collective_observer.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/runtime/replica_context.h"

namespace tpustrategy::sim {
namespace {

struct State {
  std::mutex mutex;
  bool active = false;
  StepRecord record;
  ObserverRegistration registration;
};

State& state() {
  static auto* s = new State();  // never destroyed: a hook may fire during exit
  return *s;
}

CoreSlot current_slot() {
  const ReplicaContext& context = current_context();
  return {context.replica_id, context.logical_core};
}

// The collectives the cost model times (barrier and merge_call move no data).
bool moves_data(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kAllToAll:
    case CollectiveKind::kCollectivePermute:
      return true;
    default:
      return false;
  }
}

void on_op(std::string_view op, std::span<const Tensor* const> inputs, std::span<const Tensor> outputs) {
  std::vector<Shape> in, out;
  in.reserve(inputs.size());
  out.reserve(outputs.size());
  for (const Tensor* t : inputs) {
    if (t != nullptr && t->valid()) in.push_back(t->shape());
  }
  DType dtype = DType::kFloat32;
  for (const Tensor& t : outputs) {
    if (!t.valid()) continue;
    if (out.empty()) dtype = t.dtype();
    out.push_back(t.shape());
  }
  StepEvent event = op_event(current_slot(), op, std::move(in), std::move(out), dtype);
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (s.active) s.record.events.push_back(std::move(event));
}

class CollectiveRecorder final : public CollectiveObserver {
 public:
  void on_collective(const CollectiveEvent& event) override {
    if (!moves_data(event.kind)) return;
    const std::span<const int> members = observed_collective_members();
    std::vector<CoreSlot> group;
    group.reserve(static_cast<std::size_t>(event.group_size));
    if (static_cast<int>(members.size()) == event.group_size) {
      for (int m : members) group.push_back({m, 0});
    } else {
      for (int r = 0; r < event.group_size; ++r) group.push_back({r, 0});
    }
    StepEvent e;
    e.collective = true;
    e.slot = current_slot();
    e.name = name_of(event.kind);
    e.dtype = event.dtype;
    e.kind = event.kind;
    e.count = event.count;
    e.bytes = collective_bytes(event.kind, event.dtype, event.count, event.group_size);
    e.group = std::move(group);
    State& s = state();
    std::lock_guard lock(s.mutex);
    if (s.active) s.record.events.push_back(std::move(e));
  }
};

}  // namespace

void StepRecorder::start() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (s.active) fail<FailedPreconditionError>("StepRecorder::start", "a recording is already active");
  s.active = true;
  s.registration = add_collective_observer(std::make_shared<CollectiveRecorder>());
  set_op_trace_hook(&on_op);
}

void StepRecorder::stop() {
  State& s = state();
  ObserverRegistration registration;
  {
    std::lock_guard lock(s.mutex);
    if (!s.active) return;
    s.active = false;
    set_op_trace_hook(nullptr);
    registration = std::move(s.registration);
  }
  // `registration` unregisters here, outside the lock (an observer snapshot may be calling on_collective).
}

bool StepRecorder::active() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return s.active;
}

StepRecord StepRecorder::take(std::string name, std::int64_t step_num) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  StepRecord out = std::exchange(s.record, StepRecord{});
  out.name = std::move(name);
  out.step_num = step_num;
  return out;
}

std::int64_t StepRecorder::num_events() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return static_cast<std::int64_t>(s.record.events.size());
}

}  // namespace tpustrategy::sim
