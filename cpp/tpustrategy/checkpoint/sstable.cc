#include "tpustrategy/checkpoint/sstable.h"

#include <algorithm>
#include <cstring>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/data/protobuf_wire.h"
#include "tpustrategy/data/tfrecord.h"

namespace tpustrategy::checkpoint {

namespace wire = data::wire;

namespace {

// LevelDB's BlockBuilder: keys share a prefix with the previous key except at restart points.
class BlockBuilder {
 public:
  explicit BlockBuilder(int restart_interval) : interval_(restart_interval) { restarts_.push_back(0); }

  void add(std::string_view key, std::string_view value) {
    std::size_t shared = 0;
    if (counter_ < interval_) {
      const std::size_t limit = std::min(last_key_.size(), key.size());
      while (shared < limit && last_key_[shared] == key[shared]) ++shared;
    } else {
      restarts_.push_back(static_cast<std::uint32_t>(buffer_.size()));
      counter_ = 0;
    }
    wire::put_varint(buffer_, shared);
    wire::put_varint(buffer_, key.size() - shared);
    wire::put_varint(buffer_, value.size());
    buffer_.append(key.substr(shared));
    buffer_.append(value);
    last_key_.assign(key);
    ++counter_;
  }

  std::size_t size_estimate() const { return buffer_.size() + restarts_.size() * 4 + 4; }
  bool empty() const { return buffer_.empty(); }

  std::string finish() {
    std::string out = std::move(buffer_);
    for (std::uint32_t r : restarts_) wire::put_fixed32(out, r);
    wire::put_fixed32(out, static_cast<std::uint32_t>(restarts_.size()));
    buffer_.clear();
    restarts_.assign(1, 0);
    counter_ = 0;
    last_key_.clear();
    return out;
  }

 private:
  int interval_;
  int counter_ = 0;
  std::string buffer_;
  std::vector<std::uint32_t> restarts_;
  std::string last_key_;
};

// Bytewise comparator's shortening of index keys (any key in [start, limit) would do; this one is short).
void shortest_separator(std::string& start, std::string_view limit) {
  const std::size_t n = std::min(start.size(), limit.size());
  std::size_t i = 0;
  while (i < n && start[i] == limit[i]) ++i;
  if (i >= n) return;
  const auto byte = static_cast<unsigned char>(start[i]);
  if (byte < 0xff && byte + 1 < static_cast<unsigned char>(limit[i])) {
    start[i] = static_cast<char>(byte + 1);
    start.resize(i + 1);
  }
}

void short_successor(std::string& key) {
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (static_cast<unsigned char>(key[i]) != 0xff) {
      key[i] = static_cast<char>(static_cast<unsigned char>(key[i]) + 1);
      key.resize(i + 1);
      return;
    }
  }
}

std::string encode_handle(std::uint64_t offset, std::uint64_t size) {
  std::string out;
  wire::put_varint(out, offset);
  wire::put_varint(out, size);
  return out;
}

// Appends `contents` + trailer to `out`; returns the block's handle.
std::string write_block(std::string& out, const std::string& contents) {
  std::string handle = encode_handle(out.size(), contents.size());
  out.append(contents);
  const char type = 0;  // kNoCompression
  std::uint32_t crc = data::crc32c(contents);
  crc = data::crc32c(std::string_view(&type, 1), crc);
  out.push_back(type);
  wire::put_fixed32(out, data::mask_crc(crc));
  return handle;
}

[[noreturn]] void corrupt(std::string_view name, std::string_view what) {
  fail<DataLossError>("checkpoint index", "{}: corrupted table: {}", name, what);
}

struct Handle {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

Handle decode_handle(wire::Reader& reader, std::string_view name) {
  try {
    Handle h;
    h.offset = reader.varint();
    h.size = reader.varint();
    return h;
  } catch (const wire::WireError& e) {
    corrupt(name, fmt::format("bad block handle ({})", e.what()));
  }
}

// The checked contents of the block at `h` (without its trailer).
std::string_view read_block(std::string_view file, Handle h, std::string_view name) {
  const std::uint64_t end = file.size();
  if (h.offset > end || h.size > end - h.offset || kBlockTrailerBytes > end - h.offset - h.size) {
    corrupt(name,
            fmt::format("block at offset {} of size {} is past the end of the {}-byte file", h.offset, h.size, end));
  }
  std::string_view contents = file.substr(h.offset, h.size + 1);  // with the type byte
  std::uint32_t stored;
  std::memcpy(&stored, file.data() + h.offset + h.size + 1, 4);
  if (data::unmask_crc(stored) != data::crc32c(contents)) {
    corrupt(name, fmt::format("block checksum mismatch at offset {}", h.offset));
  }
  const auto type = static_cast<unsigned char>(contents.back());
  if (type != 0) {
    corrupt(name, fmt::format("block at offset {} has compression type {} (only uncompressed blocks are read)",
                              h.offset, static_cast<int>(type)));
  }
  return contents.substr(0, h.size);
}

// Appends the block's entries to `out`, checking that keys keep increasing.
void parse_block(std::string_view block, TableEntries& out, std::string_view name) {
  if (block.size() < 4) corrupt(name, "block shorter than its restart count");
  std::uint32_t num_restarts;
  std::memcpy(&num_restarts, block.data() + block.size() - 4, 4);
  const std::uint64_t restart_bytes = (std::uint64_t{num_restarts} + 1) * 4;
  if (num_restarts == 0 || restart_bytes > block.size()) corrupt(name, "bad restart count");
  wire::Reader reader(block.substr(0, block.size() - restart_bytes));
  std::string key;
  bool first = true;
  try {
    while (!reader.done()) {
      const std::uint64_t shared = reader.varint();
      const std::uint64_t non_shared = reader.varint();
      const std::uint64_t value_size = reader.varint();
      if (shared > key.size() || (first && shared != 0)) corrupt(name, "entry shares more bytes than its predecessor");
      std::string_view rest = reader.raw(non_shared);
      std::string_view value = reader.raw(value_size);
      key.resize(shared);
      key.append(rest);
      if (!out.empty() && !(out.back().first < key)) corrupt(name, "keys out of order");
      out.emplace_back(key, std::string(value));
      first = false;
    }
  } catch (const wire::WireError& e) {
    corrupt(name, fmt::format("bad block entry ({})", e.what()));
  }
}

}  // namespace

std::string build_table(const TableEntries& entries, std::size_t block_bytes, int restart_interval) {
  if (restart_interval < 1) fail<InvalidArgumentError>("build_table", "restart_interval must be >= 1");
  std::string out;
  BlockBuilder data_block(restart_interval);
  BlockBuilder index_block(1);
  std::string pending_handle;
  std::string last_key;
  bool pending = false;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& [key, value] = entries[i];
    if (i > 0 && !(last_key < key)) {
      fail<InvalidArgumentError>("build_table", "keys must be strictly increasing: '{}' follows '{}'", key, last_key);
    }
    if (pending) {
      shortest_separator(last_key, key);
      index_block.add(last_key, pending_handle);
      pending = false;
    }
    data_block.add(key, value);
    last_key = key;
    if (data_block.size_estimate() >= block_bytes) {
      pending_handle = write_block(out, data_block.finish());
      pending = true;
    }
  }
  if (!data_block.empty()) {
    pending_handle = write_block(out, data_block.finish());
    pending = true;
  }
  const std::string metaindex_handle = write_block(out, BlockBuilder(restart_interval).finish());
  if (pending) {
    short_successor(last_key);
    index_block.add(last_key, pending_handle);
  }
  const std::string index_handle = write_block(out, index_block.finish());
  std::string footer = metaindex_handle + index_handle;
  footer.resize(kFooterBytes - 8, '\0');
  wire::put_fixed64(footer, kTableMagic);
  out.append(footer);
  return out;
}

TableEntries parse_table(std::string_view bytes, std::string_view name) {
  if (bytes.size() < kFooterBytes) {
    corrupt(name, fmt::format("{} bytes is too short to be a table", bytes.size()));
  }
  std::string_view footer = bytes.substr(bytes.size() - kFooterBytes);
  std::uint64_t magic;
  std::memcpy(&magic, footer.data() + kFooterBytes - 8, 8);
  if (magic != kTableMagic) corrupt(name, "not an sstable (bad magic number)");
  wire::Reader footer_reader(footer.substr(0, kFooterBytes - 8));
  decode_handle(footer_reader, name);  // the metaindex: TF's tables have no meta blocks we need
  const Handle index = decode_handle(footer_reader, name);
  TableEntries index_entries;
  parse_block(read_block(bytes, index, name), index_entries, name);
  TableEntries entries;
  for (const auto& [separator, handle_bytes] : index_entries) {
    wire::Reader reader(handle_bytes);
    const Handle h = decode_handle(reader, name);
    const std::size_t before = entries.size();
    parse_block(read_block(bytes, h, name), entries, name);
    if (entries.size() > before && separator < entries.back().first) {
      corrupt(name, "index key is below its block's last key");
    }
  }
  return entries;
}

}  // namespace tpustrategy::checkpoint
