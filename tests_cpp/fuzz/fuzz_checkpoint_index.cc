// libFuzzer harness: checkpoint index files (the sorted table, the BundleHeaderProto and every
// BundleEntryProto), the bytes TF and we read from `<prefix>.index`. Each input is parsed twice: as a
// whole file, and as the contents of the one data block of an otherwise valid table (correct CRCs,
// index and footer around it), so that mutations reach the entry, header and proto parsers behind the
// block checksum.
// Properties: parsing yields entries or throws DataLossError / InvalidArgumentError /
// UnimplementedError; never a crash, an out-of-bounds read or a huge allocation; a parsed table
// rebuilt and parsed again gives the same entries, in strictly increasing key order.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tpustrategy/checkpoint/sstable.h"
#include "tpustrategy/checkpoint/tensor_bundle.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/data/protobuf_wire.h"
#include "tpustrategy/data/tfrecord.h"

namespace {

namespace wire = tpustrategy::data::wire;

void check(bool ok) {
  if (!ok) std::abort();
}

void append_block(std::string& file, std::string_view contents, std::string& handle) {
  handle.clear();
  wire::put_varint(handle, file.size());
  wire::put_varint(handle, contents.size());
  file.append(contents);
  file.push_back('\0');  // no compression
  const std::uint32_t crc = tpustrategy::data::crc32c(std::string_view(file).substr(file.size() - contents.size() - 1));
  wire::put_fixed32(file, tpustrategy::data::mask_crc(crc));
}

// A table whose single data block is `block` (its index key sorts after any key under 256 bytes).
std::string table_around(std::string_view block) {
  std::string file, data_handle, meta_handle, index_handle;
  append_block(file, block, data_handle);
  append_block(file, std::string("\0\0\0\0\1\0\0\0", 8), meta_handle);
  const std::string key(256, '\xff');
  std::string index;
  wire::put_varint(index, 0);
  wire::put_varint(index, key.size());
  wire::put_varint(index, data_handle.size());
  index += key + data_handle;
  wire::put_fixed32(index, 0);  // restart[0]
  wire::put_fixed32(index, 1);  // one restart
  append_block(file, index, index_handle);
  std::string footer = meta_handle + index_handle;
  footer.resize(tpustrategy::checkpoint::kFooterBytes - 8, '\0');
  wire::put_fixed64(footer, tpustrategy::checkpoint::kTableMagic);
  return file + footer;
}

void parse(std::string_view bytes) {
  using namespace tpustrategy;
  try {
    const checkpoint::TableEntries table = checkpoint::parse_table(bytes, "fuzz");
    for (std::size_t i = 1; i < table.size(); ++i) check(table[i - 1].first < table[i].first);
    check(checkpoint::parse_table(checkpoint::build_table(table, 256, 4), "again") == table);
  } catch (const DataLossError&) {
    return;
  }
  try {
    std::int32_t shards = 0;
    const auto entries = checkpoint::parse_index(bytes, "fuzz", shards);
    check(shards >= 1);
    for (const auto& [key, entry] : entries) {
      check(entry.offset >= 0 && entry.size >= 0 && entry.shard_id < shards);
      const checkpoint::BundleEntry again =
          checkpoint::decode_bundle_entry(checkpoint::encode_bundle_entry(entry), key);
      check(again.shape == entry.shape && again.offset == entry.offset && again.size == entry.size);
    }
  } catch (const DataLossError&) {
  } catch (const InvalidArgumentError&) {
  } catch (const UnimplementedError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  parse(bytes);
  parse(table_around(bytes));
  return 0;
}
