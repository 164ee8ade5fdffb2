#pragma once
// The static shapes TF's shape inference would give tensors of a traced Dataset function, kept while a
// function's element_spec is found (Python: framework/static_shape.py). Every tensor here has its full shape,
// which is also TF's static shape, except downstream of an op TF cannot see into (tf.py_function): its output
// gets an unknown shape (or the one set_shape states), and each op of the public op set (recorded_ops.h) that
// reads such a tensor gives its output the shape TF's shape function for that op gives. A tensor without an
// entry has its full shape. One table per thread, nested scopes (the inner one wins); with no scope the ops
// pay one thread-local load.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <vector>

#include "tpustrategy/core/tensor.h"
#include "tpustrategy/ops/indexing.h"

namespace tpustrategy::static_shapes {

// A static shape: rank unknown, or dims where -1 is an unknown size.
struct StaticShape {
  bool rank_known = false;
  std::vector<std::int64_t> dims;

  static StaticShape unknown() { return {}; }
  static StaticShape of(const Shape& shape) { return {true, shape}; }
  bool fully_known() const;
};

// A new empty table for this thread until the matching pop (nests).
void push();
void pop();
// Whether a table is active on this thread.
bool active();

void set(const Tensor& t, StaticShape shape);
// The entry of `t`, nullopt when it has none (its full shape is its static shape).
std::optional<StaticShape> get(const Tensor& t);

// Shape functions, called by the ops after their kernel when active(); each sets an entry for the output only
// when some input has one (where_indices: always, its size depends on values). Named after TF's op types.
void same_as(const Tensor& x, const Tensor& out);  // elementwise unary ops, Cast, Identity, Softmax, *Like
void broadcast(std::initializer_list<const Tensor*> inputs, const Tensor& out);  // binary ops, SelectV2
void reduce(const Tensor& x, const std::optional<std::vector<std::int64_t>>& axes, bool keepdims, const Tensor& out);
void arg_reduce(const Tensor& x, std::int64_t axis, const Tensor& out);
void matmul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b, const Tensor& out);
void reshape(const Tensor& x, const std::vector<std::int64_t>& requested, const Tensor& out);
void expand_dims(const Tensor& x, std::int64_t axis, const Tensor& out);
void squeeze(const Tensor& x, const std::vector<std::int64_t>& axes, const Tensor& out);
void transpose(const Tensor& x, const std::vector<std::int64_t>& perm, const Tensor& out);
void concat(std::span<const Tensor> values, std::int64_t axis, const Tensor& out);
void stack(std::span<const Tensor> values, std::int64_t axis, const Tensor& out);
void split(const Tensor& x, std::int64_t axis, bool keep_axis, std::span<const Tensor> outs);  // Unpack, Split*
void pad(const Tensor& x, const std::vector<std::int64_t>& paddings, const Tensor& out);
void gather(const Tensor& x, const Tensor& indices, std::int64_t axis, const Tensor& out);
void get_item(const Tensor& x, const std::vector<IndexItem>& items, const Tensor& out);
void where_indices(const Tensor& condition, const Tensor& out);  // always: [unknown, rank]
void one_hot(const Tensor& indices, std::int64_t depth, std::int64_t axis, const Tensor& out);
void tile(const Tensor& x, const std::vector<std::int64_t>& multiples, const Tensor& out);
void slice(const Tensor& x, const std::vector<std::int64_t>& begin, const std::vector<std::int64_t>& size,
           const Tensor& out);
void segment_sum(const Tensor& data, const Tensor& segment_ids, const Tensor& out);
// An op whose output sizes follow its input's values (Range): the output's rank as it is, every size unknown.
void sizes_unknown(std::initializer_list<const Tensor*> inputs, const Tensor& out);

}  // namespace tpustrategy::static_shapes
