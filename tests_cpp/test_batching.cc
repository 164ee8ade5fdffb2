// Batching kernels: stack, unstack, split, slice, concat and the rebatching row buffer.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <thread>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/data/batching.h"

namespace tpustrategy::data {
namespace {

Tensor iota(Shape shape, std::int64_t start = 0) {
  std::vector<std::int64_t> values(static_cast<std::size_t>(num_elements(shape)));
  std::iota(values.begin(), values.end(), start);
  return Tensor::from_vector(values, std::move(shape));
}

std::vector<std::int64_t> values(const Tensor& t) { return t.to_vector<std::int64_t>(); }

TEST(StackBatch, StacksElementsAlongANewLeadingDim) {
  std::vector<Tensor> elements = {iota({2}, 0), iota({2}, 10), iota({2}, 20)};
  Tensor batch = stack_batch(elements);
  EXPECT_EQ(batch.shape(), (Shape{3, 2}));
  EXPECT_EQ(values(batch), (std::vector<std::int64_t>{0, 1, 10, 11, 20, 21}));
}

TEST(StackBatch, ScalarsAndEmptyElements) {
  std::vector<Tensor> scalars = {Tensor::scalar<float>(1.5f), Tensor::scalar<float>(2.5f)};
  Tensor batch = stack_batch(scalars);
  EXPECT_EQ(batch.shape(), (Shape{2}));
  EXPECT_EQ(batch.to_vector<float>(), (std::vector<float>{1.5f, 2.5f}));
  std::vector<Tensor> empties = {Tensor::zeros(DType::kInt32, {0, 3}), Tensor::zeros(DType::kInt32, {0, 3})};
  EXPECT_EQ(stack_batch(empties).shape(), (Shape{2, 0, 3}));
}

TEST(StackBatch, LargeBatchesUseThePoolAndStayExact) {
  std::vector<Tensor> elements;
  for (int i = 0; i < 64; ++i) elements.push_back(iota({8192}, i * 8192));
  Tensor batch = stack_batch(elements);
  std::vector<std::int64_t> expected(64 * 8192);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(values(batch), expected);
}

TEST(StackBatch, RejectsMismatchedShapesAndDtypes) {
  std::vector<Tensor> shapes = {iota({2}), iota({3})};
  try {
    stack_batch(shapes, 1);
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("different shapes in component 1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("element 1 had shape (3,)"), std::string::npos) << e.what();
  }
  std::vector<Tensor> dtypes = {iota({2}), Tensor::zeros(DType::kFloat32, {2})};
  EXPECT_THROW(stack_batch(dtypes), InvalidArgumentError);
  EXPECT_THROW(stack_batch({}), InvalidArgumentError);
}

TEST(UnstackRows, InvertsStack) {
  Tensor batch = iota({3, 2});
  std::vector<Tensor> rows = unstack_rows(batch);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].shape(), (Shape{2}));
  EXPECT_EQ(values(rows[2]), (std::vector<std::int64_t>{4, 5}));
  EXPECT_EQ(values(stack_batch(rows)), values(batch));
  EXPECT_THROW(unstack_rows(Tensor::scalar<std::int64_t>(1)), InvalidArgumentError);
}

TEST(SplitRows, SlicesOfGivenSizesIncludingEmpty) {
  Tensor batch = iota({5, 2});
  std::vector<std::int64_t> sizes = {2, 0, 3};
  std::vector<Tensor> parts = split_rows(batch, sizes);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(parts[1].shape(), (Shape{0, 2}));
  EXPECT_EQ(values(parts[2]), (std::vector<std::int64_t>{4, 5, 6, 7, 8, 9}));
  std::vector<std::int64_t> too_many = {3, 3};
  EXPECT_THROW(split_rows(batch, too_many), InvalidArgumentError);
  std::vector<std::int64_t> negative = {-1};
  EXPECT_THROW(split_rows(batch, negative), InvalidArgumentError);
}

TEST(SliceAndConcatRows, RoundTrip) {
  Tensor batch = iota({4, 3});
  Tensor middle = slice_rows(batch, 1, 2);
  EXPECT_EQ(values(middle), (std::vector<std::int64_t>{3, 4, 5, 6, 7, 8}));
  std::vector<Tensor> parts = {slice_rows(batch, 0, 1), slice_rows(batch, 1, 0), slice_rows(batch, 1, 3)};
  EXPECT_EQ(values(concat_rows(parts)), values(batch));
  EXPECT_THROW(slice_rows(batch, 3, 2), InvalidArgumentError);
  std::vector<Tensor> mismatched = {iota({1, 3}), iota({1, 2})};
  EXPECT_THROW(concat_rows(mismatched), InvalidArgumentError);
}

TEST(SliceRowsToDevices, EachRangeLandsOnItsDevice) {
  auto a = std::make_shared<Device>("/job:worker/replica:0/task:0/device:TPU:0", "TPU", 0, 0,
                                    std::array<int, 4>{0, 0, 0, 0}, 1 << 20);
  auto b = std::make_shared<Device>("/job:worker/replica:0/task:0/device:TPU:1", "TPU", 0, 1,
                                    std::array<int, 4>{0, 0, 0, 1}, 1 << 20);
  Tensor batch = iota({5, 2});
  std::vector<std::int64_t> begins = {3, 0, 5};
  std::vector<std::int64_t> counts = {2, 2, 0};
  std::vector<DevicePtr> devices = {a, b, a};
  std::vector<Tensor> parts = slice_rows_to_devices(batch, begins, counts, devices);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(values(parts[0]), (std::vector<std::int64_t>{6, 7, 8, 9}));
  EXPECT_EQ(values(parts[1]), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(parts[2].shape(), (Shape{0, 2}));
  EXPECT_EQ(parts[0].device(), a);
  EXPECT_EQ(parts[1].device(), b);
  EXPECT_EQ(a->memory_info().current, 4 * 8);
  std::vector<std::int64_t> bad_begins = {4, 0, 0};
  EXPECT_THROW(slice_rows_to_devices(batch, bad_begins, counts, devices), InvalidArgumentError);
  std::vector<DevicePtr> too_few = {a};
  EXPECT_THROW(slice_rows_to_devices(batch, begins, counts, too_few), InvalidArgumentError);
}

// Batch sizes cycle and cross input-batch boundaries: range(10).batch(4) rebatched to [3, 0, 2].
TEST(RowBuffer, RebatchesAcrossInputBatches) {
  RowBuffer buffer;
  EXPECT_FALSE(buffer.has_layout());
  buffer.push({iota({4}, 0)});
  buffer.push({iota({4}, 4)});
  EXPECT_EQ(buffer.rows_available(), 8);
  EXPECT_EQ(values(buffer.pop(3)[0]), (std::vector<std::int64_t>{0, 1, 2}));
  Tensor empty = buffer.pop(0)[0];
  EXPECT_EQ(empty.shape(), (Shape{0}));
  EXPECT_EQ(empty.dtype(), DType::kInt64);
  EXPECT_EQ(values(buffer.pop(2)[0]), (std::vector<std::int64_t>{3, 4}));
  buffer.push({iota({2}, 8)});
  EXPECT_EQ(values(buffer.pop(5)[0]), (std::vector<std::int64_t>{5, 6, 7, 8, 9}));
  EXPECT_EQ(buffer.rows_available(), 0);
  EXPECT_THROW(buffer.pop(1), InvalidArgumentError);
}

TEST(RowBuffer, ConcurrentPushAndPopLoseNoRows) {
  // The binding releases the GIL around push/pop: producers and a consumer may run at once.
  constexpr std::int64_t kRowsPerProducer = 20000;
  RowBuffer buffer;
  buffer.push({iota({0})});  // fixes the layout before the race
  auto produce = [&](std::int64_t start) {
    for (std::int64_t i = 0; i < kRowsPerProducer; ++i) buffer.push({iota({1}, start + i)});
  };
  std::thread first(produce, 0), second(produce, kRowsPerProducer);
  std::vector<std::int64_t> seen;
  while (static_cast<std::int64_t>(seen.size()) < 2 * kRowsPerProducer) {
    const std::int64_t available = buffer.rows_available();
    if (available == 0) continue;
    for (std::int64_t v : values(buffer.pop(available)[0])) seen.push_back(v);
  }
  first.join();
  second.join();
  std::sort(seen.begin(), seen.end());
  std::vector<std::int64_t> expected(static_cast<std::size_t>(2 * kRowsPerProducer));
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(buffer.rows_available(), 0);
}

TEST(RowBuffer, KeepsComponentsAlignedAndChecksLayout) {
  RowBuffer buffer;
  buffer.push({iota({2, 2}), Tensor::from_vector<float>({1.f, 2.f}, {2})});
  buffer.push({iota({1, 2}, 4), Tensor::from_vector<float>({3.f}, {1})});
  std::vector<Tensor> out = buffer.pop(3);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{1.f, 2.f, 3.f}));
  EXPECT_THROW(buffer.push({iota({2, 3}), Tensor::zeros(DType::kFloat32, {2})}), InvalidArgumentError);
  EXPECT_THROW(buffer.push({iota({2, 2})}), InvalidArgumentError);
  EXPECT_THROW(buffer.push({iota({2, 2}), Tensor::zeros(DType::kFloat32, {3})}), InvalidArgumentError);
  EXPECT_THROW(buffer.push({Tensor::scalar<std::int64_t>(1), Tensor::scalar<float>(1.f)}), InvalidArgumentError);
}

}  // namespace
}  // namespace tpustrategy::data
