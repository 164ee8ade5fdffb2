// libFuzzer harness: serialized tf.train.Example / SequenceExample bytes (tf.train.Example.FromString,
// tf.io.parse_example).
// Properties:
//   * parse_example_proto and parse_sequence_example_proto either succeed or throw InvalidArgumentError
//     (never crash, read out of bounds or throw anything else);
//   * a parsed message re-serialises to bytes that parse and re-serialise to the same bytes (bytes are
//     compared, not floats, so NaN payloads count too);
//   * the batched parser (parse_examples) over the same bytes, configured with every parsed feature as a
//     VarLenFeature of its kind, returns exactly the parsed values — or refuses with InvalidArgumentError
//     only for a Feature that sets two kinds of its oneof (the object parser keeps the last, TF's fast
//     parser reports a type mismatch);
//   * parse_examples with a fixed configuration (FixedLen with and without defaults, VarLen, each dtype)
//     either fills columns of the promised sizes or throws InvalidArgumentError;
//   * parse_sequence_feature_lists over a parsed SequenceExample, configured with every feature list's kind,
//     returns exactly its steps and values (or a dtype mismatch for lists that mix kinds), and with a fixed
//     configuration over any bytes keeps steps, step lengths and values consistent;
//   * each part parsed as a message of its own (parse_feature_proto, parse_features_proto, ... the value lists)
//     succeeds or throws InvalidArgumentError, and re-serialises to bytes that round-trip unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/data/example.h"
#include "tpustrategy/data/example_parse.h"

namespace {

using tpustrategy::InvalidArgumentError;
using namespace tpustrategy::data;
using Kind = Feature::Kind;

void check(bool ok) {
  if (!ok) std::abort();
}

// The parser's result, or nothing when it rejects the input with InvalidArgumentError (any other
// exception escapes and fails the harness).
template <typename Parse>
auto parsed_or_rejected(Parse&& parse) -> std::optional<decltype(parse())> {
  try {
    return parse();
  } catch (const InvalidArgumentError&) {
    return std::nullopt;
  }
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

// Keys the seeds use, so the fixed configuration is reached (the fuzzer also learns them from comparisons).
std::vector<FeatureConfig> fixed_config() {
  FeatureConfig a{"a", Kind::kFloat, false, {2}, false, {}};
  FeatureConfig b{"b", Kind::kInt64, true, {}, false, {}};
  FeatureConfig c{"c", Kind::kBytes, true, {}, false, {}};
  FeatureConfig d{"d", Kind::kInt64, false, {1, 2}, true, Feature{Kind::kInt64, {}, {}, {7, 8}}};
  FeatureConfig e{"e", Kind::kBytes, false, {}, true, Feature{Kind::kBytes, {"default"}, {}, {}}};
  return {a, b, c, d, e};
}

std::size_t column_size(const ParsedColumn& column) {
  switch (column.dtype) {
    case Kind::kBytes:
      return column.bytes.size();
    case Kind::kFloat:
      return column.floats.size();
    default:
      return column.int64s.size();
  }
}

void check_example(std::string_view bytes) {
  const auto parsed = parsed_or_rejected([&] { return parse_example_proto(bytes); });
  if (!parsed) return;
  const Example& example = *parsed;
  const std::string once = serialize_example(example);
  check(serialize_example(parse_example_proto(once)) == once);

  std::vector<FeatureConfig> config;
  std::vector<const Feature*> expected;
  for (const auto& [key, feature] : example.features) {
    if (feature.kind == Kind::kNone) continue;
    config.push_back(FeatureConfig{key, feature.kind, true, {}, false, {}});
    expected.push_back(&feature);
  }
  std::vector<ParsedColumn> columns;
  try {
    columns = parse_examples({bytes}, config);
  } catch (const InvalidArgumentError& e) {
    check(std::string_view(e.what()).find("Data types don't match") != std::string_view::npos);
    return;
  }
  check(columns.size() == config.size());
  for (std::size_t c = 0; c < config.size(); ++c) {
    const Feature& f = *expected[c];
    const ParsedColumn& col = columns[c];
    check(col.row_lengths.size() == 1 && static_cast<std::size_t>(col.row_lengths[0]) == column_size(col));
    switch (f.kind) {
      case Kind::kBytes:
        check(col.bytes.size() == f.bytes_list.size());
        for (std::size_t k = 0; k < col.bytes.size(); ++k) check(col.bytes[k] == f.bytes_list[k]);
        break;
      case Kind::kFloat:
        check(same_bits(col.floats, f.float_list));
        break;
      default:
        check(col.int64s == f.int64_list);
    }
  }
}

std::size_t feature_size(const Feature& f, Kind kind) {
  if (f.kind != kind) return 0;
  return kind == Kind::kBytes ? f.bytes_list.size() : kind == Kind::kFloat ? f.float_list.size() : f.int64_list.size();
}

void check_sequence_example(std::string_view bytes) {
  const auto example = parsed_or_rejected([&] { return parse_sequence_example_proto(bytes); });
  if (!example) return;
  const std::string once = serialize_sequence_example(*example);
  check(serialize_sequence_example(parse_sequence_example_proto(once)) == once);

  std::vector<FeatureConfig> config;
  std::vector<const std::vector<Feature>*> expected;
  for (const auto& [key, features] : example->feature_lists) {
    Kind kind = Kind::kInt64;
    for (const Feature& f : features) {
      if (f.kind != Kind::kNone) {
        kind = f.kind;
        break;
      }
    }
    config.push_back(FeatureConfig{key, kind, true, {}, false, {}});
    expected.push_back(&features);
  }
  std::vector<ParsedSequenceColumn> columns;
  try {
    columns = parse_sequence_feature_lists({bytes}, config);
  } catch (const InvalidArgumentError& e) {
    check(std::string_view(e.what()).find("Data types don't match") != std::string_view::npos);
    return;
  }
  check(columns.size() == config.size());
  for (std::size_t c = 0; c < config.size(); ++c) {
    const ParsedSequenceColumn& col = columns[c];
    const std::vector<Feature>& features = *expected[c];
    check(col.present.size() == 1 && col.present[0] == 1 && col.steps.size() == 1);
    check(static_cast<std::size_t>(col.steps[0]) == features.size() && col.step_lengths.size() == features.size());
    std::size_t total = 0;
    for (std::size_t k = 0; k < features.size(); ++k) {
      check(static_cast<std::size_t>(col.step_lengths[k]) == feature_size(features[k], config[c].dtype));
      total += feature_size(features[k], config[c].dtype);
    }
    check(column_size(col.values) == total);
  }
}

void check_fixed_sequence_config(std::string_view bytes) {
  static const std::vector<FeatureConfig> config = fixed_config();
  const std::vector<std::string_view> batch{bytes, bytes};
  const auto columns = parsed_or_rejected([&] { return parse_sequence_feature_lists(batch, config); });
  if (!columns) return;
  check(columns->size() == config.size());
  for (const ParsedSequenceColumn& col : *columns) {
    check(col.steps.size() == 2 && col.present.size() == 2 && col.steps[0] == col.steps[1]);
    check(static_cast<std::size_t>(col.steps[0] + col.steps[1]) == col.step_lengths.size());
    std::int64_t total = 0;
    for (std::int64_t n : col.step_lengths) total += n;
    check(static_cast<std::size_t>(total) == column_size(col.values));
  }
}

void check_fixed_config(std::string_view bytes) {
  static const std::vector<FeatureConfig> config = fixed_config();
  // Two copies in one batch: row bookkeeping across examples.
  const std::vector<std::string_view> batch{bytes, bytes};
  const auto columns = parsed_or_rejected([&] { return parse_examples(batch, config); });
  if (!columns) return;
  check(columns->size() == config.size());
  for (std::size_t c = 0; c < config.size(); ++c) {
    const FeatureConfig& cfg = config[c];
    const ParsedColumn& col = (*columns)[c];
    check(col.dtype == cfg.dtype);
    if (cfg.var_len) {
      check(col.row_lengths.size() == batch.size() && col.row_lengths[0] == col.row_lengths[1]);
      check(static_cast<std::size_t>(col.row_lengths[0] + col.row_lengths[1]) == column_size(col));
    } else {
      std::size_t per_example = 1;
      for (std::int64_t d : cfg.shape) per_example *= static_cast<std::size_t>(d);
      check(column_size(col) == batch.size() * per_example);
    }
  }
}

}  // namespace

// parse(bytes) then serialize is stable: serialize(parse(once)) == once.
template <typename Parse, typename Serialize>
void check_round_trip(std::string_view bytes, Parse&& parse, Serialize&& serialize) {
  const auto parsed = parsed_or_rejected([&] { return parse(bytes); });
  if (!parsed) return;
  const std::string once = serialize(*parsed);
  check(serialize(parse(once)) == once);
}

void check_parts(std::string_view bytes) {
  for (Kind kind : {Kind::kBytes, Kind::kFloat, Kind::kInt64}) {
    check_round_trip(
        bytes, [kind](std::string_view b) { return parse_value_list_proto(b, kind); },
        [](const Feature& f) { return serialize_value_list(f); });
  }
  check_round_trip(
      bytes, [](std::string_view b) { return parse_feature_proto(b); },
      [](const Feature& f) { return serialize_feature(f); });
  check_round_trip(
      bytes, [](std::string_view b) { return parse_features_proto(b); },
      [](const FeatureMap& m) { return serialize_features(m); });
  check_round_trip(
      bytes, [](std::string_view b) { return parse_feature_list_proto(b); },
      [](const std::vector<Feature>& l) { return serialize_feature_list(l); });
  check_round_trip(
      bytes, [](std::string_view b) { return parse_feature_lists_proto(b); },
      [](const FeatureListMap& m) { return serialize_feature_lists(m); });
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  check_example(bytes);
  check_sequence_example(bytes);
  check_fixed_config(bytes);
  check_fixed_sequence_config(bytes);
  check_parts(bytes);
  return 0;
}
