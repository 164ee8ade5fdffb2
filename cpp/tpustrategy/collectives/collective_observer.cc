#include "tpustrategy/collectives/collective_observer.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <utility>
#include <vector>

#include "tpustrategy/collectives/collective_members.h"
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

thread_local std::span<const int> tl_members;

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

std::span<const int> observed_collective_members() { return tl_members; }

ObservedMembersScope::ObservedMembersScope(std::span<const int> members) : saved_(std::exchange(tl_members, members)) {}

ObservedMembersScope::~ObservedMembersScope() { tl_members = saved_; }

std::vector<int> subgroup_members(std::span<const int> parent_members, std::span<const int> color_of_rank,
                                  std::span<const int> key_of_rank, int color, int group_size) {
  std::vector<int> ranks;
  for (std::size_t r = 0; r < color_of_rank.size(); ++r)
    if (color_of_rank[r] == color) ranks.push_back(static_cast<int>(r));
  std::stable_sort(ranks.begin(), ranks.end(), [&](int a, int b) { return key_of_rank[a] < key_of_rank[b]; });
  std::vector<int> members;
  members.reserve(ranks.size());
  for (int r : ranks) members.push_back(r < static_cast<int>(parent_members.size()) ? parent_members[r] : r);
  if (static_cast<int>(members.size()) != group_size) members.clear();  // unknown layout: 0 .. size-1
  return members;
}

bool collective_observers_registered() { return registry().count.load(std::memory_order_acquire) != 0; }

std::shared_ptr<Communicator> observed(std::shared_ptr<Communicator> backend) {
  if (!backend) return backend;
  if (dynamic_cast<NotifiesObservers*>(backend.get()) != nullptr) return backend;
  return std::make_shared<ObservingCommunicator<Communicator>>(std::move(backend));
}

}  // namespace tpustrategy
