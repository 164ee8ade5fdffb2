#pragma once
// The one observing wrapper of the collective hook point (collective_observer.h): forwards every
// Communicator call to the backend after telling the observers. `Base` is Communicator or an interface
// derived from it: a backend with a richer interface (MPI: abort, timeouts) derives from
// ObservingCommunicator<ItsInterface>, forwards its extra members through inner(), and says how its
// subgroups are wrapped (observe_subgroup), so they keep that interface too.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "tpustrategy/collectives/collective_members.h"
#include "tpustrategy/collectives/collective_observer.h"
#include "tpustrategy/collectives/communicator.h"

namespace tpustrategy {

template <typename Base>
class ObservingCommunicator : public Base, public NotifiesObservers {
 public:
  // `members`: the ranks of the root communicator this group holds, for observers
  // (collective_members.h); empty: 0 .. size-1, a root itself.
  explicit ObservingCommunicator(std::shared_ptr<Base> inner, std::vector<int> members = {})
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
  void agree(const CollectiveSignature& signature) override { inner_->agree(signature); }
  void barrier() override {
    notify(CollectiveKind::kBarrier, DType::kBool, 0, local_ranks().size());
    inner_->barrier();
  }
  std::map<int, std::shared_ptr<Communicator>> split(std::span<const int> color_of_rank,
                                                     std::span<const int> key_of_rank) const override {
    auto groups = inner_->split(color_of_rank, key_of_rank);
    for (auto& [color, group] : groups) {
      const int group_size = group->size();
      group =
          observe_subgroup(std::move(group), subgroup_members(members_, color_of_rank, key_of_rank, color, group_size));
    }
    return groups;
  }

 protected:
  const std::shared_ptr<Base>& inner() const { return inner_; }
  // Wraps a subgroup split off this one, whose members (ranks of the root) are `members` (default: the
  // plain observing wrapper).
  virtual std::shared_ptr<Communicator> observe_subgroup(std::shared_ptr<Communicator> group,
                                                         std::vector<int> members) const {
    if (auto* wrapped = dynamic_cast<ObservingCommunicator<Communicator>*>(group.get())) {
      group = wrapped->inner_;  // a backend's split hands back observed groups: re-wrapped with the members
    } else if (!group || dynamic_cast<NotifiesObservers*>(group.get()) != nullptr) {
      return group;
    }
    return std::make_shared<ObservingCommunicator<Communicator>>(std::move(group), std::move(members));
  }

 private:
  void notify(CollectiveKind kind, DType dtype, std::int64_t count, std::size_t num_local,
              CollectiveOp op = CollectiveOp::kSum, int root = -1) const {
    if (!collective_observers_registered()) return;
    const CollectiveEvent event{kind,           inner_->backend(),           dtype, count, op,
                                inner_->size(), static_cast<int>(num_local), root};
    const ObservedMembersScope scope(members_);
    notify_collective_observers(event);
  }

  template <typename>
  friend class ObservingCommunicator;

  std::shared_ptr<Base> inner_;
  std::vector<int> members_;
};

}  // namespace tpustrategy
