#pragma once
// TensorFlow's checkpoint files ("TensorBundle"): `<prefix>.index`, a sorted table (sstable.h) whose
// entry "" is a BundleHeaderProto (num_shards, endianness, version) and whose other entries map each
// tensor's key to a BundleEntryProto (dtype, shape, shard_id, offset, size, masked CRC32C of the
// bytes), and `<prefix>.data-<shard>-of-<num_shards>` holding the tensors' bytes: numbers raw little
// endian, strings as varint64 lengths, the masked CRC32C of the lengths (each as a little-endian uint32),
// then the bytes.
//
// The writer writes the data file, then the index, each crash-safely (a temporary file, fsync,
// rename): a killed save leaves the previous checkpoint intact and no index naming missing data.
// The reader checks every length, offset and CRC: corrupt files end in DataLossError, missing ones
// in NotFoundError, as TF's BundleReader.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tpustrategy::checkpoint {

inline constexpr int kDtString = 7;  // tensorflow DataType DT_STRING

// The element size of a numeric TF DataType, 0 for DT_STRING and types this reader cannot read.
std::size_t tf_dtype_size(int dtype);

struct BundleEntry {
  int dtype = 0;
  std::vector<std::int64_t> shape;
  std::int32_t shard_id = 0;
  std::int64_t offset = 0;
  std::int64_t size = 0;
  std::uint32_t masked_crc32c = 0;
  bool has_slices = false;  // a partitioned variable's slices (not supported on read)
};

std::string encode_bundle_entry(const BundleEntry& entry);
// Throws DataLossError (naming `key`) for malformed bytes.
BundleEntry decode_bundle_entry(std::string_view bytes, std::string_view key);
std::string encode_bundle_header(std::int32_t num_shards);

// "<prefix>.index" and "<prefix>.data-00000-of-00001".
std::string index_path(std::string_view prefix);
std::string data_path(std::string_view prefix, std::int32_t shard, std::int32_t num_shards);

class BundleWriter {
 public:
  explicit BundleWriter(std::string prefix);

  // A numeric tensor: `bytes` are its elements, little endian. Throws InvalidArgumentError when
  // the key repeats, or the size does not match the dtype and shape.
  void add(const std::string& key, int dtype, const std::vector<std::int64_t>& shape, std::string_view bytes);
  // A DT_STRING tensor.
  void add_strings(const std::string& key, const std::vector<std::int64_t>& shape,
                   const std::vector<std::string>& strings);
  // Writes the data file and then the index (each crash-safe). Throws NotFoundError when the
  // directory is missing, DataLossError when a write fails.
  void finish();

 private:
  std::string prefix_;
  std::string data_;
  std::map<std::string, BundleEntry> entries_;
};

class BundleReader {
 public:
  // Reads and checks the index. Throws NotFoundError when `<prefix>.index` does not exist,
  // DataLossError when it is corrupt, UnimplementedError for a big-endian bundle.
  explicit BundleReader(std::string prefix);

  const std::map<std::string, BundleEntry>& entries() const { return entries_; }
  bool contains(const std::string& key) const { return entries_.contains(key); }
  // Throws NotFoundError naming the key when absent.
  const BundleEntry& entry(const std::string& key) const;
  // The bytes of a numeric tensor (CRC checked). Throws DataLossError on a mismatch or a short
  // data file, UnimplementedError for sliced entries and unknown dtypes.
  std::string read(const std::string& key) const;
  // The elements of a DT_STRING tensor (both CRCs checked).
  std::vector<std::string> read_strings(const std::string& key) const;
  const std::string& prefix() const { return prefix_; }

 private:
  std::string read_region(const BundleEntry& entry, const std::string& key, bool check_crc) const;

  std::string prefix_;
  std::int32_t num_shards_ = 1;
  std::map<std::string, BundleEntry> entries_;
};

// Writes `bytes` to `path` crash-safely (temporary file, fsync, rename; data/atomic_file.h).
void write_file_atomically(const std::string& path, std::string_view bytes, const char* where);

// Reads a whole file (for the index and the fuzz harness's callers). Throws NotFoundError.
std::string read_file(const std::string& path, const char* where);

// Parses index bytes: the header checks and every entry (the fuzz harness's entry point).
// Returns the entries; num_shards is set from the header.
std::map<std::string, BundleEntry> parse_index(std::string_view bytes, std::string_view name, std::int32_t& num_shards);

}  // namespace tpustrategy::checkpoint
