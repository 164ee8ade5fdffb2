#pragma once
// The one hook point of every collective: each Communicator made by the factories of communicator.h
// reports every call here before any data moves, whatever the front end (the Python greenlet
// scheduler, the C++ thread runner, tensor-level functions) or the backend. Later layers attach to it:
// the trace recorder, the cost model, the gradient tape of collectives.
//
// Observers are process-wide. With none registered the cost is one relaxed atomic load per call.
#include <cstdint>
#include <memory>
#include <string_view>

#include "tpustrategy/collectives/collective_kind.h"
#include "tpustrategy/collectives/reduce_op.h"
#include "tpustrategy/core/dtype.h"

namespace tpustrategy {

class Communicator;

// What is about to run. `count` is per participant, as passed to the Communicator.
struct CollectiveEvent {
  CollectiveKind kind = CollectiveKind::kBarrier;
  std::string_view backend;
  DType dtype = DType::kFloat32;
  std::int64_t count = 0;
  CollectiveOp op = CollectiveOp::kSum;  // all_reduce, reduce_scatter
  int group_size = 0;
  int num_local = 0;  // participants of this process taking part in this call
  int root = -1;      // broadcast
};

class CollectiveObserver {
 public:
  virtual ~CollectiveObserver() = default;
  // Called on the calling thread before the collective runs; may run concurrently for different
  // groups. An exception aborts the collective (no data moves) and reaches its caller.
  virtual void on_collective(const CollectiveEvent& event) = 0;
};

// Registers `observer` until the returned handle is destroyed.
class ObserverRegistration {
 public:
  ObserverRegistration() = default;
  explicit ObserverRegistration(std::shared_ptr<CollectiveObserver> observer);
  ~ObserverRegistration();
  ObserverRegistration(ObserverRegistration&& other) noexcept;
  ObserverRegistration& operator=(ObserverRegistration&& other) noexcept;
  ObserverRegistration(const ObserverRegistration&) = delete;
  ObserverRegistration& operator=(const ObserverRegistration&) = delete;

 private:
  std::shared_ptr<CollectiveObserver> observer_;
};

[[nodiscard]] ObserverRegistration add_collective_observer(std::shared_ptr<CollectiveObserver> observer);

// Tells every registered observer (no-op when there are none).
void notify_collective_observers(const CollectiveEvent& event);

// Wraps a backend so that every call (and every subgroup it splits off) notifies the observers.
// The factories of communicator.h return observed communicators; a new backend's factory wraps too.
// A communicator that already notifies (it derives from NotifiesObservers) is returned as is.
std::shared_ptr<Communicator> observed(std::shared_ptr<Communicator> backend);

// Marks a Communicator whose calls already notify the observers (observed() does not wrap it again).
// A backend with an interface richer than Communicator's (MPI: abort, timeouts) derives its wrapper
// from ObservingCommunicator<ItsInterface> (observing_communicator.h), which derives from this.
class NotifiesObservers {
 public:
  virtual ~NotifiesObservers() = default;
};

// True when some observer is registered (one relaxed atomic load): skip building events otherwise.
bool collective_observers_registered();

}  // namespace tpustrategy
