#include "tpustrategy/collectives/collective_observer.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <utility>
#include <vector>

#include "tpustrategy/collectives/communicator.h"
#include "tpustrategy/collectives/observing_communicator.h"

namespace tpustrategy {
namespace {

// Copy-on-write list: notification takes a snapshot under the lock and calls without it, so an
// observer may register or unregister others (or itself) from its callback.
struct Registry {
  std::mutex mutex;
  std::shared_ptr<const std::vector<std::shared_ptr<CollectiveObserver>>> observers =
      std::make_shared<const std::vector<std::shared_ptr<CollectiveObserver>>>();
  std::atomic<int> count{0};
};

Registry& registry() {
  static auto* r = new Registry();  // never destroyed: observers may unregister during exit
  return *r;
}

void add(std::shared_ptr<CollectiveObserver> observer) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto next = std::make_shared<std::vector<std::shared_ptr<CollectiveObserver>>>(*r.observers);
  next->push_back(std::move(observer));
  r.observers = std::move(next);
  r.count.store(static_cast<int>(r.observers->size()), std::memory_order_release);
}

void remove(const std::shared_ptr<CollectiveObserver>& observer) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto next = std::make_shared<std::vector<std::shared_ptr<CollectiveObserver>>>(*r.observers);
  auto it = std::find(next->begin(), next->end(), observer);
  if (it != next->end()) next->erase(it);
  r.observers = std::move(next);
  r.count.store(static_cast<int>(r.observers->size()), std::memory_order_release);
}

}  // namespace

ObserverRegistration::ObserverRegistration(std::shared_ptr<CollectiveObserver> observer)
    : observer_(std::move(observer)) {
  if (observer_) add(observer_);
}

ObserverRegistration::~ObserverRegistration() {
  if (observer_) remove(observer_);
}

ObserverRegistration::ObserverRegistration(ObserverRegistration&& other) noexcept
    : observer_(std::exchange(other.observer_, nullptr)) {}

ObserverRegistration& ObserverRegistration::operator=(ObserverRegistration&& other) noexcept {
  if (this != &other) {
    if (observer_) remove(observer_);
    observer_ = std::exchange(other.observer_, nullptr);
  }
  return *this;
}

ObserverRegistration add_collective_observer(std::shared_ptr<CollectiveObserver> observer) {
  return ObserverRegistration(std::move(observer));
}

void notify_collective_observers(const CollectiveEvent& event) {
  Registry& r = registry();
  if (r.count.load(std::memory_order_acquire) == 0) return;
  std::shared_ptr<const std::vector<std::shared_ptr<CollectiveObserver>>> snapshot;
  {
    std::lock_guard lock(r.mutex);
    snapshot = r.observers;
  }
  for (const auto& observer : *snapshot) observer->on_collective(event);
}

bool collective_observers_registered() { return registry().count.load(std::memory_order_acquire) != 0; }

std::shared_ptr<Communicator> observed(std::shared_ptr<Communicator> backend) {
  if (!backend) return backend;
  if (dynamic_cast<NotifiesObservers*>(backend.get()) != nullptr) return backend;
  return std::make_shared<ObservingCommunicator<Communicator>>(std::move(backend));
}

}  // namespace tpustrategy
