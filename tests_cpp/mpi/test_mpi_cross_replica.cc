// The tensor-level collectives whose results differ per participant (reduce_scatter, all_to_all,
// collective_permute; distribute/cross_replica*.h) over a group that spans processes, under `mpirun -n 2`
// / `-n 4` (registered with CTest by tests_cpp/mpi/CMakeLists.txt). Every process builds every rank's
// input tensor, computes the whole group's result in process, and compares its local participants'
// results byte for byte. Layouts: two participants per process, and an uneven one (1, 2, 1, 2 ...).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tpustrategy/collectives/mesh_axis_split.h"
#include "tpustrategy/collectives/mpi/mpi_communicator.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/distribute/cross_replica.h"
#include "tpustrategy/distribute/cross_replica_exchange.h"

namespace tpustrategy {
namespace {

struct Layout {
  const char* name;
  int (*local_size)(int process);
};
const Layout kLayouts[] = {{"two_each", [](int) { return 2; }}, {"uneven", [](int p) { return p % 2 + 1; }}};

DevicePtr make_device(int rank) {
  return std::make_shared<Device>("/job:worker/replica:0/task:0/device:TPU:" + std::to_string(rank), "TPU", 0, rank,
                                  std::array<int, 4>{0, 0, 0, rank}, 1 << 22);
}

// One group over MPI, and the same group's participants as devices and inputs of every rank.
struct Group {
  std::shared_ptr<Communicator> comm;
  std::vector<int> local;
  std::vector<DevicePtr> devices;  // every rank's
};

Group make_group(const Layout& layout) {
  Group g;
  g.comm = make_mpi_communicator(layout.local_size(mpi_world_rank()));
  g.local.assign(g.comm->local_ranks().begin(), g.comm->local_ranks().end());
  for (int r = 0; r < g.comm->size(); ++r) g.devices.push_back(make_device(r));
  return g;
}

// Rank r's input: distinct small integers (exact sums in any order), in float32 or int32.
Tensor input_of(int rank, DType dtype, const Shape& shape, const DevicePtr& device) {
  const std::int64_t n = num_elements(shape);
  if (dtype == DType::kInt32) {
    std::vector<std::int32_t> v(static_cast<std::size_t>(n));
    for (std::int64_t k = 0; k < n; ++k) v[k] = static_cast<std::int32_t>(rank * 1000 + k - 7 * (rank % 2));
    return Tensor::from_vector<std::int32_t>(v, shape, device);
  }
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) v[k] = static_cast<float>(rank * 100 + k) * (rank % 2 ? -0.5f : 1.0f);
  return Tensor::from_vector<float>(v, shape, device);
}

template <typename T>
std::vector<T> select(const std::vector<T>& all, const std::vector<int>& ranks) {
  std::vector<T> out;
  for (int r : ranks) out.push_back(all[static_cast<std::size_t>(r)]);
  return out;
}

std::vector<int> all_ranks(int size) {
  std::vector<int> r(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) r[i] = i;
  return r;
}

void expect_same(const Tensor& have, const Tensor& want, const std::string& what) {
  ASSERT_EQ(have.dtype(), want.dtype()) << what;
  ASSERT_EQ(have.shape(), want.shape()) << what << ": " << shape_to_string(have.shape()) << " vs "
                                        << shape_to_string(want.shape());
  EXPECT_EQ(std::memcmp(have.raw_data(), want.raw_data(), static_cast<std::size_t>(have.nbytes())), 0) << what;
}

// `run` on the MPI group's local participants equals `run` on the whole group in process.
template <typename Run>
void expect_matches_in_process(const Group& g, const std::vector<Tensor>& every_input, Run&& run,
                               const std::string& what) {
  auto reference_comm = make_in_process_communicator(g.comm->size());
  const std::vector<Tensor> want = run(*reference_comm, every_input, g.devices);
  const std::vector<Tensor> have = run(*g.comm, select(every_input, g.local), select(g.devices, g.local));
  ASSERT_EQ(have.size(), g.local.size()) << what;
  for (std::size_t j = 0; j < g.local.size(); ++j) {
    expect_same(have[j], want[static_cast<std::size_t>(g.local[j])], what + " rank " + std::to_string(g.local[j]));
    EXPECT_EQ(have[j].device(), g.devices[static_cast<std::size_t>(g.local[j])]) << what;
  }
}

std::vector<Tensor> inputs_for(const Group& g, DType dtype, const Shape& shape) {
  std::vector<Tensor> out;
  for (int r = 0; r < g.comm->size(); ++r) out.push_back(input_of(r, dtype, shape, g.devices[r]));
  return out;
}

TEST(MpiTensorCollectives, ReduceScatterMatchesTheInProcessGroup) {
  for (const Layout& layout : kLayouts) {
    Group g = make_group(layout);
    const std::int64_t n = g.comm->size();
    for (DType dtype : {DType::kFloat32, DType::kInt32}) {
      const auto inputs = inputs_for(g, dtype, {2 * n, 3});
      for (CollectiveOp op : {CollectiveOp::kSum, CollectiveOp::kMean, CollectiveOp::kMax, CollectiveOp::kMin}) {
        expect_matches_in_process(
            g, inputs,
            [&](Communicator& comm, const std::vector<Tensor>& in, const std::vector<DevicePtr>& to) {
              return reduce_scatter_tensors(comm, in, op, to);
            },
            std::string("reduce_scatter ") + layout.name + " " + std::string(dtype_name(dtype)) + " " +
                std::string(collective_op_name(op)));
      }
    }
    // Each local participant gets a piece of dimension 0 / group size (not / local participants).
    const auto pieces = reduce_scatter_tensors(*g.comm, select(inputs_for(g, DType::kFloat32, {2 * n, 3}), g.local),
                                               CollectiveOp::kSum, select(g.devices, g.local));
    for (const Tensor& t : pieces) EXPECT_EQ(t.shape(), (Shape{2, 3}));
  }
}

TEST(MpiTensorCollectives, AllToAllMatchesTheInProcessGroupForEverySplitAndConcatDimension) {
  for (const Layout& layout : kLayouts) {
    Group g = make_group(layout);
    const std::int64_t n = g.comm->size();
    const auto inputs = inputs_for(g, DType::kFloat32, {2 * n, 3 * n});
    for (auto [concat, split] : {std::pair{0, 0}, {1, 0}, {0, 1}, {1, 1}}) {
      expect_matches_in_process(
          g, inputs,
          [&](Communicator& comm, const std::vector<Tensor>& in, const std::vector<DevicePtr>& to) {
            return all_to_all_tensors(comm, in, concat, split, to);
          },
          std::string("all_to_all ") + layout.name + " concat " + std::to_string(concat) + " split " +
              std::to_string(split));
    }
  }
}

TEST(MpiTensorCollectives, CollectivePermuteAcrossProcessesZeroFillsUntargeted) {
  for (const Layout& layout : kLayouts) {
    Group g = make_group(layout);
    const int n = g.comm->size();
    const auto inputs = inputs_for(g, DType::kInt32, {2, 5});
    std::vector<std::pair<int, int>> ring, partial{{0, n - 1}, {n - 1, 1}};
    for (int r = 0; r < n; ++r) ring.emplace_back(r, (r + 1) % n);
    for (const auto& pairs : {ring, partial}) {
      expect_matches_in_process(
          g, inputs,
          [&](Communicator& comm, const std::vector<Tensor>& in, const std::vector<DevicePtr>& to) {
            return collective_permute_tensors(comm, in, pairs, to);
          },
          std::string("collective_permute ") + layout.name + (pairs.size() == 2 ? " partial" : " ring"));
    }
    // The values themselves: rank 1 receives rank 0's input in the ring.
    const auto out = collective_permute_tensors(*g.comm, select(inputs, g.local), ring, select(g.devices, g.local));
    for (std::size_t j = 0; j < g.local.size(); ++j) {
      const int from = (g.local[j] + n - 1) % n;
      expect_same(out[j], inputs[static_cast<std::size_t>(from)], "ring value");
    }
  }
}

TEST(MpiTensorCollectives, SubgroupsSpanningProcessesRunEachCollective) {
  Group g = make_group(kLayouts[0]);
  const int n = g.comm->size();
  // Even and odd ranks: with two participants per process, each subgroup has one in every process.
  std::vector<int> color(static_cast<std::size_t>(n)), key(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) color[r] = r % 2, key[r] = -r;  // ranked backwards within the subgroup
  const auto subgroups = g.comm->split(color, key);
  ASSERT_EQ(subgroups.size(), 2u);
  for (const auto& [c, sub] : subgroups) {
    std::vector<int> members;  // group ranks in subgroup rank order
    for (int r = n - 1; r >= 0; --r) {
      if (r % 2 == c) members.push_back(r);
    }
    ASSERT_EQ(sub->size(), static_cast<int>(members.size()));
    const std::int64_t m = sub->size();
    Group sg{sub, {sub->local_ranks().begin(), sub->local_ranks().end()}, select(g.devices, members)};
    std::vector<Tensor> inputs;
    for (int r : members) inputs.push_back(input_of(r, DType::kFloat32, {2 * m, m}, g.devices[r]));
    expect_matches_in_process(
        sg, inputs,
        [](Communicator& comm, const std::vector<Tensor>& in, const std::vector<DevicePtr>& to) {
          return reduce_scatter_tensors(comm, in, CollectiveOp::kSum, to);
        },
        "reduce_scatter in subgroup " + std::to_string(c));
    expect_matches_in_process(
        sg, inputs,
        [](Communicator& comm, const std::vector<Tensor>& in, const std::vector<DevicePtr>& to) {
          return all_to_all_tensors(comm, in, 1, 0, to);
        },
        "all_to_all in subgroup " + std::to_string(c));
    expect_matches_in_process(
        sg, inputs,
        [&](Communicator& comm, const std::vector<Tensor>& in, const std::vector<DevicePtr>& to) {
          return collective_permute_tensors(comm, in, std::vector<std::pair<int, int>>{{0, sg.comm->size() - 1}}, to);
        },
        "collective_permute in subgroup " + std::to_string(c));
  }
}

TEST(MpiTensorCollectives, ShapesThatDifferBetweenProcessesFailEverywhereNamingThem) {
  Group g = make_group(kLayouts[0]);
  const std::int64_t n = g.comm->size();
  const std::int64_t rows = mpi_world_rank() == 0 ? 2 * n : 4 * n;  // process 0 disagrees
  std::vector<Tensor> mine;
  for (int r : g.local) mine.push_back(input_of(r, DType::kFloat32, {rows, 2}, g.devices[r]));
  try {
    reduce_scatter_tensors(*g.comm, mine, CollectiveOp::kSum, select(g.devices, g.local));
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgumentError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("processes called different collectives"), std::string::npos) << m;
    EXPECT_NE(m.find("process 0 (MPI rank 0"), std::string::npos) << m;
  }
  // Bad local arguments (dimension 0 not divisible by the group size) raise before any data moves.
  std::vector<Tensor> odd;
  for (int r : g.local) odd.push_back(input_of(r, DType::kFloat32, {n + 1, 2}, g.devices[r]));
  EXPECT_THROW(reduce_scatter_tensors(*g.comm, odd, CollectiveOp::kSum, select(g.devices, g.local)),
               InvalidArgumentError);
  EXPECT_THROW(all_to_all_tensors(*g.comm, odd, 0, 0, select(g.devices, g.local)), InvalidArgumentError);
  // The group is still usable afterwards.
  const auto inputs = inputs_for(g, DType::kInt32, {2, 3});
  std::vector<std::pair<int, int>> pairs{{0, 1}};
  expect_matches_in_process(
      g, inputs,
      [&](Communicator& comm, const std::vector<Tensor>& in, const std::vector<DevicePtr>& to) {
        return collective_permute_tensors(comm, in, pairs, to);
      },
      "collective_permute after errors");
}

// Cartesian sub-communicators over MPI: every subgroup of a mesh split holds the ranks the mesh math
// says, in row-major order of the kept coordinates, whether it lives in one process or spans several.
TEST(MpiMeshAxes, RowsAndColumnsOfTwoDimensionalMeshes) {
  Group g = make_group(kLayouts[0]);  // two participants per process: ranks 2p, 2p + 1
  const int n = g.comm->size(), processes = mpi_world_size();
  for (const std::array<int, 2> mesh : {std::array<int, 2>{processes, 2}, std::array<int, 2>{2, processes}}) {
    for (const std::array<bool, 2> keep : {std::array<bool, 2>{false, true}, std::array<bool, 2>{true, false}}) {
      const std::string what = "mesh [" + std::to_string(mesh[0]) + ", " + std::to_string(mesh[1]) + "] keeping " +
                               (keep[0] ? "axis 0" : "axis 1");
      const auto subgroups = split_mesh_axes(*g.comm, mesh, keep);
      // The members of each colour, in subgroup rank order (row-major: the kept axis ascending).
      std::map<int, std::vector<int>> members;
      for (int r = 0; r < n; ++r) members[mesh_subgroup_color(mesh, keep, r)].push_back(r);
      for (int r : g.local) {
        const int color = mesh_subgroup_color(mesh, keep, r);
        ASSERT_EQ(subgroups.count(color), 1u) << what;
      }
      for (const auto& [color, sub] : subgroups) {
        const std::vector<int>& expected = members.at(color);
        ASSERT_EQ(sub->size(), static_cast<int>(expected.size())) << what;
        // The parent ranks of this subgroup's local participants, in its local-rank order.
        std::vector<float> mine;
        for (int sub_rank : sub->local_ranks()) mine.push_back(static_cast<float>(expected[sub_rank]));
        for (float r : mine) {
          EXPECT_NE(std::find(g.local.begin(), g.local.end(), static_cast<int>(r)), g.local.end()) << what;
        }
        std::vector<const void*> in;
        for (const float& v : mine) in.push_back(&v);
        std::vector<float> gathered(expected.size());
        sub->all_gather(DType::kFloat32, in, 1, gathered.data());
        EXPECT_EQ(gathered, std::vector<float>(expected.begin(), expected.end())) << what << " colour " << color;
        float sum = 0;
        sub->all_reduce(DType::kFloat32, in, 1, CollectiveOp::kSum, &sum);
        float expected_sum = 0;
        for (int r : expected) expected_sum += static_cast<float>(r);
        EXPECT_EQ(sum, expected_sum) << what;
      }
    }
  }
}

}  // namespace
}  // namespace tpustrategy
