#include "tpustrategy/core/dtype.h"

#include <string>

#include "tpustrategy/core/errors.h"

namespace tpustrategy {

std::size_t dtype_size(DType dtype) {
  return dispatch_dtype(dtype, [](auto v) { return sizeof(v); });
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return "bool";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
    case DType::kFloat16:
      return "float16";
    case DType::kBFloat16:
      return "bfloat16";
    case DType::kFloat32:
      return "float32";
    case DType::kFloat64:
      return "float64";
  }
  return "unknown";
}

DType dtype_from_name(std::string_view name) {
  for (DType d : kAllDTypes) {
    if (dtype_name(d) == name) return d;
  }
  if (name == "float" || name == "single") return DType::kFloat32;
  if (name == "double") return DType::kFloat64;
  if (name == "half") return DType::kFloat16;
  if (name == "int") return DType::kInt32;
  if (name == "long") return DType::kInt64;
  fail<TypeError>("dtype",
                  "unsupported dtype '{}'; supported: bool, int32, int64, float16, bfloat16, float32, "
                  "float64",
                  std::string(name));
}

bool is_floating(DType dtype) {
  return dtype == DType::kFloat16 || dtype == DType::kBFloat16 || dtype == DType::kFloat32 || dtype == DType::kFloat64;
}

bool is_integer(DType dtype) { return dtype == DType::kInt32 || dtype == DType::kInt64; }

}  // namespace tpustrategy
