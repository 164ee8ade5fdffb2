#include "tpustrategy/collectives/collective_observer.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <utility>
#include <vector>

#include "tpustrategy/collectives/collective_members.h"
#include "tpustrategy/collectives/communicator.h"

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
  static Registry* r = new Registry();  // never destroyed: observers may unregister during exit
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

// Forwards every call to the backend after telling the observers.
class ObservedCommunicator final : public Communicator, public NotifiesObservers {
 public:
  // `members`: the ranks of the root communicator this group holds (empty: 0 .. size-1, a root itself).
  explicit ObservedCommunicator(std::shared_ptr<Communicator> inner, std::vector<int> members = {})
      : inner_(std::move(inner)), members_(std::move(members)) {
    if (members_.empty()) {
      members_.resize(static_cast<std::size_t>(inner_->size()));
      for (std::size_t r = 0; r < members_.size(); ++r) members_[r] = static_cast<int>(r);
    }
  }

  std::string_view backend() const override { return inner_->backend(); }
  int size() const override { return inner_->size(); }
  std::span<const int> local_ranks() const override { return inner_->local_ranks(); }
  int process_index() const override { return inner_->process_index(); }
  int process_count() const override { return inner_->process_count(); }

  void all_reduce(DType dtype, std::span<const void* const> in, std::int64_t count, CollectiveOp op,
                  void* output) override {
    notify(CollectiveKind::kAllReduce, dtype, count, in.size(), op);
    inner_->all_reduce(dtype, in, count, op, output);
  }
  void all_gather(DType dtype, std::span<const void* const> in, std::int64_t count, void* output) override {
    notify(CollectiveKind::kAllGather, dtype, count, in.size());
    inner_->all_gather(dtype, in, count, output);
  }
  void reduce_scatter(DType dtype, std::span<const void* const> in, std::int64_t count, CollectiveOp op,
                      std::span<void* const> out) override {
    notify(CollectiveKind::kReduceScatter, dtype, count, in.size(), op);
    inner_->reduce_scatter(dtype, in, count, op, out);
  }
  void broadcast(DType dtype, std::span<const void* const> in, std::int64_t count, int root,
                 std::span<void* const> out) override {
    notify(CollectiveKind::kBroadcast, dtype, count, in.size(), CollectiveOp::kSum, root);
    inner_->broadcast(dtype, in, count, root, out);
  }
  void all_to_all(DType dtype, std::span<const void* const> in, std::int64_t count,
                  std::span<void* const> out) override {
    notify(CollectiveKind::kAllToAll, dtype, count, in.size());
    inner_->all_to_all(dtype, in, count, out);
  }
  void collective_permute(DType dtype, std::span<const void* const> in, std::int64_t count,
                          std::span<const std::pair<int, int>> pairs, std::span<void* const> out) override {
    notify(CollectiveKind::kCollectivePermute, dtype, count, in.size());
    inner_->collective_permute(dtype, in, count, pairs, out);
  }
  void barrier() override {
    notify(CollectiveKind::kBarrier, DType::kBool, 0, local_ranks().size());
    inner_->barrier();
  }
  std::map<int, std::shared_ptr<Communicator>> split(std::span<const int> color_of_rank,
                                                     std::span<const int> key_of_rank) const override {
    auto groups = inner_->split(color_of_rank, key_of_rank);
    for (auto& [color, group] : groups) {
      std::shared_ptr<Communicator> backend = group;
      if (auto* observed_group = dynamic_cast<ObservedCommunicator*>(group.get())) {
        backend = observed_group->inner_;  // re-wrapped below with the members
      } else if (dynamic_cast<NotifiesObservers*>(group.get()) != nullptr) {
        continue;  // a backend's own observing wrapper (MPI): members 0 .. size-1 of the subgroup
      }
      // The subgroup's ranks in split's order: by (key, rank) among the ranks of its colour.
      std::vector<int> ranks;
      for (std::size_t r = 0; r < color_of_rank.size(); ++r)
        if (color_of_rank[r] == color) ranks.push_back(static_cast<int>(r));
      std::stable_sort(ranks.begin(), ranks.end(), [&](int a, int b) { return key_of_rank[a] < key_of_rank[b]; });
      std::vector<int> members;
      members.reserve(ranks.size());
      for (int r : ranks) members.push_back(r < static_cast<int>(members_.size()) ? members_[r] : r);
      if (static_cast<int>(members.size()) != group->size()) members.clear();  // unknown layout: 0 .. size-1
      group = std::make_shared<ObservedCommunicator>(std::move(backend), std::move(members));
    }
    return groups;
  }

 private:
  void notify(CollectiveKind kind, DType dtype, std::int64_t count, std::size_t num_local,
              CollectiveOp op = CollectiveOp::kSum, int root = -1) const {
    if (registry().count.load(std::memory_order_acquire) == 0) return;
    CollectiveEvent event{kind, inner_->backend(), dtype, count, op, inner_->size(), static_cast<int>(num_local), root};
    const std::span<const int> saved = std::exchange(tl_members, std::span<const int>(members_));
    try {
      notify_collective_observers(event);
    } catch (...) {
      tl_members = saved;
      throw;
    }
    tl_members = saved;
  }

  std::shared_ptr<Communicator> inner_;
  std::vector<int> members_;
};

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

bool collective_observers_registered() { return registry().count.load(std::memory_order_acquire) != 0; }

std::shared_ptr<Communicator> observed(std::shared_ptr<Communicator> backend) {
  if (!backend) return backend;
  if (dynamic_cast<NotifiesObservers*>(backend.get()) != nullptr) return backend;
  return std::make_shared<ObservedCommunicator>(std::move(backend));
}

}  // namespace tpustrategy
