#include "tpustrategy/sim/step_record.h"

#include <algorithm>
#include <utility>

#include "tpustrategy/core/errors.h"

namespace tpustrategy::sim {
namespace {

double shape_bytes(const Shape& shape, DType dtype) {
  return static_cast<double>(num_elements(shape)) * static_cast<double>(dtype_size(dtype));
}

bool is_matmul(std::string_view name) { return name == "BatchMatMulV2" || name == "MatMul"; }

bool is_shape_only(std::string_view name) {
  return name == "Reshape" || name == "ExpandDims" || name == "Squeeze" || name == "Identity";
}

}  // namespace

StepEvent op_event(CoreSlot slot, std::string_view name, std::vector<Shape> inputs, std::vector<Shape> outputs,
                   DType dtype) {
  StepEvent e;
  e.slot = slot;
  e.name = std::string(name);
  e.dtype = dtype;
  double out_elements = 0;
  for (const Shape& s : outputs) out_elements += static_cast<double>(num_elements(s));
  if (is_matmul(name) && !inputs.empty() && inputs.front().size() >= 2 && !outputs.empty() &&
      outputs.front().size() >= 2) {
    // a is [..., m, k] or [..., k, m] (transposed): k = the sum of its last two dims minus the output's m.
    const Shape& a = inputs.front();
    const std::int64_t m = outputs.front()[outputs.front().size() - 2];
    const std::int64_t k = a[a.size() - 1] + a[a.size() - 2] - m;
    e.unit = OpUnit::kMxu;
    e.flops = 2.0 * out_elements * static_cast<double>(std::max<std::int64_t>(k, 0));
  } else {
    e.flops = out_elements;
  }
  if (!is_shape_only(name)) {
    // Inputs are read in the op's dtype where the record has no other (a cast reads its source: close enough).
    for (const Shape& s : inputs) e.bytes += shape_bytes(s, dtype);
    for (const Shape& s : outputs) e.bytes += shape_bytes(s, dtype);
  }
  e.input_shapes = std::move(inputs);
  e.output_shapes = std::move(outputs);
  return e;
}

double collective_bytes(CollectiveKind kind, DType dtype, std::int64_t count, int group_size) {
  const double per_member = static_cast<double>(count) * static_cast<double>(dtype_size(dtype));
  return kind == CollectiveKind::kAllGather ? per_member * group_size : per_member;
}

int StepRecord::num_replicas() const {
  int n = 0;
  for (const StepEvent& e : events) {
    n = std::max(n, e.slot.replica + 1);
    for (const CoreSlot& s : e.group) n = std::max(n, s.replica + 1);
  }
  return n;
}

int StepRecord::logical_cores_per_replica() const {
  int n = events.empty() ? 0 : 1;
  for (const StepEvent& e : events) {
    n = std::max(n, e.slot.logical_core + 1);
    for (const CoreSlot& s : e.group) n = std::max(n, s.logical_core + 1);
  }
  return n;
}

void StepRecord::add_op(CoreSlot slot, std::string_view name, std::vector<Shape> inputs, std::vector<Shape> outputs,
                        DType dtype) {
  if (slot.replica < -1 || slot.logical_core < 0)
    fail<ValueError>("StepRecord::add_op", "bad core slot (replica {}, logical core {}) for op '{}'", slot.replica,
                     slot.logical_core, name);
  events.push_back(op_event(slot, name, std::move(inputs), std::move(outputs), dtype));
}

void StepRecord::add_collective(CollectiveKind kind, std::vector<CoreSlot> group, DType dtype, std::int64_t count,
                                CoreSlot reporter) {
  constexpr const char* kWhere = "StepRecord::add_collective";
  if (group.empty()) fail<ValueError>(kWhere, "{} has an empty group", name_of(kind));
  if (count < 0) fail<ValueError>(kWhere, "{} has a negative element count {}", name_of(kind), count);
  for (const CoreSlot& s : group) {
    if (s.replica < 0 || s.logical_core < 0)
      fail<ValueError>(kWhere, "bad member (replica {}, logical core {}) of {}", s.replica, s.logical_core,
                       name_of(kind));
  }
  StepEvent e;
  e.collective = true;
  e.slot = reporter;
  e.name = name_of(kind);
  e.dtype = dtype;
  e.kind = kind;
  e.count = count;
  e.bytes = collective_bytes(kind, dtype, count, static_cast<int>(group.size()));
  e.group = std::move(group);
  events.push_back(std::move(e));
}

}  // namespace tpustrategy::sim
