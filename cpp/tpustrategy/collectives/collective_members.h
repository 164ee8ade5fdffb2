#pragma once
// Which participants a collective runs over, for observers (collective_observer.h): while an observer's
// on_collective runs, observed_collective_members() gives the group's members as ranks of the root
// communicator it was split from (for a strategy's run: replica ids). A communicator that was not split has
// members 0 .. size-1. Valid only during the callback (thread-local).
#include <span>
#include <vector>

namespace tpustrategy {

std::span<const int> observed_collective_members();

// Makes `members` what observed_collective_members() returns until destroyed (the observing wrapper
// holds one around each notification).
class ObservedMembersScope {
 public:
  explicit ObservedMembersScope(std::span<const int> members);
  ~ObservedMembersScope();
  ObservedMembersScope(const ObservedMembersScope&) = delete;
  ObservedMembersScope& operator=(const ObservedMembersScope&) = delete;

 private:
  std::span<const int> saved_;
};

// The members (ranks of the root communicator) of the subgroup of colour `color` that split(color_of_rank,
// key_of_rank) makes from a group whose members are `parent_members`: its ranks ordered by (key, rank).
// Empty (meaning 0 .. size-1) when the result would not have `group_size` members.
std::vector<int> subgroup_members(std::span<const int> parent_members, std::span<const int> color_of_rank,
                                  std::span<const int> key_of_rank, int color, int group_size);

}  // namespace tpustrategy
