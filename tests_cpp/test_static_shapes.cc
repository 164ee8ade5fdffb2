// TF's static shapes downstream of a tensor of unknown shape (autodiff/static_shapes.h): the table's scopes and
// a few shape functions, through the ops that call them. tests_py/test_crosscheck_map_function_ops.py compares
// many more with TF 2.21.
#include <gtest/gtest.h>

#include "tpustrategy/autodiff/recorded_ops.h"
#include "tpustrategy/autodiff/static_shapes.h"

namespace tpustrategy {
namespace {

using static_shapes::StaticShape;

// A scope whose table lives for the test.
class StaticShapes : public ::testing::Test {
 protected:
  void SetUp() override { static_shapes::push(); }
  void TearDown() override { static_shapes::pop(); }
  static Tensor unknown(const Shape& real) {
    Tensor t = Tensor::zeros(DType::kFloat32, real);
    static_shapes::set(t, StaticShape::unknown());
    return t;
  }
  static Tensor partial(const Shape& real, std::vector<std::int64_t> dims) {
    Tensor t = Tensor::zeros(DType::kFloat32, real);
    static_shapes::set(t, {true, std::move(dims)});
    return t;
  }
};

TEST_F(StaticShapes, ATensorWithoutAnEntryHasItsFullShape) {
  Tensor known = Tensor::zeros(DType::kFloat32, {2, 3});
  EXPECT_FALSE(static_shapes::get(op::unary(UnaryOp::kExp, known)).has_value());
}

TEST_F(StaticShapes, UnknownInUnknownOutButAFullReductionIsAScalar) {
  Tensor x = unknown({3});
  auto sum = static_shapes::get(op::binary(BinaryOp::kAdd, x, Tensor::zeros(DType::kFloat32, {})));
  ASSERT_TRUE(sum.has_value());
  EXPECT_FALSE(sum->rank_known);
  auto total = static_shapes::get(op::reduce(ReduceKind::kSum, x));
  ASSERT_TRUE(total.has_value());
  EXPECT_TRUE(total->rank_known && total->dims.empty());
}

TEST_F(StaticShapes, KnownSizesSurviveAndUnknownOnesStayUnknown) {
  Tensor x = partial({4, 2}, {-1, 2});
  EXPECT_EQ(static_shapes::get(op::reduce(ReduceKind::kMean, x, std::vector<std::int64_t>{0}))->dims,
            (std::vector<std::int64_t>{2}));
  EXPECT_EQ(static_shapes::get(op::reshape(x, {-1, 4}))->dims, (std::vector<std::int64_t>{-1, 4}));
  EXPECT_EQ(static_shapes::get(op::get_item(x, {IndexItem::range(1, 3)}))->dims, (std::vector<std::int64_t>{-1, 2}));
  EXPECT_EQ(static_shapes::get(op::get_item(x, {IndexItem::at(0)}))->dims, (std::vector<std::int64_t>{2}));
  EXPECT_FALSE(static_shapes::get(op::squeeze(x))->rank_known) << "the unknown size might be 1";
}

TEST_F(StaticShapes, ScopesNestAndPopRestoresTheOuterTable) {
  Tensor x = unknown({3});
  static_shapes::push();
  EXPECT_FALSE(static_shapes::get(x).has_value());
  static_shapes::pop();
  EXPECT_TRUE(static_shapes::get(x).has_value());
}

TEST(StaticShapesInactive, OpsRecordNothingOutsideAScope) {
  Tensor x = Tensor::zeros(DType::kFloat32, {3});
  static_shapes::set(x, StaticShape::unknown());
  EXPECT_FALSE(static_shapes::active());
  EXPECT_FALSE(static_shapes::get(x).has_value());
}

}  // namespace
}  // namespace tpustrategy
