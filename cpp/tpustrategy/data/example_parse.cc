#include "tpustrategy/data/example_parse.h"

#include <cstring>
#include <unordered_map>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/data/protobuf_wire.h"

namespace tpustrategy::data {

namespace {

using Kind = Feature::Kind;

std::string escaped(std::string_view bytes, std::size_t limit = 256);

const char* type_name(Kind kind) {
  switch (kind) {
    case Kind::kBytes:
      return "string";
    case Kind::kFloat:
      return "float";
    case Kind::kInt64:
      return "int64";
    default:
      return "none";
  }
}

std::int64_t num_elements(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

std::string shape_string(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

// Appends the values of one serialized Feature (of kind `cfg.dtype`) to `col`; returns how many.
std::int64_t append_feature(std::string_view feature, const FeatureConfig& cfg, ParsedColumn& col, std::size_t index) {
  std::int64_t count = 0;
  wire::Reader r(feature);
  while (!r.done()) {
    auto [field, type] = r.tag();
    if (field < 1 || field > 3) {
      r.skip(type);
      continue;
    }
    if (type != wire::kLengthDelimited) throw wire::WireError("feature kind is not length-delimited");
    const auto kind = static_cast<Kind>(field);
    std::string_view list = r.bytes();
    if (kind != cfg.dtype) {
      fail<InvalidArgumentError>("parse_example",
                                 "Name: <unknown>, Key: {}, Index: {}.  Data types don't match. "
                                 "Data type: {} but expected type: {}",
                                 escaped(cfg.key), index, type_name(kind), type_name(cfg.dtype));
    }
    wire::Reader lr(list);
    while (!lr.done()) {
      auto [lfield, ltype] = lr.tag();
      if (lfield != 1) {
        lr.skip(ltype);
        continue;
      }
      if (kind == Kind::kBytes) {
        if (ltype != wire::kLengthDelimited) throw wire::WireError("bytes_list value is not length-delimited");
        col.bytes.push_back(lr.bytes());
        ++count;
      } else if (kind == Kind::kFloat) {
        if (ltype == wire::kLengthDelimited) {
          std::string_view packed = lr.bytes();
          if (packed.size() % 4 != 0) throw wire::WireError("packed float_list size is not a multiple of 4");
          if (packed.empty()) continue;  // memcpy into an empty vector's null data() is undefined
          const std::size_t at = col.floats.size();
          col.floats.resize(at + packed.size() / 4);
          std::memcpy(col.floats.data() + at, packed.data(), packed.size());
          count += static_cast<std::int64_t>(packed.size() / 4);
        } else if (ltype == wire::kFixed32) {
          const std::uint32_t bits = lr.fixed32();
          float v;
          std::memcpy(&v, &bits, 4);
          col.floats.push_back(v);
          ++count;
        } else {
          throw wire::WireError("float_list value has a wrong wire type");
        }
      } else {
        if (ltype == wire::kLengthDelimited) {
          wire::Reader packed(lr.bytes());
          while (!packed.done()) {
            col.int64s.push_back(static_cast<std::int64_t>(packed.varint()));
            ++count;
          }
        } else if (ltype == wire::kVarint) {
          col.int64s.push_back(static_cast<std::int64_t>(lr.varint()));
          ++count;
        } else {
          throw wire::WireError("int64_list value has a wrong wire type");
        }
      }
    }
  }
  return count;
}

void append_default(const FeatureConfig& cfg, ParsedColumn& col) {
  const Feature& d = cfg.default_value;
  switch (cfg.dtype) {
    case Kind::kBytes:
      for (const std::string& v : d.bytes_list) col.bytes.emplace_back(v);
      break;
    case Kind::kFloat:
      col.floats.insert(col.floats.end(), d.float_list.begin(), d.float_list.end());
      break;
    default:
      col.int64s.insert(col.int64s.end(), d.int64_list.begin(), d.int64_list.end());
  }
}

// (key, value) of one map entry (Features.feature or FeatureLists.feature_list).
std::pair<std::string_view, std::string_view> map_entry(std::string_view bytes) {
  wire::Reader entry(bytes);
  std::string_view key, value;
  while (!entry.done()) {
    auto [efield, etype] = entry.tag();
    if ((efield == 1 || efield == 2) && etype != wire::kLengthDelimited) {
      throw wire::WireError("map entry field has a wrong wire type");
    }
    if (efield == 1) {
      key = entry.bytes();
    } else if (efield == 2) {
      value = entry.bytes();
    } else {
      entry.skip(etype);
    }
  }
  return {key, value};
}

// The last value seen for each configured key in the map at field `field` of one message: an Example's
// features (field 1, which is also a SequenceExample's context) or a SequenceExample's feature_lists (field 2).
// Later map entries win, as in protobuf.
void find_map_values(std::string_view message, std::uint32_t field,
                     const std::unordered_map<std::string_view, std::size_t>& index_of,
                     std::vector<std::string_view>& found, std::vector<bool>& present) {
  wire::Reader r(message);
  while (!r.done()) {
    auto [mfield, type] = r.tag();
    if (mfield != field) {
      r.skip(type);
      continue;
    }
    if (type != wire::kLengthDelimited) throw wire::WireError("map field is not length-delimited");
    wire::Reader map(r.bytes());
    while (!map.done()) {
      auto [efield, etype] = map.tag();
      if (efield != 1) {
        map.skip(etype);
        continue;
      }
      if (etype != wire::kLengthDelimited) throw wire::WireError("map entry is not length-delimited");
      auto [key, value] = map_entry(map.bytes());
      auto it = index_of.find(key);
      if (it != index_of.end()) {
        found[it->second] = value;
        present[it->second] = true;
      }
    }
  }
}

// `bytes` with non-printable bytes, quotes and backslashes as \xNN, cut after `limit` bytes: error
// messages travel as C strings, so a NUL in a key would otherwise end the message there.
std::string escaped(std::string_view bytes, std::size_t limit) {
  std::string out;
  for (unsigned char c : bytes.substr(0, limit)) {
    if (c >= 32 && c < 127 && c != '\\' && c != '\'') {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  return bytes.size() > limit ? out + "..." : out;
}

}  // namespace

std::vector<ParsedColumn> parse_examples(const std::vector<std::string_view>& serialized,
                                         const std::vector<FeatureConfig>& config) {
  std::unordered_map<std::string_view, std::size_t> index_of;
  std::vector<ParsedColumn> columns(config.size());
  std::vector<std::int64_t> expected(config.size());
  for (std::size_t c = 0; c < config.size(); ++c) {
    const FeatureConfig& cfg = config[c];
    if (!index_of.emplace(cfg.key, c).second) {
      fail<InvalidArgumentError>("parse_example", "Duplicate feature key: {}", escaped(cfg.key));
    }
    columns[c].dtype = cfg.dtype;
    expected[c] = cfg.var_len ? -1 : num_elements(cfg.shape);
    if (!cfg.var_len) {
      const std::size_t n = serialized.size() * static_cast<std::size_t>(expected[c]);
      if (cfg.dtype == Kind::kFloat) columns[c].floats.reserve(n);
      if (cfg.dtype == Kind::kInt64) columns[c].int64s.reserve(n);
      if (cfg.dtype == Kind::kBytes) columns[c].bytes.reserve(n);
    } else {
      columns[c].row_lengths.reserve(serialized.size());
    }
  }
  std::vector<std::string_view> found(config.size());
  std::vector<bool> present(config.size());
  for (std::size_t i = 0; i < serialized.size(); ++i) {
    std::fill(present.begin(), present.end(), false);
    try {
      find_map_values(serialized[i], 1, index_of, found, present);
      for (std::size_t c = 0; c < config.size(); ++c) {
        const FeatureConfig& cfg = config[c];
        if (!present[c]) {
          if (cfg.var_len) {
            columns[c].row_lengths.push_back(0);
          } else if (cfg.has_default) {
            append_default(cfg, columns[c]);
          } else {
            fail<InvalidArgumentError>("parse_example",
                                       "Name: <unknown>, Feature: {} (data type: {}) is required "
                                       "but could not be found.",
                                       escaped(cfg.key), type_name(cfg.dtype));
          }
          continue;
        }
        const std::int64_t n = append_feature(found[c], cfg, columns[c], i);
        if (cfg.var_len) {
          columns[c].row_lengths.push_back(n);
        } else if (n != expected[c]) {
          fail<InvalidArgumentError>("parse_example",
                                     "Name: <unknown>, Key: {}, Index: {}.  Number of {} values != "
                                     "expected.  Values size: {} but output shape: {}",
                                     escaped(cfg.key), i, type_name(cfg.dtype), n, shape_string(cfg.shape));
        }
      }
    } catch (const wire::WireError&) {
      fail<InvalidArgumentError>("parse_example", "Could not parse example input, value: '{}'",
                                 escaped(serialized[i], 32));
    }
  }
  return columns;
}

std::vector<ParsedSequenceColumn> parse_sequence_feature_lists(const std::vector<std::string_view>& serialized,
                                                               const std::vector<FeatureConfig>& config) {
  std::unordered_map<std::string_view, std::size_t> index_of;
  std::vector<ParsedSequenceColumn> columns(config.size());
  for (std::size_t c = 0; c < config.size(); ++c) {
    if (!index_of.emplace(config[c].key, c).second) {
      fail<InvalidArgumentError>("parse_sequence_example", "Duplicate feature key: {}", escaped(config[c].key));
    }
    columns[c].values.dtype = config[c].dtype;
    columns[c].steps.reserve(serialized.size());
    columns[c].present.reserve(serialized.size());
  }
  std::vector<std::string_view> found(config.size());
  std::vector<bool> present(config.size());
  for (std::size_t i = 0; i < serialized.size(); ++i) {
    std::fill(present.begin(), present.end(), false);
    try {
      find_map_values(serialized[i], 2, index_of, found, present);
      for (std::size_t c = 0; c < config.size(); ++c) {
        ParsedSequenceColumn& col = columns[c];
        col.present.push_back(present[c] ? 1 : 0);
        std::int64_t steps = 0;
        if (present[c]) {
          wire::Reader list(found[c]);
          while (!list.done()) {
            auto [field, type] = list.tag();
            if (field != 1) {
              list.skip(type);
              continue;
            }
            if (type != wire::kLengthDelimited) throw wire::WireError("feature_list feature is not length-delimited");
            col.step_lengths.push_back(append_feature(list.bytes(), config[c], col.values, i));
            ++steps;
          }
        }
        col.steps.push_back(steps);
      }
    } catch (const wire::WireError&) {
      fail<InvalidArgumentError>("parse_sequence_example", "Could not parse example input, value: '{}'",
                                 escaped(serialized[i], 32));
    }
  }
  return columns;
}

}  // namespace tpustrategy::data
