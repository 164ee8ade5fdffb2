#include "tpustrategy/collectives/communicator_split.h"

#include <algorithm>
#include <tuple>

#include "tpustrategy/core/errors.h"

namespace tpustrategy {

std::map<int, std::vector<int>> split_ranks(int size, std::span<const int> color_of_rank,
                                            std::span<const int> key_of_rank) {
  if (std::ssize(color_of_rank) != size || std::ssize(key_of_rank) != size) {
    fail<InvalidArgumentError>("Communicator::split",
                               "needs one colour and one key per rank of the {}-rank group, "
                               "got {} colours and {} keys",
                               size, color_of_rank.size(), key_of_rank.size());
  }
  std::map<int, std::vector<int>> groups;
  for (int r = 0; r < size; ++r) {
    if (color_of_rank[r] >= 0) groups[color_of_rank[r]].push_back(r);
  }
  for (auto& [color, ranks] : groups) {
    std::stable_sort(ranks.begin(), ranks.end(),
                     [&](int a, int b) { return std::tie(key_of_rank[a], a) < std::tie(key_of_rank[b], b); });
  }
  return groups;
}

}  // namespace tpustrategy
