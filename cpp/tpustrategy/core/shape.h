#pragma once
// Tensor shapes: row-major, dims >= 0.
#include <cstdint>
#include <string>
#include <vector>

namespace tpustrategy {

using Shape = std::vector<std::int64_t>;

std::int64_t num_elements(const Shape& shape);
// Python-tuple text, as TF prints shapes: "()", "(3,)", "(4, 1)".
std::string shape_to_string(const Shape& shape);
// Row-major strides in elements.
std::vector<std::int64_t> row_major_strides(const Shape& shape);
// Throws ValueError (naming `where`) if any dimension is negative.
void check_shape(const Shape& shape, const char* where);
// Normalises a possibly negative axis against `rank`; throws InvalidArgumentError when out of range.
int normalize_axis(std::int64_t axis, int rank, const char* where);

}  // namespace tpustrategy
