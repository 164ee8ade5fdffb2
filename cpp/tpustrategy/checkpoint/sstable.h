#pragma once
// The immutable sorted-table format of TensorFlow's checkpoint index files (LevelDB's table format,
// which TF keeps its own copy of in tensorflow/core/lib/io): data blocks of prefix-compressed entries
// with restart points, each block followed by a 1-byte compression type and a masked CRC32C of
// (contents + type); then an empty metaindex block, an index block (one entry per data block: a key
// >= the block's last key and < the next block's first, and the block's BlockHandle = varint64 offset,
// varint64 size), and a 48-byte footer: the metaindex and index handles, zero padding to 40 bytes, and
// the magic number 0xdb4775248b80fb57 (little endian).
//
// parse_table checks every offset, length, CRC and the key order against the bytes that are there, so
// corrupt input ends in DataLossError (naming the file), never an out-of-bounds read or a huge
// allocation; only uncompressed blocks are read (TF writes checkpoint indexes uncompressed).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tpustrategy::checkpoint {

using TableEntries = std::vector<std::pair<std::string, std::string>>;

inline constexpr std::uint64_t kTableMagic = 0xdb4775248b80fb57ull;
inline constexpr std::size_t kFooterBytes = 48;
inline constexpr std::size_t kBlockTrailerBytes = 5;
inline constexpr std::size_t kDefaultBlockBytes = 262144;  // TF's table::Options::block_size
inline constexpr int kDefaultRestartInterval = 16;

// The bytes of a table holding `entries`, whose keys must be strictly increasing (bytewise); throws
// InvalidArgumentError otherwise.
std::string build_table(const TableEntries& entries, std::size_t block_bytes = kDefaultBlockBytes,
                        int restart_interval = kDefaultRestartInterval);

// Every entry of the table `bytes`, in key order. `name` prefixes error messages.
// Throws DataLossError for anything malformed.
TableEntries parse_table(std::string_view bytes, std::string_view name);

}  // namespace tpustrategy::checkpoint
