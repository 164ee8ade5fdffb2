#pragma once
// tf.io.parse_example in C++: a batch of serialized tf.train.Example protos parsed straight into
// one column per configured feature (FixedLenFeature -> dense values, VarLenFeature -> values plus
// row lengths), without building Example objects. The error texts follow TensorFlow's example
// parser ("Name: <unknown>, Key: x, Index: 3.  Number of float values != expected. ...").
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tpustrategy/data/example.h"

namespace tpustrategy::data {

struct FeatureConfig {
  std::string key;
  Feature::Kind dtype = Feature::Kind::kFloat;
  bool var_len = false;
  std::vector<std::int64_t> shape;  // FixedLenFeature only
  bool has_default = false;         // FixedLenFeature: default values, product(shape) of them
  Feature default_value;
};

struct ParsedColumn {
  Feature::Kind dtype = Feature::Kind::kFloat;
  std::vector<float> floats;
  std::vector<std::int64_t> int64s;
  std::vector<std::string_view> bytes;    // views into the serialized inputs or the config defaults
  std::vector<std::int64_t> row_lengths;  // VarLenFeature: values per example
};

// Parses every serialized Example. The returned byte views point into `serialized` and `config`,
// which must outlive them. Throws InvalidArgumentError on malformed protos, a missing required
// feature, a dtype mismatch or a wrong number of values.
std::vector<ParsedColumn> parse_examples(const std::vector<std::string_view>& serialized,
                                         const std::vector<FeatureConfig>& config);

// One sequence feature of a batch of serialized SequenceExamples (tf.io.parse_sequence_example): the values
// of every step of every example in order, how many steps each example has, how many values each step has.
struct ParsedSequenceColumn {
  ParsedColumn values;
  std::vector<std::int64_t> steps;         // per example (0 when its feature list is absent)
  std::vector<std::int64_t> step_lengths;  // per step, over all examples
  std::vector<std::uint8_t> present;       // per example: whether it has this feature list
};

// Parses the feature_lists of every serialized SequenceExample for the configured keys (dtype only; the
// caller checks shapes). The context is an Example's features field, so parse_examples parses it. Byte
// views point into `serialized`. Throws InvalidArgumentError on malformed protos or a dtype mismatch.
std::vector<ParsedSequenceColumn> parse_sequence_feature_lists(const std::vector<std::string_view>& serialized,
                                                               const std::vector<FeatureConfig>& config);

}  // namespace tpustrategy::data
