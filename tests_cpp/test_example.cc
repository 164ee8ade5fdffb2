// tf.train.Example codec and the batched parser: TF-identical bytes, round trips, typed errors on
// malformed input.
#include <gtest/gtest.h>

#include <random>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/data/example.h"
#include "tpustrategy/data/example_parse.h"

namespace tpustrategy::data {
namespace {

Feature floats(std::vector<float> v) { return Feature{Feature::Kind::kFloat, {}, std::move(v), {}}; }
Feature ints(std::vector<std::int64_t> v) { return Feature{Feature::Kind::kInt64, {}, {}, std::move(v)}; }
Feature strs(std::vector<std::string> v) { return Feature{Feature::Kind::kBytes, std::move(v), {}, {}}; }

std::string hex(const std::string& s) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

Example abc() {
  return Example{{{"a", floats({1.5f, 2.0f})}, {"b", ints({1, -2, 300})}, {"c", strs({"hi", "there"})}}};
}

TEST(Example, SerializesAsTensorFlowDoes) {
  // TF 2.21: Example.SerializeToString(deterministic=True) of the same message.
  EXPECT_EQ(
      hex(serialize_example(abc())),
      "0a3f0a110a0161120c120a0a080000c03f000000400a160a016212111a0f0a0d01feffffffffffffffff01ac020a120a0163120d0a0b"
      "0a0268690a057468657265");
}

TEST(Example, RoundTrips) {
  EXPECT_EQ(parse_example_proto(serialize_example(abc())), abc());
  SequenceExample seq{{{"l", ints({5})}}, {{"t", {floats({1.0f}), floats({2.0f, 3.0f})}}}};
  EXPECT_EQ(parse_sequence_example_proto(serialize_sequence_example(seq)), seq);
}

// An unset message field is not written; a set, empty one is (TF 2.21: Example() gives b"", and
// Example(features=Features()) gives 0a00).
TEST(Example, MessageFieldPresenceRoundTrips) {
  EXPECT_EQ(serialize_example(Example{{}, false}), "");
  EXPECT_EQ(hex(serialize_example(Example{})), "0a00");
  EXPECT_FALSE(parse_example_proto("").has_features);
  EXPECT_TRUE(parse_example_proto(std::string("\x0a\x00", 2)).has_features);
  const SequenceExample only_lists{{}, {}, false, true};
  EXPECT_EQ(hex(serialize_sequence_example(only_lists)), "1200");
  EXPECT_EQ(parse_sequence_example_proto(serialize_sequence_example(only_lists)), only_lists);
}

TEST(Example, PartsAreMessagesOfTheirOwn) {
  // TF 2.21: FeatureList(feature=[Feature(float_list=FloatList(value=[1, 2])), Feature()]).SerializeToString().
  const std::vector<Feature> steps{floats({1.0f, 2.0f}), Feature{}};
  EXPECT_EQ(hex(serialize_feature_list(steps)), "0a0c120a0a080000803f000000400a00");
  EXPECT_EQ(parse_feature_list_proto(serialize_feature_list(steps)), steps);
  EXPECT_EQ(hex(serialize_value_list(ints({1, -1, 300}))), "0a0d01ffffffffffffffffff01ac02");
  EXPECT_EQ(parse_value_list_proto(serialize_value_list(strs({"a", "bc"})), Feature::Kind::kBytes), strs({"a", "bc"}));
  EXPECT_EQ(parse_feature_proto(serialize_feature(floats({}))), floats({}));
  EXPECT_EQ(parse_features_proto(serialize_features(abc().features)), abc().features);
  const FeatureListMap lists{{"t", steps}};
  EXPECT_EQ(parse_feature_lists_proto(serialize_feature_lists(lists)), lists);
  const std::string truncated{'\x0a', '\x05', 'a', 'b'};  // field 1 says 5 bytes, 2 follow
  EXPECT_THROW(parse_feature_proto(truncated), InvalidArgumentError);
  EXPECT_THROW(parse_value_list_proto("", Feature::Kind::kNone), InvalidArgumentError);
}

TEST(Example, BatchedParseFillsColumns) {
  const std::string s = serialize_example(abc());
  std::vector<std::string_view> batch{s, s};
  FeatureConfig dense{"a", Feature::Kind::kFloat, false, {2}, false, {}};
  FeatureConfig sparse{"b", Feature::Kind::kInt64, true, {}, false, {}};
  auto columns = parse_examples(batch, {dense, sparse});
  EXPECT_EQ(columns[0].floats, (std::vector<float>{1.5f, 2.0f, 1.5f, 2.0f}));
  EXPECT_EQ(columns[1].int64s, (std::vector<std::int64_t>{1, -2, 300, 1, -2, 300}));
  EXPECT_EQ(columns[1].row_lengths, (std::vector<std::int64_t>{3, 3}));
  FeatureConfig wrong{"a", Feature::Kind::kFloat, false, {3}, false, {}};
  EXPECT_THROW(parse_examples(batch, {wrong}), InvalidArgumentError);
}

TEST(Example, MalformedInputThrowsTypedErrors) {
  const std::string valid = serialize_example(abc());
  std::mt19937 rng(7);
  FeatureConfig any{"b", Feature::Kind::kInt64, true, {}, false, {}};
  for (int i = 0; i < 2000; ++i) {
    std::string junk = valid.substr(0, rng() % (valid.size() + 1));
    if (!junk.empty() && i % 2) junk[rng() % junk.size()] ^= static_cast<char>(1 << (rng() % 8));
    try {
      parse_example_proto(junk);
    } catch (const InvalidArgumentError&) {
    }
    std::vector<std::string_view> batch{junk};
    try {
      parse_examples(batch, {any});
    } catch (const InvalidArgumentError&) {
    }
  }
  EXPECT_THROW(parse_example_proto(std::string("\x0a\x05"
                                               "abc",
                                               5)),
               InvalidArgumentError);
}

// Found by fuzz_example (UBSan: memcpy into the null data() of an empty vector): a packed float_list of
// zero bytes is a valid, empty list for both parsers.
TEST(Example, EmptyPackedFloatListParsesAsEmpty) {
  const std::string bytes("\x0a\x0b\x0a\x09\x0a\x01\x61\x12\x04\x12\x02\x0a\x00", 13);
  const Example parsed = parse_example_proto(bytes);
  ASSERT_EQ(parsed.features.count("a"), 1u);
  EXPECT_EQ(parsed.features.at("a").kind, Feature::Kind::kFloat);
  EXPECT_TRUE(parsed.features.at("a").float_list.empty());
  std::vector<std::string_view> batch{bytes};
  auto columns = parse_examples(batch, {FeatureConfig{"a", Feature::Kind::kFloat, true, {}, false, {}}});
  EXPECT_TRUE(columns[0].floats.empty());
  EXPECT_EQ(columns[0].row_lengths, (std::vector<std::int64_t>{0}));
}

// Found by fuzz_example: a key holding a NUL cut the error message short (messages travel as C strings).
TEST(Example, ErrorMessagesEscapeTheKey) {
  const std::string key("k\0y", 3);
  const std::string bytes = serialize_example(Example{{{key, ints({5})}}});
  std::vector<std::string_view> batch{bytes};
  try {
    parse_examples(batch, {FeatureConfig{key, Feature::Kind::kFloat, true, {}, false, {}}});
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgumentError& e) {
    EXPECT_NE(std::string(e.what()).find("Key: k\\x00y, Index: 0.  Data types don't match"), std::string::npos)
        << e.what();
  }
}

TEST(Example, SequenceFeatureListsParseIntoSteps) {
  SequenceExample a{{{"len", ints({2})}}, {{"tok", {ints({1}), ints({2, 3})}}, {"w", {strs({"x"})}}}};
  SequenceExample b{{{"len", ints({1})}}, {{"tok", {ints({4})}}}};
  const std::string sa = serialize_sequence_example(a), sb = serialize_sequence_example(b);
  FeatureConfig tok{"tok", Feature::Kind::kInt64, true, {}, false, {}};
  FeatureConfig w{"w", Feature::Kind::kBytes, true, {}, false, {}};
  auto columns = parse_sequence_feature_lists({sa, sb}, {tok, w});
  EXPECT_EQ(columns[0].values.int64s, (std::vector<std::int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(columns[0].steps, (std::vector<std::int64_t>{2, 1}));
  EXPECT_EQ(columns[0].step_lengths, (std::vector<std::int64_t>{1, 2, 1}));
  EXPECT_EQ(columns[1].steps, (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(columns[1].present, (std::vector<std::uint8_t>{1, 0}));
  ASSERT_EQ(columns[1].values.bytes.size(), 1U);
  EXPECT_EQ(columns[1].values.bytes[0], "x");
  // The context is an Example's features field: the Example parser reads it from the same bytes.
  auto context = parse_examples({sa, sb}, {FeatureConfig{"len", Feature::Kind::kInt64, false, {}, false, {}}});
  EXPECT_EQ(context[0].int64s, (std::vector<std::int64_t>{2, 1}));
  FeatureConfig wrong{"tok", Feature::Kind::kFloat, true, {}, false, {}};
  EXPECT_THROW(parse_sequence_feature_lists({sa}, {wrong}), InvalidArgumentError);
  EXPECT_THROW(parse_sequence_feature_lists({std::string_view("\x12\x05\x0a", 3)}, {tok}), InvalidArgumentError);
  EXPECT_THROW(parse_sequence_feature_lists({sa}, {tok, tok}), InvalidArgumentError);
}

}  // namespace
}  // namespace tpustrategy::data
