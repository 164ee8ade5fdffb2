#include "tpustrategy/tpu/topology_proto.h"

#include "tpustrategy/core/errors.h"

namespace tpustrategy::detail {
namespace {

constexpr const char* kWhere = "Topology";

enum WireType : int { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5 };

constexpr int kMaxGroupDepth = 64;  // protobuf's default recursion limit is 100; topologies nest nothing

void put_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

// int32 is encoded as its sign-extended 64-bit value, so negatives take 10 bytes.
void put_int32(std::string& out, std::int32_t value) {
  put_varint(out, static_cast<std::uint64_t>(static_cast<std::int64_t>(value)));
}

void put_tag(std::string& out, int field, WireType wire) {
  put_varint(out, (static_cast<std::uint64_t>(field) << 3) | wire);
}

void put_packed(std::string& out, int field, const std::vector<std::int32_t>& values) {
  if (values.empty()) return;
  std::string payload;
  for (std::int32_t v : values) put_int32(payload, v);
  put_tag(out, field, kLengthDelimited);
  put_varint(out, payload.size());
  out += payload;
}

// A bounds-checked cursor over the input; every read names the offset it failed at.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}

  bool done() const { return pos_ == bytes_.size(); }
  std::size_t pos() const { return pos_; }
  std::size_t remaining() const { return bytes_.size() - pos_; }

  std::uint64_t varint(const char* what) {
    const std::size_t start = pos_;
    std::uint64_t value = 0;
    for (int i = 0; i < 10; ++i) {
      if (pos_ == bytes_.size()) {
        fail<ValueError>(kWhere, "malformed TopologyProto: truncated varint ({}) at byte {}", what, start);
      }
      const auto byte = static_cast<std::uint8_t>(bytes_[pos_++]);
      value |= static_cast<std::uint64_t>(byte & 0x7F) << (7 * i);
      if ((byte & 0x80) == 0) return value;
    }
    fail<ValueError>(kWhere,
                     "malformed TopologyProto: varint ({}) at byte {} is "
                     "longer than 10 bytes",
                     what, start);
  }

  void skip(std::uint64_t count, const char* what) {
    if (count > remaining()) {
      fail<ValueError>(kWhere,
                       "malformed TopologyProto: {} of {} bytes at byte {} "
                       "runs past the end ({} bytes left)",
                       what, count, pos_, remaining());
    }
    pos_ += static_cast<std::size_t>(count);
  }

  // The next `count` bytes as a sub-reader (a length-delimited payload).
  Reader sub(std::uint64_t count, const char* what) {
    const std::size_t start = pos_;
    skip(count, what);
    return Reader(bytes_.substr(start, static_cast<std::size_t>(count)));
  }

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

struct Tag {
  std::uint64_t field;
  int wire;
};

Tag read_tag(Reader& in) {
  const std::size_t at = in.pos();
  const std::uint64_t tag = in.varint("field tag");
  const Tag result{tag >> 3, static_cast<int>(tag & 7)};
  if (tag > 0xFFFFFFFFu || result.field == 0) {
    fail<ValueError>(kWhere, "malformed TopologyProto: invalid field number {} at byte {}", result.field, at);
  }
  if (result.wire > kFixed32) {
    fail<ValueError>(kWhere, "malformed TopologyProto: invalid wire type {} at byte {}", result.wire, at);
  }
  return result;
}

void skip_field(Reader& in, const Tag& tag, int depth) {
  switch (tag.wire) {
    case kVarint:
      in.varint("unknown field");
      return;
    case kFixed64:
      in.skip(8, "fixed64 field");
      return;
    case kFixed32:
      in.skip(4, "fixed32 field");
      return;
    case kLengthDelimited:
      in.skip(in.varint("field length"), "length-delimited field");
      return;
    case kStartGroup: {
      if (depth >= kMaxGroupDepth) fail<ValueError>(kWhere, "malformed TopologyProto: groups nested too deeply");
      while (true) {
        if (in.done()) fail<ValueError>(kWhere, "malformed TopologyProto: unterminated group {}", tag.field);
        const Tag inner = read_tag(in);
        if (inner.wire == kEndGroup) {
          if (inner.field != tag.field) {
            fail<ValueError>(kWhere, "malformed TopologyProto: group {} closed by end-group {}", tag.field,
                             inner.field);
          }
          return;
        }
        skip_field(in, inner, depth + 1);
      }
    }
    default:  // kEndGroup outside a group
      fail<ValueError>(kWhere, "malformed TopologyProto: unexpected end-group {} at byte {}", tag.field, in.pos());
  }
}

void read_repeated_int32(Reader& in, const Tag& tag, const char* name, std::vector<std::int32_t>& out) {
  if (tag.wire == kVarint) {
    out.push_back(static_cast<std::int32_t>(in.varint(name)));
  } else if (tag.wire == kLengthDelimited) {
    Reader packed = in.sub(in.varint("packed length"), name);
    while (!packed.done()) out.push_back(static_cast<std::int32_t>(packed.varint(name)));
  } else {
    fail<ValueError>(kWhere,
                     "malformed TopologyProto: field {} ({}) has wire type {}, "
                     "expected varint or packed",
                     tag.field, name, tag.wire);
  }
}

std::int32_t read_int32(Reader& in, const Tag& tag, const char* name) {
  if (tag.wire != kVarint) {
    fail<ValueError>(kWhere,
                     "malformed TopologyProto: field {} ({}) has wire type {}, "
                     "expected varint",
                     tag.field, name, tag.wire);
  }
  return static_cast<std::int32_t>(in.varint(name));
}

}  // namespace

std::string serialize_topology_proto(const TopologyProto& proto) {
  std::string out;
  put_packed(out, 1, proto.mesh_shape);
  if (proto.num_tasks != 0) {
    put_tag(out, 2, kVarint);
    put_int32(out, proto.num_tasks);
  }
  if (proto.num_tpu_devices_per_task != 0) {
    put_tag(out, 3, kVarint);
    put_int32(out, proto.num_tpu_devices_per_task);
  }
  put_packed(out, 4, proto.device_coordinates);
  return out;
}

TopologyProto parse_topology_proto(std::string_view bytes) {
  TopologyProto proto;
  Reader in(bytes);
  while (!in.done()) {
    const Tag tag = read_tag(in);
    switch (tag.field) {
      case 1:
        read_repeated_int32(in, tag, "mesh_shape", proto.mesh_shape);
        break;
      case 2:
        proto.num_tasks = read_int32(in, tag, "num_tasks");
        break;
      case 3:
        proto.num_tpu_devices_per_task = read_int32(in, tag, "num_tpu_devices_per_task");
        break;
      case 4:
        read_repeated_int32(in, tag, "device_coordinates", proto.device_coordinates);
        break;
      default:
        skip_field(in, tag, 0);
    }
  }
  return proto;
}

}  // namespace tpustrategy::detail
