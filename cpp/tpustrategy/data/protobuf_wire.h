#pragma once
// The few protobuf wire-format primitives the Example, event and checkpoint codecs need: varints, tags,
// length-delimited fields. The reader checks every length against the bytes left, so malformed input ends in a
// WireError (turned into InvalidArgumentError by the callers), never an out-of-bounds read.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tpustrategy::data::wire {

enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

struct WireError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Reader {
 public:
  explicit Reader(std::string_view bytes) : p_(bytes.data()), end_(bytes.data() + bytes.size()) {}

  bool done() const { return p_ == end_; }

  std::uint64_t varint() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) throw WireError("truncated varint");
      const auto byte = static_cast<unsigned char>(*p_++);
      value |= std::uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80u) == 0) return value;
    }
    throw WireError("varint longer than 10 bytes");
  }

  // (field number, wire type) of the next field.
  std::pair<std::uint32_t, std::uint32_t> tag() {
    const std::uint64_t t = varint();
    const auto field = static_cast<std::uint32_t>(t >> 3);
    if (field == 0 || t >> 32 != 0) throw WireError("invalid field number");
    return {field, static_cast<std::uint32_t>(t & 7u)};
  }

  std::string_view bytes() {
    const std::uint64_t n = varint();
    if (n > static_cast<std::uint64_t>(end_ - p_)) throw WireError("length past the end of the input");
    std::string_view out(p_, static_cast<std::size_t>(n));
    p_ += n;
    return out;
  }

  // The next n bytes as they are.
  std::string_view raw(std::uint64_t n) {
    if (n > static_cast<std::uint64_t>(end_ - p_)) throw WireError("length past the end of the input");
    std::string_view out(p_, static_cast<std::size_t>(n));
    p_ += n;
    return out;
  }

  std::uint64_t fixed64() {
    if (end_ - p_ < 8) throw WireError("truncated fixed64");
    std::uint64_t v;
    std::memcpy(&v, p_, 8);
    p_ += 8;
    return v;
  }

  std::uint32_t fixed32() {
    if (end_ - p_ < 4) throw WireError("truncated fixed32");
    std::uint32_t v;
    std::memcpy(&v, p_, 4);  // little endian on every supported target
    p_ += 4;
    return v;
  }

  void skip(std::uint32_t wire_type) {
    switch (wire_type) {
      case kVarint:
        varint();
        return;
      case kFixed64:
        if (end_ - p_ < 8) throw WireError("truncated fixed64");
        p_ += 8;
        return;
      case kLengthDelimited:
        bytes();
        return;
      case kFixed32:
        fixed32();
        return;
      default:
        throw WireError("unsupported wire type (groups or invalid)");
    }
  }

 private:
  const char* p_;
  const char* end_;
};

inline void put_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80u) {
    out.push_back(static_cast<char>((value & 0x7fu) | 0x80u));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

inline std::size_t varint_size(std::uint64_t value) {
  std::size_t n = 1;
  while (value >= 0x80u) {
    value >>= 7;
    ++n;
  }
  return n;
}

inline void put_tag(std::string& out, std::uint32_t field, std::uint32_t wire_type) {
  put_varint(out, (std::uint64_t{field} << 3) | wire_type);
}

inline void put_bytes(std::string& out, std::uint32_t field, std::string_view bytes) {
  put_tag(out, field, kLengthDelimited);
  put_varint(out, bytes.size());
  out.append(bytes);
}

inline void put_fixed32(std::string& out, std::uint32_t value) {
  char raw[4];
  std::memcpy(raw, &value, 4);  // little endian on every supported target
  out.append(raw, 4);
}

inline void put_fixed64(std::string& out, std::uint64_t value) {
  char raw[8];
  std::memcpy(raw, &value, 8);
  out.append(raw, 8);
}

inline void put_varint_field(std::string& out, std::uint32_t field, std::uint64_t value) {
  put_tag(out, field, kVarint);
  put_varint(out, value);
}

inline void put_double_field(std::string& out, std::uint32_t field, double value) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, 8);
  put_tag(out, field, kFixed64);
  put_fixed64(out, bits);
}

}  // namespace tpustrategy::data::wire
