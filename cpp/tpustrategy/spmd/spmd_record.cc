#include "tpustrategy/spmd/spmd_record.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace tpustrategy::spmd {

namespace {

std::string shape_text(DType dtype, const Shape& shape) {
  std::string type = std::string(dtype_name(dtype));
  if (type == "float32")
    type = "f32";
  else if (type == "float64")
    type = "f64";
  else if (type == "int32")
    type = "s32";
  else if (type == "int64")
    type = "s64";
  else if (type == "bfloat16")
    type = "bf16";
  else if (type == "float16")
    type = "f16";
  else if (type == "bool")
    type = "pred";
  return fmt::format("{}[{}]", type, fmt::join(shape, ","));
}

// The shapes per core, collapsed to one when every holder has the same.
std::string shapes_text(const SpmdEntry& e) {
  std::vector<std::string> distinct;
  for (std::size_t k = 0; k < e.shard_shapes.size(); ++k) {
    if (!e.holds[k]) continue;
    auto text = shape_text(e.dtype, e.shard_shapes[k]);
    if (std::find(distinct.begin(), distinct.end(), text) == distinct.end()) distinct.push_back(text);
  }
  if (distinct.empty()) return "()";
  if (distinct.size() == 1) return distinct[0];
  return fmt::format("({})", fmt::join(distinct, " | "));
}

std::string groups_text(const std::vector<std::vector<int>>& groups) {
  std::vector<std::string> parts;
  parts.reserve(groups.size());
  for (const auto& g : groups) parts.push_back(fmt::format("{{{}}}", fmt::join(g, ",")));
  return fmt::format("{{{}}}", fmt::join(parts, ","));
}

}  // namespace

std::vector<const SpmdEntry*> SpmdRecord::collectives() const {
  std::vector<const SpmdEntry*> out;
  for (const auto& e : entries)
    if (e.kind == SpmdEntryKind::kCollective) out.push_back(&e);
  return out;
}

std::int64_t SpmdRecord::total_flops(int core) const {
  std::int64_t total = 0;
  for (const auto& e : entries)
    if (e.kind == SpmdEntryKind::kOp && core < static_cast<int>(e.flops.size())) total += e.flops[core];
  return total;
}

std::int64_t SpmdRecord::collective_bytes(int core) const {
  std::int64_t total = 0;
  for (const auto& e : entries)
    if (e.kind == SpmdEntryKind::kCollective && core < static_cast<int>(e.bytes.size())) total += e.bytes[core];
  return total;
}

std::string SpmdRecord::to_text() const {
  std::string out = fmt::format("SPMD step: {} logical cores, {} entries ({} collectives)\n", num_cores, entries.size(),
                                collectives().size());
  int index = 0;
  for (const auto& e : entries) {
    if (e.kind == SpmdEntryKind::kNote) {
      out += fmt::format("  // NOTE: {}\n", e.rule);
      continue;
    }
    std::string attrs;
    if (e.kind == SpmdEntryKind::kCollective) {
      if (!e.pairs.empty()) {
        std::vector<std::string> pairs;
        for (auto [s, t] : e.pairs) pairs.push_back(fmt::format("{{{},{}}}", s, t));
        attrs += fmt::format(", source_target_pairs={{{}}}", fmt::join(pairs, ","));
      } else {
        attrs += ", replica_groups=" + groups_text(e.groups);
      }
      if (e.dimension >= 0) attrs += fmt::format(", dimensions={{{}}}", e.dimension);
      if (!e.reduction.empty()) attrs += ", to_apply=" + e.reduction;
      std::int64_t bytes = 0;
      for (auto b : e.bytes) bytes = std::max(bytes, b);
      out += fmt::format("  %{} = {} {}({}){}  // {}; {} B/core; {}\n", index, shapes_text(e), e.name,
                         shape_text(e.dtype, e.operand_shape), attrs, e.rule, bytes, e.sharding);
    } else {
      std::int64_t flops = 0;
      for (auto f : e.flops) flops = std::max(flops, f);
      out += fmt::format("  %{} = {} {}(), sharding={}  // {}; {} flop/core\n", index, shapes_text(e), e.name,
                         e.sharding, e.rule, flops);
    }
    ++index;
  }
  return out;
}

}  // namespace tpustrategy::spmd
