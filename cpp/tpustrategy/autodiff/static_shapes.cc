#include "tpustrategy/autodiff/static_shapes.h"

#include <algorithm>
#include <memory>
#include <unordered_map>

namespace tpustrategy::static_shapes {

namespace {

using Table = std::unordered_map<std::uint64_t, StaticShape>;

// The innermost table last; empty = inactive.
std::vector<std::unique_ptr<Table>>& tables() {
  thread_local std::vector<std::unique_ptr<Table>> stack;
  return stack;
}

Table* table() {
  auto& stack = tables();
  return stack.empty() ? nullptr : stack.back().get();
}

StaticShape static_of(const Tensor& t) {
  auto entry = get(t);
  return entry ? *std::move(entry) : StaticShape::of(t.shape());
}

bool any_entry(std::initializer_list<const Tensor*> inputs) {
  return std::any_of(inputs.begin(), inputs.end(), [](const Tensor* t) { return get(*t).has_value(); });
}

bool any_entry(std::span<const Tensor> inputs) {
  return std::any_of(inputs.begin(), inputs.end(), [](const Tensor& t) { return get(t).has_value(); });
}

std::int64_t normalized(std::int64_t axis, std::size_t rank) {
  return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis;
}

// TF's broadcast of two dimensions (BroadcastBinaryOpOutputShapeFnHelper): a known size > 1 wins, 1 yields to the
// other, two unknowns stay unknown.
std::int64_t broadcast_dim(std::int64_t x, std::int64_t y) {
  if (x > 1) return x;
  if (y > 1) return y;
  if (x == 1) return y;
  if (y == 1) return x;
  return x == y ? x : -1;
}

// Two shapes of the same tensor: a size known in either is known.
std::int64_t merged_dim(std::int64_t x, std::int64_t y) { return x >= 0 ? x : y; }

StaticShape without_axis(const StaticShape& s, std::int64_t axis) {
  StaticShape out = s;
  out.dims.erase(out.dims.begin() + normalized(axis, s.dims.size()));
  return out;
}

StaticShape all_sizes_unknown(const Tensor& out) { return {true, std::vector<std::int64_t>(out.shape().size(), -1)}; }

// `x`'s static shape with each known size d of axis i made resize(i, d) (Pad, Tile); an unknown rank gives the
// output's rank with every size unknown.
template <typename Resize>
void resize_known(const Tensor& x, const Tensor& out, Resize&& resize) {
  if (!get(x)) return;
  StaticShape s = static_of(x);
  if (!s.rank_known) return set(out, all_sizes_unknown(out));
  for (std::size_t i = 0; i < s.dims.size(); ++i)
    if (s.dims[i] >= 0) s.dims[i] = resize(i, s.dims[i]);
  set(out, std::move(s));
}

}  // namespace

bool StaticShape::fully_known() const {
  return rank_known && std::none_of(dims.begin(), dims.end(), [](std::int64_t d) { return d < 0; });
}

void push() { tables().push_back(std::make_unique<Table>()); }
void pop() {
  if (!tables().empty()) tables().pop_back();
}
bool active() { return !tables().empty(); }

void set(const Tensor& t, StaticShape shape) {
  if (Table* entries = table()) (*entries)[t.id()] = std::move(shape);
}

std::optional<StaticShape> get(const Tensor& t) {
  Table* entries = table();
  if (entries == nullptr) return std::nullopt;
  auto it = entries->find(t.id());
  if (it == entries->end()) return std::nullopt;
  return it->second;
}

void same_as(const Tensor& x, const Tensor& out) {
  if (auto entry = get(x)) set(out, *std::move(entry));
}

void broadcast(std::initializer_list<const Tensor*> inputs, const Tensor& out) {
  if (!any_entry(inputs)) return;
  std::vector<StaticShape> shapes;
  std::size_t rank = 0;
  for (const Tensor* t : inputs) {
    shapes.push_back(static_of(*t));
    if (!shapes.back().rank_known) return set(out, StaticShape::unknown());
    rank = std::max(rank, shapes.back().dims.size());
  }
  std::vector<std::int64_t> dims(rank, 1);
  for (const auto& s : shapes) {
    const std::size_t offset = rank - s.dims.size();
    for (std::size_t i = 0; i < s.dims.size(); ++i) dims[offset + i] = broadcast_dim(dims[offset + i], s.dims[i]);
  }
  set(out, {true, std::move(dims)});
}

void reduce(const Tensor& x, const std::optional<std::vector<std::int64_t>>& axes, bool keepdims, const Tensor& out) {
  if (!get(x)) return;
  const StaticShape s = static_of(x);
  if (!axes) {  // every axis: a scalar whatever the rank
    if (!keepdims) return set(out, StaticShape::of({}));
    if (!s.rank_known) return set(out, StaticShape::unknown());
    return set(out, {true, std::vector<std::int64_t>(s.dims.size(), 1)});
  }
  if (!s.rank_known) return set(out, StaticShape::unknown());
  std::vector<bool> reduced(s.dims.size(), false);
  for (std::int64_t a : *axes) reduced[static_cast<std::size_t>(normalized(a, s.dims.size()))] = true;
  StaticShape result{true, {}};
  for (std::size_t i = 0; i < s.dims.size(); ++i) {
    if (!reduced[i]) {
      result.dims.push_back(s.dims[i]);
    } else if (keepdims) {
      result.dims.push_back(1);
    }
  }
  set(out, std::move(result));
}

void arg_reduce(const Tensor& x, std::int64_t axis, const Tensor& out) {
  if (!get(x)) return;
  const StaticShape s = static_of(x);
  set(out, s.rank_known ? without_axis(s, axis) : StaticShape::unknown());
}

void matmul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b, const Tensor& out) {
  if (!any_entry({&a, &b})) return;
  const StaticShape sa = static_of(a), sb = static_of(b);
  if (!sa.rank_known || !sb.rank_known || sa.dims.size() < 2 || sb.dims.size() < 2)
    return set(out, StaticShape::unknown());
  const std::size_t batch_a = sa.dims.size() - 2, batch_b = sb.dims.size() - 2, batch = std::max(batch_a, batch_b);
  std::vector<std::int64_t> dims(batch, 1);
  for (std::size_t i = 0; i < batch_a; ++i) dims[batch - batch_a + i] = sa.dims[i];
  for (std::size_t i = 0; i < batch_b; ++i)
    dims[batch - batch_b + i] = broadcast_dim(dims[batch - batch_b + i], sb.dims[i]);
  dims.push_back(sa.dims[batch_a + (transpose_a ? 1 : 0)]);
  dims.push_back(sb.dims[batch_b + (transpose_b ? 0 : 1)]);
  set(out, {true, std::move(dims)});
}

void reshape(const Tensor& x, const std::vector<std::int64_t>& requested, const Tensor& out) {
  if (!get(x) || out.id() == x.id()) return;
  const bool inferred = std::find(requested.begin(), requested.end(), -1) != requested.end();
  // -1 is inferred only from a fully known input; every other size is the requested one.
  set(out, inferred && static_of(x).fully_known() ? StaticShape::of(out.shape()) : StaticShape{true, requested});
}

void expand_dims(const Tensor& x, std::int64_t axis, const Tensor& out) {
  if (!get(x)) return;
  StaticShape s = static_of(x);
  if (s.rank_known) s.dims.insert(s.dims.begin() + normalized(axis, s.dims.size() + 1), 1);
  set(out, std::move(s));
}

void squeeze(const Tensor& x, const std::vector<std::int64_t>& axes, const Tensor& out) {
  if (!get(x)) return;
  const StaticShape s = static_of(x);
  if (!s.rank_known) return set(out, StaticShape::unknown());
  if (axes.empty())  // an unknown size might be 1: TF cannot tell the rank
    return set(out, s.fully_known() ? StaticShape::of(out.shape()) : StaticShape::unknown());
  std::vector<bool> removed(s.dims.size(), false);
  for (std::int64_t a : axes) removed[static_cast<std::size_t>(normalized(a, s.dims.size()))] = true;
  StaticShape result{true, {}};
  for (std::size_t i = 0; i < s.dims.size(); ++i)
    if (!removed[i]) result.dims.push_back(s.dims[i]);
  set(out, std::move(result));
}

void transpose(const Tensor& x, const std::vector<std::int64_t>& perm, const Tensor& out) {
  if (!get(x)) return;
  const StaticShape s = static_of(x);
  if (!s.rank_known) return set(out, StaticShape::unknown());
  StaticShape result{true, std::vector<std::int64_t>(s.dims.rbegin(), s.dims.rend())};
  if (!perm.empty())
    for (std::size_t i = 0; i < perm.size(); ++i)
      result.dims[i] = s.dims[static_cast<std::size_t>(normalized(perm[i], s.dims.size()))];
  set(out, std::move(result));
}

void concat(std::span<const Tensor> values, std::int64_t axis, const Tensor& out) {
  if (!any_entry(values)) return;
  const std::size_t rank = out.shape().size();
  const auto at = static_cast<std::size_t>(normalized(axis, rank));
  std::vector<std::int64_t> dims(rank, -1);
  std::int64_t total = 0;
  bool all_known = true;
  for (const Tensor& v : values) {
    const StaticShape s = static_of(v);
    if (!s.rank_known) {
      all_known = false;
      continue;
    }
    for (std::size_t i = 0; i < rank; ++i)
      if (i != at) dims[i] = merged_dim(dims[i], s.dims[i]);
    all_known = all_known && s.dims[at] >= 0;
    total += s.dims[at];
  }
  dims[at] = all_known ? total : -1;
  const bool some_rank =
      std::any_of(values.begin(), values.end(), [](const Tensor& v) { return static_of(v).rank_known; });
  set(out, some_rank ? StaticShape{true, std::move(dims)} : StaticShape::unknown());
}

void stack(std::span<const Tensor> values, std::int64_t axis, const Tensor& out) {
  if (!any_entry(values)) return;
  std::optional<StaticShape> merged;
  for (const Tensor& v : values) {
    const StaticShape s = static_of(v);
    if (!s.rank_known) continue;
    if (!merged) {
      merged = s;
    } else {
      for (std::size_t i = 0; i < s.dims.size(); ++i) merged->dims[i] = merged_dim(merged->dims[i], s.dims[i]);
    }
  }
  if (!merged) return set(out, StaticShape::unknown());
  merged->dims.insert(merged->dims.begin() + normalized(axis, merged->dims.size() + 1),
                      static_cast<std::int64_t>(values.size()));
  set(out, *std::move(merged));
}

void split(const Tensor& x, std::int64_t axis, bool keep_axis, std::span<const Tensor> outs) {
  if (!get(x)) return;
  const StaticShape s = static_of(x);
  for (const Tensor& out : outs) {
    if (!s.rank_known) {
      set(out, StaticShape::unknown());
    } else if (!keep_axis) {
      set(out, without_axis(s, axis));
    } else {
      StaticShape part = s;
      const auto at = static_cast<std::size_t>(normalized(axis, s.dims.size()));
      if (part.dims[at] >= 0) part.dims[at] = out.shape()[at];
      set(out, std::move(part));
    }
  }
}

void pad(const Tensor& x, const std::vector<std::int64_t>& paddings, const Tensor& out) {
  resize_known(x, out, [&](std::size_t i, std::int64_t d) { return d + paddings[2 * i] + paddings[2 * i + 1]; });
}

void gather(const Tensor& x, const Tensor& indices, std::int64_t axis, const Tensor& out) {
  if (!any_entry({&x, &indices})) return;
  const StaticShape sx = static_of(x), si = static_of(indices);
  if (!sx.rank_known || !si.rank_known) return set(out, StaticShape::unknown());
  const auto at = static_cast<std::size_t>(normalized(axis, sx.dims.size()));
  StaticShape result{true, {sx.dims.begin(), sx.dims.begin() + static_cast<std::ptrdiff_t>(at)}};
  result.dims.insert(result.dims.end(), si.dims.begin(), si.dims.end());
  result.dims.insert(result.dims.end(), sx.dims.begin() + static_cast<std::ptrdiff_t>(at) + 1, sx.dims.end());
  set(out, std::move(result));
}

void get_item(const Tensor& x, const std::vector<IndexItem>& items, const Tensor& out) {
  if (!get(x)) return;
  const StaticShape s = static_of(x);
  if (!s.rank_known) return set(out, StaticShape::unknown());
  // A result size that depends on an unknown input size is unknown (TF's StridedSlice shape function): plan the
  // slice with each unknown size as 1 and as a large size, and keep the sizes both plans agree on.
  constexpr std::int64_t kLarge = (std::int64_t{1} << 20) + 7;
  Shape small = s.dims, large = s.dims;
  for (std::size_t i = 0; i < s.dims.size(); ++i)
    if (s.dims[i] < 0) small[i] = 1, large[i] = kLarge;
  try {
    const Shape a = plan_get_item(small, items).out_shape, b = plan_get_item(large, items).out_shape;
    StaticShape result{true, a};
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) result.dims[i] = -1;
    set(out, std::move(result));
  } catch (const std::exception&) {  // an index valid only for the real size: the rank is all that is known
    set(out, all_sizes_unknown(out));
  }
}

void where_indices(const Tensor& condition, const Tensor& out) {
  const StaticShape s = static_of(condition);  // the count of true values is never static
  set(out, {true, {-1, s.rank_known ? static_cast<std::int64_t>(s.dims.size()) : -1}});
}

void one_hot(const Tensor& indices, std::int64_t depth, std::int64_t axis, const Tensor& out) {
  if (!get(indices)) return;
  StaticShape s = static_of(indices);
  if (s.rank_known) s.dims.insert(axis < 0 ? s.dims.end() : s.dims.begin() + axis, depth);
  set(out, std::move(s));
}

void tile(const Tensor& x, const std::vector<std::int64_t>& multiples, const Tensor& out) {
  resize_known(x, out, [&](std::size_t i, std::int64_t d) { return d * multiples[i]; });
}

void slice(const Tensor& x, const std::vector<std::int64_t>& begin, const std::vector<std::int64_t>& size,
           const Tensor& out) {
  if (!get(x)) return;
  const StaticShape s = static_of(x);
  StaticShape result{true, size};
  for (std::size_t i = 0; i < size.size(); ++i)
    if (size[i] < 0) result.dims[i] = s.rank_known && s.dims[i] >= 0 ? s.dims[i] - begin[i] : -1;
  set(out, std::move(result));
}

void segment_sum(const Tensor& data, const Tensor& segment_ids, const Tensor& out) {
  if (!any_entry({&data, &segment_ids})) return;
  const StaticShape sd = static_of(data), si = static_of(segment_ids);
  if (!sd.rank_known || !si.rank_known) return set(out, StaticShape::unknown());
  StaticShape result{true, {out.shape().front()}};  // num_segments, an argument
  result.dims.insert(result.dims.end(), sd.dims.begin() + static_cast<std::ptrdiff_t>(si.dims.size()), sd.dims.end());
  set(out, std::move(result));
}

void sizes_unknown(std::initializer_list<const Tensor*> inputs, const Tensor& out) {
  if (any_entry(inputs)) set(out, all_sizes_unknown(out));
}

}  // namespace tpustrategy::static_shapes
