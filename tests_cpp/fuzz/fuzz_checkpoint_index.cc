// libFuzzer harness: checkpoint index files (the sorted table, the BundleHeaderProto and every
// BundleEntryProto), the bytes TF and we read from `<prefix>.index`.
// Properties: parsing yields entries or throws DataLossError / InvalidArgumentError /
// UnimplementedError; never a crash, an out-of-bounds read or a huge allocation; a parsed table
// rebuilt and parsed again gives the same entries, in strictly increasing key order.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tpustrategy/checkpoint/sstable.h"
#include "tpustrategy/checkpoint/tensor_bundle.h"
#include "tpustrategy/core/errors.h"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tpustrategy;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const checkpoint::TableEntries table = checkpoint::parse_table(bytes, "fuzz");
    for (std::size_t i = 1; i < table.size(); ++i) check(table[i - 1].first < table[i].first);
    check(checkpoint::parse_table(checkpoint::build_table(table, 256, 4), "again") == table);
  } catch (const DataLossError&) {
    return 0;
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
  return 0;
}
