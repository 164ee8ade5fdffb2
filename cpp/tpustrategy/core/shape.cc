#include "tpustrategy/core/shape.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tpustrategy/core/errors.h"

namespace tpustrategy {

std::int64_t num_elements(const Shape& shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::string shape_to_string(const Shape& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

std::vector<std::int64_t> row_major_strides(const Shape& shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) {
    // A zero dimension makes num_elements 0 but not the strides left of it: [0, 2^40, 2^40] has stride 2^80.
    if (__builtin_mul_overflow(strides[i + 1], shape[i + 1], &strides[i])) {
      fail<ValueError>("row_major_strides", "strides of shape {} overflow int64", shape_to_string(shape));
    }
  }
  return strides;
}

void check_shape(const Shape& shape, const char* where) {
  constexpr std::int64_t kMaxElements = std::int64_t{1} << 48;
  // Innermost dimension first: the running product is then each stride (and finally num_elements), so a zero
  // dimension only forgives the dimensions left of it, whose strides it zeroes too.
  std::int64_t n = 1;
  for (auto it = shape.rbegin(); it != shape.rend(); ++it) {
    const std::int64_t d = *it;
    if (d < 0) fail<ValueError>(where, "dimensions must be non-negative, got shape {}", shape_to_string(shape));
    if (d != 0 && n > kMaxElements / d) fail<ValueError>(where, "shape {} is too large", shape_to_string(shape));
    n *= d;
  }
}

int normalize_axis(std::int64_t axis, int rank, const char* where) {
  if (axis < -rank || axis >= rank || (rank == 0 && axis != 0 && axis != -1)) {
    fail<InvalidArgumentError>(where, "axis {} is out of range for a tensor of rank {} (expected [-{}, {}))", axis,
                               rank, rank, rank);
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

}  // namespace tpustrategy
