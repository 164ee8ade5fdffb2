#pragma once
// The reductions a cross-replica collective can apply (tf.distribute.ReduceOp plus the
// element-wise MAX / MIN / PROD that XLA all-reduce and TF collectives also offer).
#include <cstdint>
#include <string>
#include <string_view>

#include "tpustrategy/core/errors.h"

namespace tpustrategy {

enum class CollectiveOp : std::uint8_t { kSum, kMean, kMax, kMin, kProd };

inline constexpr CollectiveOp kAllCollectiveOps[] = {CollectiveOp::kSum, CollectiveOp::kMean, CollectiveOp::kMax,
                                                     CollectiveOp::kMin, CollectiveOp::kProd};

// TF's spelling: "SUM", "MEAN", "MAX", "MIN", "PROD".
constexpr std::string_view collective_op_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kSum:
      return "SUM";
    case CollectiveOp::kMean:
      return "MEAN";
    case CollectiveOp::kMax:
      return "MAX";
    case CollectiveOp::kMin:
      return "MIN";
    case CollectiveOp::kProd:
      return "PROD";
  }
  return "UNKNOWN";
}

// Parses "SUM" / "sum" / "MEAN" / ...; throws ValueError naming the accepted spellings.
inline CollectiveOp collective_op_from_name(std::string_view name) {
  std::string upper(name);
  for (char& c : upper) c = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  for (CollectiveOp op : kAllCollectiveOps) {
    if (collective_op_name(op) == upper) return op;
  }
  fail<ValueError>("collective_op_from_name", "unknown reduce op '{}'; expected SUM, MEAN, MAX, MIN or PROD",
                   std::string(name));
}

}  // namespace tpustrategy
