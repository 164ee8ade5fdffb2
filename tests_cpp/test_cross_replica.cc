// Tensor-level cross-replica functions: values, shared result buffers charged to every destination,
// ragged gathers, and validation errors naming the replica.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/distribute/cross_replica.h"

namespace tpustrategy {
namespace {

DevicePtr make_device(int index) {
  return std::make_shared<Device>("/job:worker/replica:0/task:0/device:TPU:" + std::to_string(index), "TPU", 0, index,
                                  std::array<int, 4>{0, 0, 0, index}, 1 << 20);
}

TEST(CrossReplica, AllReduceSharesOneBufferAndChargesEveryDevice) {
  DevicePtr d0 = make_device(0), d1 = make_device(1);
  std::vector<Tensor> inputs = {Tensor::from_vector<float>({1, 2}, {2}, d0),
                                Tensor::from_vector<float>({3, 4}, {2}, d1)};
  const std::int64_t before = d1->memory_info().current;
  {
    std::vector<DevicePtr> destinations = {d0, d1};
    std::vector<Tensor> out = all_reduce_tensors(inputs, CollectiveOp::kSum, destinations);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{4, 6}));
    EXPECT_EQ(out[0].raw_data(), out[1].raw_data());
    EXPECT_EQ(out[1].device(), d1);
    EXPECT_EQ(d1->memory_info().current, before + 8);
  }
  EXPECT_EQ(d1->memory_info().current, before);
}

TEST(CrossReplica, DroppingOneDestinationsResultReleasesExactlyThatDevice) {
  // Regression: the shared buffer was charged to destinations[0] for as long as any destination's
  // result lived, so device 0 stayed charged after its own result was dropped.
  DevicePtr d0 = make_device(0), d1 = make_device(1);
  std::vector<Tensor> inputs = {Tensor::from_vector<float>({1, 2}, {2}, d0),
                                Tensor::from_vector<float>({3, 4}, {2}, d1)};
  const std::int64_t before0 = d0->memory_info().current, before1 = d1->memory_info().current;
  std::vector<DevicePtr> destinations = {d0, d1};
  for (int gather = 0; gather < 2; ++gather) {
    std::vector<Tensor> out = gather ? all_gather_tensors(inputs, 0, destinations)
                                     : all_reduce_tensors(inputs, CollectiveOp::kSum, destinations);
    const std::int64_t bytes = out[0].nbytes();
    EXPECT_EQ(d0->memory_info().current, before0 + bytes);
    EXPECT_EQ(d1->memory_info().current, before1 + bytes);
    Tensor kept = out[1];
    out.clear();
    EXPECT_EQ(d0->memory_info().current, before0);
    EXPECT_EQ(d1->memory_info().current, before1 + bytes);
  }
  EXPECT_EQ(d1->memory_info().current, before1);
}

TEST(CrossReplica, ShareAcrossChargesTheValuesOwnDeviceOnce) {
  // Regression: a value living on a destination other than the first was charged twice there.
  DevicePtr d0 = make_device(0), d1 = make_device(1);
  Tensor value = Tensor::from_vector<float>({1, 2}, {2}, d1);
  std::vector<DevicePtr> destinations = {d0, d1};
  std::vector<Tensor> out = share_across(value, destinations);
  EXPECT_EQ(d0->memory_info().current, 8);
  EXPECT_EQ(d1->memory_info().current, 8);
  EXPECT_EQ(out[1].buffer(), value.buffer());
}

TEST(CrossReplica, AllReduceRejectsMismatchesNamingTheReplica) {
  DevicePtr d0 = make_device(0);
  std::vector<Tensor> inputs = {Tensor::from_vector<float>({1, 2}, {2}, d0), Tensor::from_vector<float>({1}, {1}, d0)};
  std::vector<DevicePtr> destinations = {d0};
  try {
    all_reduce_tensors(inputs, CollectiveOp::kSum, destinations);
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("replica 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(all_reduce_tensors({}, CollectiveOp::kSum, destinations), InvalidArgumentError);
}

TEST(CrossReplica, AllGatherConcatenatesAlongAnyAxisWithRaggedSizes) {
  DevicePtr d0 = make_device(0);
  std::vector<DevicePtr> destinations = {d0};
  std::vector<Tensor> inputs = {Tensor::from_vector<int>({1, 2, 3, 4}, {2, 2}, d0),
                                Tensor::from_vector<int>({5, 6}, {2, 1}, d0)};
  Tensor out = all_gather_tensors(inputs, 1, destinations)[0];
  EXPECT_EQ(out.shape(), (Shape{2, 3}));
  EXPECT_EQ(out.to_vector<int>(), (std::vector<int>{1, 2, 5, 3, 4, 6}));
  EXPECT_THROW(all_gather_tensors(inputs, 0, destinations), InvalidArgumentError);
  std::vector<Tensor> scalars = {Tensor::scalar<float>(1, d0)};
  EXPECT_THROW(all_gather_tensors(scalars, 0, destinations), InvalidArgumentError);
}

TEST(CrossReplica, ReduceScatterGivesEachReplicaItsSlice) {
  DevicePtr d0 = make_device(0), d1 = make_device(1);
  std::vector<Tensor> inputs = {Tensor::from_vector<float>({1, 2, 3, 4}, {4}, d0),
                                Tensor::from_vector<float>({10, 20, 30, 40}, {4}, d1)};
  std::vector<DevicePtr> destinations = {d0, d1};
  std::vector<Tensor> out = reduce_scatter_tensors(inputs, CollectiveOp::kSum, destinations);
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{11, 22}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{33, 44}));
}

}  // namespace
}  // namespace tpustrategy
