#pragma once
// numpy-style text for integer arrays and shapes, so error messages read like TensorFlow's:
// numpy_array_str({1, 2, 2, 2}) == "[1 2 2 2]", numpy_shape_str({3}) == "(3,)", {2, 4} -> "(2, 4)".
#include <fmt/format.h>

#include <iterator>
#include <string>

namespace tpustrategy::detail {

template <typename Range>
std::string numpy_array_str(const Range& values) {
  return fmt::format("[{}]", fmt::join(values, " "));
}

template <typename Range>
std::string numpy_shape_str(const Range& shape) {
  // A 1-tuple prints with a trailing comma, as Python does.
  if (std::size(shape) == 1) return fmt::format("({},)", *std::begin(shape));
  return fmt::format("({})", fmt::join(shape, ", "));
}

}  // namespace tpustrategy::detail
