// Subgroup planning for MpiCommunicator::split (see split_plan.h).
#include "tpustrategy/collectives/mpi/split_plan.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace tpustrategy::detail {

int Subgroup::process_count() const { return static_cast<int>(std::count(processes.begin(), processes.end(), 1)); }

std::vector<Subgroup> plan_split(const ProcessLayout& parent, std::span<const int> color_of_rank,
                                 std::span<const int> key_of_rank) {
  std::map<int, Subgroup> by_color;
  for (int r = 0; r < parent.size(); ++r) {
    const int color = color_of_rank[r];
    if (color < 0) continue;
    Subgroup& g = by_color[color];
    if (g.processes.empty()) {
      g.color = color;
      g.processes.assign(parent.process_count(), 0);
    }
    g.ranks.push_back(r);
    g.processes[parent.owner[r]] = 1;
  }
  std::vector<Subgroup> result;
  for (auto& [color, g] : by_color) {
    std::stable_sort(g.ranks.begin(), g.ranks.end(), [&](int a, int b) {
      return key_of_rank[a] != key_of_rank[b] ? key_of_rank[a] < key_of_rank[b] : a < b;
    });
    result.push_back(std::move(g));
  }
  return result;
}

std::vector<std::vector<int>> plan_split_rounds(const std::vector<Subgroup>& subgroups, int process_count) {
  std::vector<std::vector<int>> rounds;
  std::vector<std::vector<char>> busy;  // round -> process -> taken
  for (int i = 0; i < static_cast<int>(subgroups.size()); ++i) {
    const Subgroup& g = subgroups[i];
    if (g.process_count() < 2) continue;
    std::size_t round = 0;
    for (; round < rounds.size(); ++round) {
      bool free = true;
      for (int p = 0; p < process_count; ++p) free = free && !(g.processes[p] && busy[round][p]);
      if (free) break;
    }
    if (round == rounds.size()) {
      rounds.emplace_back();
      busy.emplace_back(process_count, 0);
    }
    rounds[round].push_back(i);
    for (int p = 0; p < process_count; ++p) busy[round][p] = static_cast<char>(busy[round][p] || g.processes[p]);
  }
  return rounds;
}

ProcessLayout subgroup_layout(const ProcessLayout& parent, const Subgroup& g) {
  std::vector<int> renumbered(parent.process_count(), -1);
  std::vector<int> world;
  for (int p = 0; p < parent.process_count(); ++p) {
    if (!g.processes[p]) continue;
    renumbered[p] = static_cast<int>(world.size());
    world.push_back(parent.world_rank[p]);
  }
  std::vector<int> owner;
  for (int r : g.ranks) owner.push_back(renumbered[parent.owner[r]]);
  return make_layout(std::move(owner), std::move(world), renumbered[parent.self]);
}

}  // namespace tpustrategy::detail
