#include "tpustrategy/data/example.h"

#include <cstring>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/data/protobuf_wire.h"

namespace tpustrategy::data {

namespace {

using wire::kFixed32;
using wire::kLengthDelimited;
using wire::kVarint;

// ---- parsing ----

void parse_list(std::string_view bytes, Feature& f) {
  wire::Reader r(bytes);
  while (!r.done()) {
    auto [field, type] = r.tag();
    if (field != 1) {
      r.skip(type);
      continue;
    }
    if (f.kind == Feature::Kind::kBytes) {
      if (type != kLengthDelimited) throw wire::WireError("bytes_list value is not length-delimited");
      f.bytes_list.emplace_back(r.bytes());
    } else if (f.kind == Feature::Kind::kFloat) {
      if (type == kFixed32) {
        const std::uint32_t bits = r.fixed32();
        float v;
        std::memcpy(&v, &bits, 4);
        f.float_list.push_back(v);
      } else if (type == kLengthDelimited) {
        std::string_view packed = r.bytes();
        if (packed.size() % 4 != 0) throw wire::WireError("packed float_list size is not a multiple of 4");
        if (packed.empty()) continue;  // memcpy into an empty vector's null data() is undefined
        const std::size_t at = f.float_list.size();
        f.float_list.resize(at + packed.size() / 4);
        std::memcpy(f.float_list.data() + at, packed.data(), packed.size());
      } else {
        throw wire::WireError("float_list value has a wrong wire type");
      }
    } else {
      if (type == kVarint) {
        f.int64_list.push_back(static_cast<std::int64_t>(r.varint()));
      } else if (type == kLengthDelimited) {
        wire::Reader packed(r.bytes());
        while (!packed.done()) f.int64_list.push_back(static_cast<std::int64_t>(packed.varint()));
      } else {
        throw wire::WireError("int64_list value has a wrong wire type");
      }
    }
  }
}

void parse_feature(std::string_view bytes, Feature& f) {
  wire::Reader r(bytes);
  while (!r.done()) {
    auto [field, type] = r.tag();
    if (field < 1 || field > 3) {
      r.skip(type);
      continue;
    }
    if (type != kLengthDelimited) throw wire::WireError("feature kind is not length-delimited");
    const auto kind = static_cast<Feature::Kind>(field);
    if (f.kind != kind) f = Feature{kind, {}, {}, {}};  // another oneof member replaces the previous one
    parse_list(r.bytes(), f);
  }
}

// proto3 `string` fields (the map keys) must be valid UTF-8; protobuf's parsers reject them otherwise.
bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t extra;
    std::uint32_t cp;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if ((c >> 5) == 0x6) {
      extra = 1, cp = c & 0x1fu;
    } else if ((c >> 4) == 0xe) {
      extra = 2, cp = c & 0x0fu;
    } else if ((c >> 3) == 0x1e) {
      extra = 3, cp = c & 0x07u;
    } else {
      return false;
    }
    if (i + extra >= s.size()) return false;  // the continuation bytes run past the end
    for (std::size_t k = 1; k <= extra; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 0x2) return false;
      cp = (cp << 6) | (cc & 0x3fu);
    }
    const bool overlong = (extra == 1 && cp < 0x80) || (extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000);
    if (overlong || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += extra + 1;
  }
  return true;
}

// Parses a map<string, Value> entry: calls on_entry(key, value bytes); missing parts are defaults.
template <typename OnEntry>
void parse_map_entry(std::string_view bytes, OnEntry&& on_entry) {
  wire::Reader r(bytes);
  std::string_view key, value;
  while (!r.done()) {
    auto [field, type] = r.tag();
    if ((field == 1 || field == 2) && type != kLengthDelimited)
      throw wire::WireError("map entry field has a wrong wire type");
    if (field == 1) {
      key = r.bytes();
    } else if (field == 2) {
      value = r.bytes();
    } else {
      r.skip(type);
    }
  }
  if (!valid_utf8(key)) throw wire::WireError("a map key is not valid UTF-8");
  on_entry(key, value);
}

// Calls on_entry with each entry of the repeated message field 1 of `bytes` (Features' map, FeatureList's list,
// FeatureLists' map); other fields are skipped, as protobuf skips fields it does not know.
template <typename OnEntry>
void for_each_entry(std::string_view bytes, const char* what, OnEntry&& on_entry) {
  wire::Reader r(bytes);
  while (!r.done()) {
    auto [field, type] = r.tag();
    if (field != 1) {
      r.skip(type);
      continue;
    }
    if (type != kLengthDelimited) throw wire::WireError(std::string(what) + " entry is not length-delimited");
    on_entry(r.bytes());
  }
}

void parse_features(std::string_view bytes, FeatureMap& out) {
  for_each_entry(bytes, "features", [&](std::string_view entry) {
    parse_map_entry(entry, [&](std::string_view key, std::string_view value) {
      Feature f;  // a repeated key replaces the earlier entry, as protobuf maps do
      parse_feature(value, f);
      auto it = out.find(key);
      if (it == out.end()) {
        out.emplace(std::string(key), std::move(f));
      } else {
        it->second = std::move(f);
      }
    });
  });
}

void parse_feature_list(std::string_view bytes, std::vector<Feature>& out) {
  for_each_entry(bytes, "feature_list", [&](std::string_view entry) { parse_feature(entry, out.emplace_back()); });
}

void parse_feature_lists(std::string_view bytes, FeatureListMap& out) {
  for_each_entry(bytes, "feature_lists", [&](std::string_view entry) {
    parse_map_entry(entry, [&](std::string_view key, std::string_view value) {
      std::vector<Feature> list;
      parse_feature_list(value, list);
      out.insert_or_assign(std::string(key), std::move(list));
    });
  });
}

// A map<string, Message> field: one entry {key = 1, value = 2} per key, in key order (the map's).
template <typename Map, typename SerializeValue>
std::string serialize_map(const Map& map, SerializeValue&& serialize_value) {
  std::string out;
  for (const auto& [key, value] : map) {
    std::string entry;
    wire::put_bytes(entry, 1, key);
    wire::put_bytes(entry, 2, serialize_value(value));
    wire::put_bytes(out, 1, entry);
  }
  return out;
}

[[noreturn]] void malformed(const char* what, const wire::WireError& e) {
  fail<InvalidArgumentError>(what, "Could not parse the serialized proto: {}", e.what());
}

// `parse(bytes, message)` into a new message; InvalidArgumentError naming `what` on malformed bytes.
template <typename Message, typename Parse>
Message parse_message(const char* what, std::string_view bytes, Parse&& parse) {
  Message message{};
  try {
    parse(bytes, message);
  } catch (const wire::WireError& e) {
    malformed(what, e);
  }
  return message;
}

}  // namespace

std::string serialize_value_list(const Feature& f) {
  std::string list;
  switch (f.kind) {
    case Feature::Kind::kNone:
      break;
    case Feature::Kind::kBytes:
      for (const std::string& v : f.bytes_list) wire::put_bytes(list, 1, v);
      break;
    case Feature::Kind::kFloat:
      if (!f.float_list.empty()) {
        wire::put_tag(list, 1, kLengthDelimited);
        wire::put_varint(list, f.float_list.size() * 4);
        const std::size_t at = list.size();
        list.resize(at + f.float_list.size() * 4);
        std::memcpy(list.data() + at, f.float_list.data(), f.float_list.size() * 4);
      }
      break;
    case Feature::Kind::kInt64:
      if (!f.int64_list.empty()) {
        std::size_t size = 0;
        for (std::int64_t v : f.int64_list) size += wire::varint_size(static_cast<std::uint64_t>(v));
        wire::put_tag(list, 1, kLengthDelimited);
        wire::put_varint(list, size);
        for (std::int64_t v : f.int64_list) wire::put_varint(list, static_cast<std::uint64_t>(v));
      }
      break;
  }
  return list;
}

std::string serialize_feature(const Feature& f) {
  std::string out;
  if (f.kind != Feature::Kind::kNone) wire::put_bytes(out, static_cast<std::uint32_t>(f.kind), serialize_value_list(f));
  return out;
}

std::string serialize_features(const FeatureMap& features) {
  return serialize_map(features, [](const Feature& f) { return serialize_feature(f); });
}

std::string serialize_feature_list(const std::vector<Feature>& list) {
  std::string out;
  for (const Feature& f : list) wire::put_bytes(out, 1, serialize_feature(f));
  return out;
}

std::string serialize_feature_lists(const FeatureListMap& lists) {
  return serialize_map(lists, [](const std::vector<Feature>& list) { return serialize_feature_list(list); });
}

std::string serialize_example(const Example& example) {
  std::string out;
  if (example.has_features || !example.features.empty()) {
    wire::put_bytes(out, 1, serialize_features(example.features));
  }
  return out;
}

std::string serialize_sequence_example(const SequenceExample& example) {
  std::string out;
  if (example.has_context || !example.context.empty()) wire::put_bytes(out, 1, serialize_features(example.context));
  if (example.has_feature_lists || !example.feature_lists.empty()) {
    wire::put_bytes(out, 2, serialize_feature_lists(example.feature_lists));
  }
  return out;
}

Example parse_example_proto(std::string_view bytes) {
  return parse_message<Example>("Example", bytes, [](std::string_view b, Example& example) {
    example.has_features = false;
    wire::Reader r(b);
    while (!r.done()) {
      auto [field, type] = r.tag();
      if (field == 1 && type == kLengthDelimited) {
        example.has_features = true;
        parse_features(r.bytes(), example.features);  // a repeated message field merges
      } else if (field == 1) {
        throw wire::WireError("features is not length-delimited");
      } else {
        r.skip(type);
      }
    }
  });
}

SequenceExample parse_sequence_example_proto(std::string_view bytes) {
  return parse_message<SequenceExample>("SequenceExample", bytes, [](std::string_view b, SequenceExample& example) {
    example.has_context = example.has_feature_lists = false;
    wire::Reader r(b);
    while (!r.done()) {
      auto [field, type] = r.tag();
      if ((field == 1 || field == 2) && type != kLengthDelimited)
        throw wire::WireError("field is not length-delimited");
      if (field == 1) {
        example.has_context = true;
        parse_features(r.bytes(), example.context);
      } else if (field == 2) {
        example.has_feature_lists = true;
        parse_feature_lists(r.bytes(), example.feature_lists);
      } else {
        r.skip(type);
      }
    }
  });
}

Feature parse_value_list_proto(std::string_view bytes, Feature::Kind kind) {
  static constexpr const char* kNames[] = {"Feature", "BytesList", "FloatList", "Int64List"};
  if (kind == Feature::Kind::kNone) fail<InvalidArgumentError>("parse_value_list_proto", "a value list needs a kind");
  return parse_message<Feature>(kNames[static_cast<int>(kind)], bytes, [kind](std::string_view b, Feature& f) {
    f.kind = kind;
    parse_list(b, f);
  });
}

Feature parse_feature_proto(std::string_view bytes) {
  return parse_message<Feature>("Feature", bytes, [](std::string_view b, Feature& f) { parse_feature(b, f); });
}

FeatureMap parse_features_proto(std::string_view bytes) {
  return parse_message<FeatureMap>("Features", bytes, [](std::string_view b, FeatureMap& m) { parse_features(b, m); });
}

std::vector<Feature> parse_feature_list_proto(std::string_view bytes) {
  return parse_message<std::vector<Feature>>(
      "FeatureList", bytes, [](std::string_view b, std::vector<Feature>& l) { parse_feature_list(b, l); });
}

FeatureListMap parse_feature_lists_proto(std::string_view bytes) {
  return parse_message<FeatureListMap>("FeatureLists", bytes,
                                       [](std::string_view b, FeatureListMap& m) { parse_feature_lists(b, m); });
}

}  // namespace tpustrategy::data
