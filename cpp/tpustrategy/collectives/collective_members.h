#pragma once
// Which participants a collective runs over, for observers (collective_observer.h): while an observer's
// on_collective runs, observed_collective_members() gives the group's members as ranks of the root
// communicator it was split from (for a strategy's run: replica ids). A communicator that was not split has
// members 0 .. size-1. Valid only during the callback (thread-local).
#include <span>

namespace tpustrategy {

std::span<const int> observed_collective_members();

}  // namespace tpustrategy
