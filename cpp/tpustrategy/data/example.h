#pragma once
// tf.train.Example and tf.train.SequenceExample in the protobuf wire format, written by hand.
//
// The messages (field numbers of TensorFlow's example.proto / feature.proto):
//   Example         { Features features = 1; }
//   SequenceExample { Features context = 1; FeatureLists feature_lists = 2; }
//   Features        { map<string, Feature> feature = 1; }        // entry: key = 1, value = 2
//   FeatureLists    { map<string, FeatureList> feature_list = 1; }
//   FeatureList     { repeated Feature feature = 1; }
//   Feature         { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2;
//                                  Int64List int64_list = 3; } }
//   BytesList { repeated bytes value = 1; }  FloatList { repeated float value = 1 [packed]; }
//   Int64List { repeated int64 value = 1 [packed]; }
// Serialization writes what protobuf writes: packed floats / int64s (an empty list writes no
// field), map entries with both key and value, and map entries in key order (protobuf's
// deterministic order). Parsing accepts everything a protobuf parser accepts for these messages
// (packed or unpacked repeated scalars, unknown fields skipped, repeated singular messages merged,
// the last oneof member wins) and rejects malformed bytes with InvalidArgumentError, never reading
// out of bounds. A message field (Example.features, SequenceExample.context / feature_lists) is written
// when it is set or not empty, as protobuf writes a present field; parsing sets it when the bytes hold it.
// Every part is also a message of its own (tf.train.Feature, Features, ... in Python): serialize_* / parse_*
// below give and read the bytes TF gives for that message alone.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tpustrategy::data {

struct Feature {
  enum class Kind : std::uint8_t { kNone = 0, kBytes = 1, kFloat = 2, kInt64 = 3 };
  Kind kind = Kind::kNone;
  std::vector<std::string> bytes_list;
  std::vector<float> float_list;
  std::vector<std::int64_t> int64_list;

  bool operator==(const Feature&) const = default;
};

using FeatureMap = std::map<std::string, Feature, std::less<>>;
using FeatureListMap = std::map<std::string, std::vector<Feature>, std::less<>>;

struct Example {
  FeatureMap features;
  bool has_features = true;
  bool operator==(const Example&) const = default;
};

struct SequenceExample {
  FeatureMap context;
  FeatureListMap feature_lists;
  bool has_context = true;
  bool has_feature_lists = true;
  bool operator==(const SequenceExample&) const = default;
};

std::string serialize_example(const Example& example);
std::string serialize_sequence_example(const SequenceExample& example);

// Throw InvalidArgumentError("... could not parse ...") on malformed input.
Example parse_example_proto(std::string_view bytes);
SequenceExample parse_sequence_example_proto(std::string_view bytes);

// The parts as messages of their own. A BytesList / FloatList / Int64List is the list of `f.kind`.
std::string serialize_value_list(const Feature& f);
std::string serialize_feature(const Feature& f);
std::string serialize_features(const FeatureMap& features);
std::string serialize_feature_list(const std::vector<Feature>& list);
std::string serialize_feature_lists(const FeatureListMap& lists);
// Each throws InvalidArgumentError naming the message on malformed input.
Feature parse_value_list_proto(std::string_view bytes, Feature::Kind kind);
Feature parse_feature_proto(std::string_view bytes);
FeatureMap parse_features_proto(std::string_view bytes);
std::vector<Feature> parse_feature_list_proto(std::string_view bytes);
FeatureListMap parse_feature_lists_proto(std::string_view bytes);

}  // namespace tpustrategy::data
