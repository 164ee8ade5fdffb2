// Field numbers are TF's tensor_bundle.proto, tensor_shape.proto and versions.proto.
#include "tpustrategy/checkpoint/tensor_bundle.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "tpustrategy/checkpoint/sstable.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/data/atomic_file.h"
#include "tpustrategy/data/protobuf_wire.h"
#include "tpustrategy/data/tfrecord.h"

namespace tpustrategy::checkpoint {

namespace wire = data::wire;

namespace {

constexpr std::int64_t kMaxElements = std::int64_t{1} << 50;

[[noreturn]] void data_loss(std::string_view where, std::string_view what) {
  throw DataLossError(fmt::format("[{}] {}", where, what));
}

// Number of elements of `shape`, or -1 when a dimension is negative or the product is absurd.
std::int64_t num_elements(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0 || (d > 0 && n > kMaxElements / d)) return -1;
    n *= d;
  }
  return n;
}

std::string encode_shape(const std::vector<std::int64_t>& shape) {
  std::string out;
  for (std::int64_t d : shape) {
    std::string dim;
    if (d != 0) wire::put_varint_field(dim, 1, static_cast<std::uint64_t>(d));
    wire::put_bytes(out, 2, dim);
  }
  return out;
}

std::vector<std::int64_t> decode_shape(std::string_view bytes) {
  std::vector<std::int64_t> shape;
  wire::Reader reader(bytes);
  while (!reader.done()) {
    auto [field, type] = reader.tag();
    if (field == 2 && type == wire::kLengthDelimited) {
      wire::Reader dim(reader.bytes());
      std::int64_t size = 0;
      while (!dim.done()) {
        auto [f, t] = dim.tag();
        if (f == 1 && t == wire::kVarint) {
          size = static_cast<std::int64_t>(dim.varint());
        } else {
          dim.skip(t);
        }
      }
      shape.push_back(size);
    } else if (field == 3 && type == wire::kVarint) {
      if (reader.varint() != 0) throw wire::WireError("unknown rank");
    } else {
      reader.skip(type);
    }
  }
  return shape;
}

// TF's string tensors checksum each length as a little-endian uint32 (uint64 past 4 GiB), not as the
// varint bytes on disk.
std::uint32_t extend_with_length(std::uint32_t crc, std::uint64_t length) {
  char raw[8];
  std::memcpy(raw, &length, 8);
  return data::crc32c(std::string_view(raw, length <= 0xffffffffu ? 4 : 8), crc);
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

}  // namespace

std::size_t tf_dtype_size(int dtype) {
  // Grouped by element size (TF DataType enum values).
  switch (dtype) {
    case 4:   // DT_UINT8
    case 6:   // DT_INT8
    case 10:  // DT_BOOL
      return 1;
    case 5:   // DT_INT16
    case 14:  // DT_BFLOAT16
    case 17:  // DT_UINT16
    case 19:  // DT_HALF
      return 2;
    case 1:   // DT_FLOAT
    case 3:   // DT_INT32
    case 22:  // DT_UINT32
      return 4;
    case 2:   // DT_DOUBLE
    case 8:   // DT_COMPLEX64
    case 9:   // DT_INT64
    case 23:  // DT_UINT64
      return 8;
    case 18:  // DT_COMPLEX128
      return 16;
    default:
      return 0;
  }
}

std::string encode_bundle_entry(const BundleEntry& e) {
  std::string out;
  if (e.dtype != 0) wire::put_varint_field(out, 1, static_cast<std::uint64_t>(e.dtype));
  wire::put_bytes(out, 2, encode_shape(e.shape));
  if (e.shard_id != 0) wire::put_varint_field(out, 3, static_cast<std::uint64_t>(e.shard_id));
  if (e.offset != 0) wire::put_varint_field(out, 4, static_cast<std::uint64_t>(e.offset));
  if (e.size != 0) wire::put_varint_field(out, 5, static_cast<std::uint64_t>(e.size));
  if (e.masked_crc32c != 0) {
    wire::put_tag(out, 6, wire::kFixed32);
    wire::put_fixed32(out, e.masked_crc32c);
  }
  return out;
}

BundleEntry decode_bundle_entry(std::string_view bytes, std::string_view key) {
  BundleEntry e;
  try {
    wire::Reader reader(bytes);
    while (!reader.done()) {
      auto [field, type] = reader.tag();
      if (field == 1 && type == wire::kVarint) {
        e.dtype = static_cast<int>(reader.varint());
      } else if (field == 2 && type == wire::kLengthDelimited) {
        e.shape = decode_shape(reader.bytes());
      } else if (field == 3 && type == wire::kVarint) {
        e.shard_id = static_cast<std::int32_t>(reader.varint());
      } else if (field == 4 && type == wire::kVarint) {
        e.offset = static_cast<std::int64_t>(reader.varint());
      } else if (field == 5 && type == wire::kVarint) {
        e.size = static_cast<std::int64_t>(reader.varint());
      } else if (field == 6 && type == wire::kFixed32) {
        e.masked_crc32c = reader.fixed32();
      } else if (field == 7) {
        e.has_slices = true;
        reader.skip(type);
      } else {
        reader.skip(type);
      }
    }
  } catch (const wire::WireError& err) {
    data_loss("BundleReader", fmt::format("bad BundleEntryProto for key \"{}\": {}", key, err.what()));
  }
  if (e.offset < 0 || e.size < 0 || e.shard_id < 0 || num_elements(e.shape) < 0) {
    data_loss("BundleReader", fmt::format("bad BundleEntryProto for key \"{}\": offset {}, size {}, shard {}, shape {}",
                                          key, e.offset, e.size, e.shard_id, shape_text(e.shape)));
  }
  return e;
}

std::string encode_bundle_header(std::int32_t num_shards) {
  std::string version;
  wire::put_varint_field(version, 1, 1);  // producer = kTensorBundleVersion; min_consumer 0 is the default
  std::string out;
  wire::put_varint_field(out, 1, static_cast<std::uint64_t>(num_shards));
  wire::put_bytes(out, 3, version);  // endianness LITTLE (0) is the default
  return out;
}

std::string index_path(std::string_view prefix) { return std::string(prefix) + ".index"; }

std::string data_path(std::string_view prefix, std::int32_t shard, std::int32_t num_shards) {
  return fmt::format("{}.data-{:05d}-of-{:05d}", prefix, shard, num_shards);
}

BundleWriter::BundleWriter(std::string prefix) : prefix_(std::move(prefix)) {
  data::check_file_path(prefix_, "BundleWriter");
}

void BundleWriter::add(const std::string& key, int dtype, const std::vector<std::int64_t>& shape,
                       std::string_view bytes) {
  if (key.empty()) fail<InvalidArgumentError>("BundleWriter", "the empty key is reserved for the header");
  if (entries_.contains(key)) fail<InvalidArgumentError>("BundleWriter", "duplicate tensor key \"{}\"", key);
  const std::size_t element = tf_dtype_size(dtype);
  const std::int64_t n = num_elements(shape);
  if (element == 0 || n < 0 || static_cast<std::uint64_t>(n) * element != bytes.size()) {
    fail<InvalidArgumentError>("BundleWriter", "tensor \"{}\": {} bytes do not fit dtype {} and shape {}", key,
                               bytes.size(), dtype, shape_text(shape));
  }
  BundleEntry e{dtype,
                shape,
                0,
                static_cast<std::int64_t>(data_.size()),
                static_cast<std::int64_t>(bytes.size()),
                data::mask_crc(data::crc32c(bytes)),
                false};
  data_.append(bytes);
  entries_.emplace(key, std::move(e));
}

void BundleWriter::add_strings(const std::string& key, const std::vector<std::int64_t>& shape,
                               const std::vector<std::string>& strings) {
  if (key.empty()) fail<InvalidArgumentError>("BundleWriter", "the empty key is reserved for the header");
  if (entries_.contains(key)) fail<InvalidArgumentError>("BundleWriter", "duplicate tensor key \"{}\"", key);
  if (num_elements(shape) != static_cast<std::int64_t>(strings.size())) {
    fail<InvalidArgumentError>("BundleWriter", "tensor \"{}\": {} strings do not fit shape {}", key, strings.size(),
                               shape_text(shape));
  }
  std::string region;
  std::uint32_t crc = 0;
  for (const std::string& s : strings) {
    wire::put_varint(region, s.size());
    crc = extend_with_length(crc, s.size());
  }
  const std::uint32_t lengths_crc = data::mask_crc(crc);
  const std::size_t checksum_at = region.size();
  wire::put_fixed32(region, lengths_crc);
  crc = data::crc32c(std::string_view(region).substr(checksum_at), crc);
  for (const std::string& s : strings) {
    region.append(s);
    crc = data::crc32c(s, crc);
  }
  BundleEntry e{
      kDtString,           shape, 0, static_cast<std::int64_t>(data_.size()), static_cast<std::int64_t>(region.size()),
      data::mask_crc(crc), false};
  data_.append(region);
  entries_.emplace(key, std::move(e));
}

void write_file_atomically(const std::string& path, std::string_view bytes, const char* where) {
  data::AtomicFile file(path, where);
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), file.file()) != bytes.size()) {
    fail<DataLossError>(where, "{}: short write", path);
  }
  file.commit();
}

void BundleWriter::finish() {
  TableEntries table;
  table.emplace_back("", encode_bundle_header(1));
  for (const auto& [key, entry] : entries_) table.emplace_back(key, encode_bundle_entry(entry));
  const std::string index = build_table(table);
  // The data first: an index on disk always names data that is there.
  write_file_atomically(data_path(prefix_, 0, 1), data_, "BundleWriter");
  write_file_atomically(index_path(prefix_), index, "BundleWriter");
}

std::string read_file(const std::string& path, const char* where) {
  data::check_file_path(path, where);
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) data::fail_file_error(where, path, "reading", errno);
  std::string out;
  try {
    data::check_not_directory(file, path, where);
    char buffer[1 << 16];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) out.append(buffer, n);
    if (std::ferror(file)) fail<DataLossError>(where, "{}: read error", path);
  } catch (...) {
    std::fclose(file);
    throw;
  }
  std::fclose(file);
  return out;
}

std::map<std::string, BundleEntry> parse_index(std::string_view bytes, std::string_view name,
                                               std::int32_t& num_shards) {
  TableEntries table = parse_table(bytes, name);
  if (table.empty() || !table.front().first.empty())
    data_loss("BundleReader", fmt::format("{}: no bundle header", name));
  num_shards = 1;
  std::uint64_t endianness = 0, producer = 0, min_consumer = 0;
  try {
    wire::Reader reader(table.front().second);
    num_shards = 0;
    while (!reader.done()) {
      auto [field, type] = reader.tag();
      if (field == 1 && type == wire::kVarint) {
        num_shards = static_cast<std::int32_t>(reader.varint());
      } else if (field == 2 && type == wire::kVarint) {
        endianness = reader.varint();
      } else if (field == 3 && type == wire::kLengthDelimited) {
        wire::Reader version(reader.bytes());
        while (!version.done()) {
          auto [f, t] = version.tag();
          if (f == 1 && t == wire::kVarint) {
            producer = version.varint();
          } else if (f == 2 && t == wire::kVarint) {
            min_consumer = version.varint();
          } else {
            version.skip(t);
          }
        }
      } else {
        reader.skip(type);
      }
    }
  } catch (const wire::WireError& err) {
    data_loss("BundleReader", fmt::format("{}: bad BundleHeaderProto: {}", name, err.what()));
  }
  if (num_shards < 1 || num_shards > 100000) {
    data_loss("BundleReader", fmt::format("{}: bad shard count {} in the bundle header", name, num_shards));
  }
  if (endianness != 0) {
    fail<UnimplementedError>("BundleReader", "{}: big-endian checkpoints are not supported", name);
  }
  if (min_consumer > 1 || producer > (std::uint64_t{1} << 31)) {
    fail<InvalidArgumentError>("BundleReader", "{}: checkpoint version (producer {}, min consumer {}) is newer than 1",
                               name, producer, min_consumer);
  }
  std::map<std::string, BundleEntry> entries;
  for (std::size_t i = 1; i < table.size(); ++i) {
    BundleEntry e = decode_bundle_entry(table[i].second, table[i].first);
    if (e.shard_id >= num_shards) {
      data_loss("BundleReader",
                fmt::format("{}: key \"{}\" names shard {} of {}", name, table[i].first, e.shard_id, num_shards));
    }
    entries.emplace(std::move(table[i].first), std::move(e));
  }
  return entries;
}

BundleReader::BundleReader(std::string prefix) : prefix_(std::move(prefix)) {
  data::check_file_path(prefix_, "BundleReader");
  const std::string path = index_path(prefix_);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    fail<NotFoundError>("BundleReader",
                        "Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {}",
                        prefix_);
  }
  entries_ = parse_index(read_file(path, "BundleReader"), path, num_shards_);
}

const BundleEntry& BundleReader::entry(const std::string& key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) fail<NotFoundError>("BundleReader", "Key {} not found in checkpoint", key);
  return it->second;
}

std::string BundleReader::read_region(const BundleEntry& e, const std::string& key, bool check_crc) const {
  if (e.has_slices) fail<UnimplementedError>("BundleReader", "tensor \"{}\" is saved in slices (partitioned)", key);
  const std::string path = data_path(prefix_, e.shard_id, num_shards_);
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) data::fail_file_error("BundleReader", path, "reading", errno);
  std::string out;
  bool ok = std::fseek(file, 0, SEEK_END) == 0;
  const long size = ok ? std::ftell(file) : -1;
  ok = size >= 0 && static_cast<std::uint64_t>(e.offset) <= static_cast<std::uint64_t>(size) &&
       static_cast<std::uint64_t>(e.size) <= static_cast<std::uint64_t>(size) - static_cast<std::uint64_t>(e.offset);
  if (ok) {
    out.resize(static_cast<std::size_t>(e.size));
    ok = std::fseek(file, static_cast<long>(e.offset), SEEK_SET) == 0 &&
         std::fread(out.data(), 1, out.size(), file) == out.size();
  }
  std::fclose(file);
  if (!ok) {
    data_loss("BundleReader", fmt::format("{}: tensor \"{}\" (offset {}, size {}) is past the end of the data file",
                                          path, key, e.offset, e.size));
  }
  const std::uint32_t actual = check_crc ? data::crc32c(out) : 0;
  if (check_crc && data::unmask_crc(e.masked_crc32c) != actual) {
    data_loss("BundleReader", fmt::format("Checksum does not match: stored {} vs. calculated on the restored bytes {} "
                                          "(tensor \"{}\" in {})",
                                          data::unmask_crc(e.masked_crc32c), actual, key, path));
  }
  return out;
}

std::string BundleReader::read(const std::string& key) const {
  const BundleEntry& e = entry(key);
  const std::size_t element = tf_dtype_size(e.dtype);
  if (e.dtype == kDtString) fail<InvalidArgumentError>("BundleReader", "tensor \"{}\" is a string tensor", key);
  if (element == 0) fail<UnimplementedError>("BundleReader", "tensor \"{}\" has unsupported dtype {}", key, e.dtype);
  if (static_cast<std::uint64_t>(num_elements(e.shape)) * element != static_cast<std::uint64_t>(e.size)) {
    data_loss("BundleReader", fmt::format("tensor \"{}\": size {} does not match dtype {} and shape {}", key, e.size,
                                          e.dtype, shape_text(e.shape)));
  }
  return read_region(e, key, true);
}

std::vector<std::string> BundleReader::read_strings(const std::string& key) const {
  const BundleEntry& e = entry(key);
  if (e.dtype != kDtString) fail<InvalidArgumentError>("BundleReader", "tensor \"{}\" is not a string tensor", key);
  const std::int64_t n = num_elements(e.shape);
  if (n > e.size) data_loss("BundleReader", fmt::format("tensor \"{}\": {} strings in {} bytes", key, n, e.size));
  const std::string region = read_region(e, key, false);  // checked below, the way TF computes it
  wire::Reader reader(region);
  std::vector<std::uint64_t> lengths;
  std::vector<std::string> out;
  std::uint32_t crc = 0;
  try {
    for (std::int64_t i = 0; i < n; ++i) {
      lengths.push_back(reader.varint());
      crc = extend_with_length(crc, lengths.back());
    }
    const std::string_view checksum = reader.raw(4);
    std::uint32_t stored;
    std::memcpy(&stored, checksum.data(), 4);
    if (stored != data::mask_crc(crc)) {
      data_loss("BundleReader", fmt::format("tensor \"{}\": the length checksum does not match", key));
    }
    crc = data::crc32c(checksum, crc);
    for (std::uint64_t length : lengths) {
      out.emplace_back(reader.raw(length));
      crc = data::crc32c(out.back(), crc);
    }
  } catch (const wire::WireError& err) {
    data_loss("BundleReader", fmt::format("tensor \"{}\": malformed string tensor ({})", key, err.what()));
  }
  if (!reader.done() || data::unmask_crc(e.masked_crc32c) != crc) {
    data_loss("BundleReader", fmt::format("Checksum does not match: tensor \"{}\" (string) in {}", key,
                                          data_path(prefix_, e.shard_id, num_shards_)));
  }
  return out;
}

}  // namespace tpustrategy::checkpoint
