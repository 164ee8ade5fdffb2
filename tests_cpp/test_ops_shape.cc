#include <gtest/gtest.h>

#include "ops_test_util.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/indexing.h"
#include "tpustrategy/ops/shape_ops.h"

namespace tpustrategy {
namespace {

using namespace tpustrategy::testing;
using V = std::vector<double>;
using I = IndexItem;

Tensor iota(Shape shape, DType dt = DType::kFloat32) {
  std::vector<double> v(static_cast<std::size_t>(num_elements(shape)));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  return typed(dt, v, shape);
}

TEST(Reshape, InfersOneDimAndSharesBuffer) {
  auto x = iota({2, 3});
  auto r = reshape(x, {3, -1});
  EXPECT_EQ(r.shape(), (Shape{3, 2}));
  EXPECT_EQ(r.buffer(), x.buffer());
  EXPECT_EQ(reshape(x, {-1}).shape(), (Shape{6}));
  EXPECT_EQ(reshape(iota({1}), {}).shape(), (Shape{}));
  EXPECT_THROW(reshape(x, {4, -1}), InvalidArgumentError);
  EXPECT_THROW(reshape(x, {-1, -1}), InvalidArgumentError);
  EXPECT_THROW(reshape(x, {5}), InvalidArgumentError);
  EXPECT_THROW(reshape(x, {-2, -3}), InvalidArgumentError);
  EXPECT_THROW(reshape(iota({0}), {0, -1}), InvalidArgumentError);
}

TEST(ExpandSqueeze, Axes) {
  auto x = iota({2, 3});
  EXPECT_EQ(expand_dims(x, 0).shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(expand_dims(x, -1).shape(), (Shape{2, 3, 1}));
  EXPECT_EQ(expand_dims(x, 2).shape(), (Shape{2, 3, 1}));
  EXPECT_THROW(expand_dims(x, 3), InvalidArgumentError);
  EXPECT_THROW(expand_dims(x, -4), InvalidArgumentError);
  auto y = iota({1, 2, 1, 3});
  EXPECT_EQ(squeeze(y).shape(), (Shape{2, 3}));
  EXPECT_EQ(squeeze(y, {2}).shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(squeeze(y, {-4}).shape(), (Shape{2, 1, 3}));
  EXPECT_THROW(squeeze(y, {1}), InvalidArgumentError);
  EXPECT_THROW(squeeze(y, {4}), InvalidArgumentError);
}

TEST(Transpose, PermutesAndValidates) {
  auto x = iota({2, 3});
  auto t = transpose(x);
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_EQ(values(t), (V{0, 3, 1, 4, 2, 5}));
  auto y = iota({2, 3, 4});
  auto p = transpose(y, {1, 2, 0});
  EXPECT_EQ(p.shape(), (Shape{3, 4, 2}));
  EXPECT_EQ(values(p)[1], 12);  // [0,0,1] = y[1,0,0]
  EXPECT_EQ(values(p)[2], 1);   // [0,1,0] = y[0,0,1]
  EXPECT_THROW(transpose(y, {0, 1}), InvalidArgumentError);
  EXPECT_THROW(transpose(y, {0, 1, 1}), InvalidArgumentError);
  EXPECT_THROW(transpose(y, {0, 1, 3}), InvalidArgumentError);
  EXPECT_EQ(transpose(iota({})).shape(), (Shape{}));
}

TEST(Concat, AlongAxes) {
  auto a = iota({2, 2});
  auto b = typed(DType::kFloat32, {10, 11, 12, 13, 14, 15}, {2, 3});
  auto c = concat({a, b}, 1);
  EXPECT_EQ(c.shape(), (Shape{2, 5}));
  EXPECT_EQ(values(c), (V{0, 1, 10, 11, 12, 2, 3, 13, 14, 15}));
  auto d = concat({a, a}, -2);
  EXPECT_EQ(values(d), (V{0, 1, 2, 3, 0, 1, 2, 3}));
  EXPECT_EQ(concat({iota({0, 2}), a}, 0).shape(), (Shape{2, 2}));
  EXPECT_THROW(concat({a, b}, 0), InvalidArgumentError);
  EXPECT_THROW(concat({a, iota({2, 2}, DType::kInt32)}, 0), InvalidArgumentError);
  EXPECT_THROW(concat({iota({}), iota({})}, 0), InvalidArgumentError);
  EXPECT_THROW(concat({}, 0), ValueError);
  EXPECT_THROW(concat({a, iota({4})}, 0), InvalidArgumentError);
}

TEST(Stack, AndUnstack) {
  auto a = iota({2});
  auto b = typed(DType::kFloat32, {5, 6}, {2});
  auto s = stack({a, b}, 0);
  EXPECT_EQ(s.shape(), (Shape{2, 2}));
  EXPECT_EQ(values(s), (V{0, 1, 5, 6}));
  auto s1 = stack({a, b}, 1);
  EXPECT_EQ(values(s1), (V{0, 5, 1, 6}));
  EXPECT_EQ(stack({a, b}, -1).shape(), (Shape{2, 2}));
  EXPECT_THROW(stack({a, iota({3})}, 0), InvalidArgumentError);
  EXPECT_THROW(stack({a, b}, 3), InvalidArgumentError);
  auto parts = unstack(s1, 1);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(values(parts[1]), (V{5, 6}));
}

TEST(Split, NumAndSizes) {
  auto x = iota({2, 6});
  auto parts = split(x, 3, 1);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1].shape(), (Shape{2, 2}));
  EXPECT_EQ(values(parts[1]), (V{2, 3, 8, 9}));
  auto sized = split_sizes(x, {1, -1, 2}, 1);
  EXPECT_EQ(sized[1].shape(), (Shape{2, 3}));
  EXPECT_EQ(values(sized[2]), (V{4, 5, 10, 11}));
  EXPECT_THROW(split(x, 4, 1), InvalidArgumentError);
  EXPECT_THROW(split(x, 0, 1), InvalidArgumentError);
  EXPECT_THROW(split_sizes(x, {1, 2}, 1), InvalidArgumentError);
  EXPECT_THROW(split_sizes(x, {-1, -1}, 1), InvalidArgumentError);
  EXPECT_THROW(split_sizes(x, {7, -1}, 1), InvalidArgumentError);
}

TEST(TileBroadcast, Values) {
  auto x = iota({2, 2});
  auto t = tile(x, {2, 3});
  EXPECT_EQ(t.shape(), (Shape{4, 6}));
  EXPECT_EQ(values(t)[0 * 6 + 2], 0);
  EXPECT_EQ(values(t)[3 * 6 + 5], 3);
  EXPECT_EQ(values(tile(iota({3}), {0})).size(), 0u);
  EXPECT_THROW(tile(x, {2}), InvalidArgumentError);
  EXPECT_THROW(tile(x, {2, -1}), InvalidArgumentError);
  auto b = broadcast_to(iota({3}), {2, 3});
  EXPECT_EQ(values(b), (V{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(broadcast_to(iota({1}), {0}).shape(), (Shape{0}));
  EXPECT_THROW(broadcast_to(iota({3}), {4}), InvalidArgumentError);
  EXPECT_THROW(broadcast_to(iota({2, 3}), {3}), InvalidArgumentError);
}

TEST(Slice, BeginSize) {
  auto x = iota({3, 4});
  auto s = slice(x, {1, 1}, {2, -1});
  EXPECT_EQ(s.shape(), (Shape{2, 3}));
  EXPECT_EQ(values(s), (V{5, 6, 7, 9, 10, 11}));
  EXPECT_THROW(slice(x, {2, 0}, {2, 1}), InvalidArgumentError);
  EXPECT_THROW(slice(x, {0}, {1}), InvalidArgumentError);
}

TEST(Gather, Axis0And1) {
  auto x = iota({3, 2});
  auto g = gather(x, i32({2, 0, 2}, {3}), 0);
  EXPECT_EQ(g.shape(), (Shape{3, 2}));
  EXPECT_EQ(values(g), (V{4, 5, 0, 1, 4, 5}));
  EXPECT_EQ(values(gather(x, i64({1}, {1}), 1)), (V{1, 3, 5}));
  EXPECT_THROW(gather(x, i32({3}, {1}), 0), InvalidArgumentError);
  EXPECT_THROW(gather(x, f32({0}, {1}), 0), TypeError);
}

TEST(GetItem, IntsSlicesEllipsisNewAxis) {
  auto x = iota({3, 4});
  EXPECT_EQ(values(get_item(x, {I::at(1)})), (V{4, 5, 6, 7}));
  EXPECT_EQ(get_item(x, {I::at(-1), I::at(-1)}).shape(), (Shape{}));
  EXPECT_EQ(values(get_item(x, {I::at(-1), I::at(-1)})), (V{11}));
  EXPECT_EQ(values(get_item(x, {I::all(), I::at(2)})), (V{2, 6, 10}));
  EXPECT_EQ(values(get_item(x, {I::ellipsis(), I::at(0)})), (V{0, 4, 8}));
  EXPECT_EQ(values(get_item(x, {I::at(0), I::range(std::nullopt, std::nullopt, -1)})), (V{3, 2, 1, 0}));
  EXPECT_EQ(values(get_item(x, {I::at(0), I::range(-1, 0, -2)})), (V{3, 1}));
  EXPECT_EQ(values(get_item(x, {I::at(1), I::range(1, 100)})), (V{5, 6, 7}));
  EXPECT_EQ(values(get_item(x, {I::at(1), I::range(-100, 2)})), (V{4, 5}));
  EXPECT_EQ(get_item(x, {I::at(1), I::range(3, 1)}).shape(), (Shape{0}));
  EXPECT_EQ(get_item(x, {I::new_axis(), I::all(), I::new_axis()}).shape(), (Shape{1, 3, 1, 4}));
  EXPECT_EQ(get_item(x, {I::ellipsis(), I::new_axis()}).shape(), (Shape{3, 4, 1}));
  EXPECT_EQ(values(get_item(x, {I::range(std::nullopt, std::nullopt, 2), I::range(1, std::nullopt, 2)})),
            (V{1, 3, 9, 11}));
  EXPECT_EQ(
      values(get_item(x, {I::at(0), I::range(std::nullopt, std::nullopt, std::numeric_limits<std::int64_t>::min())})),
      (V{3}));
  EXPECT_THROW(get_item(x, {I::at(3)}), InvalidArgumentError);
  EXPECT_THROW(get_item(x, {I::at(0), I::at(-5)}), InvalidArgumentError);
  EXPECT_THROW(get_item(x, {I::at(0), I::at(0), I::at(0)}), InvalidArgumentError);
  EXPECT_THROW(get_item(x, {I::ellipsis(), I::ellipsis()}), InvalidArgumentError);
  EXPECT_THROW(get_item(x, {I::range(0, 1, 0)}), InvalidArgumentError);
  EXPECT_THROW(get_item(iota({}), {I::at(0)}), InvalidArgumentError);
}

TEST(LargeSizes, TransposeAndConcatOnPool) {
  auto x = iota({512, 1024}, DType::kInt32);
  auto t = transpose(x);
  auto v = t.to_vector<std::int64_t>();
  for (std::int64_t i = 0; i < 1024; i += 7) {
    for (std::int64_t j = 0; j < 512; j += 13) ASSERT_EQ(v[i * 512 + j], j * 1024 + i);
  }
  auto c = concat({x, x}, 1);
  auto cv = c.to_vector<std::int64_t>();
  ASSERT_EQ(cv[2048 * 511 + 1024 + 5], 511 * 1024 + 5);
}

}  // namespace
}  // namespace tpustrategy
