// TF's checkpoint format: the sorted table (blocks, restarts, index, footer, CRCs) and the TensorBundle
// over it (header, BundleEntryProto, numeric and string tensors, crash-safe writing, corruption).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "tpustrategy/checkpoint/sstable.h"
#include "tpustrategy/checkpoint/tensor_bundle.h"
#include "tpustrategy/core/errors.h"

namespace tpustrategy::checkpoint {
namespace {

namespace fs = std::filesystem;

TableEntries numbered(int n) {
  TableEntries entries;
  for (int i = 0; i < n; ++i) {
    char key[32];
    std::snprintf(key, sizeof key, "key/%06d", i);
    entries.emplace_back(key, std::string(static_cast<std::size_t>(i % 50), static_cast<char>('a' + i % 26)));
  }
  return entries;
}

TEST(SSTable, RoundTripsOneBlockAndManyBlocks) {
  for (std::size_t block : {std::size_t{64}, std::size_t{4096}, kDefaultBlockBytes}) {
    for (int restart : {1, 3, 16}) {
      const TableEntries entries = numbered(500);
      EXPECT_EQ(parse_table(build_table(entries, block, restart), "t"), entries) << block << " " << restart;
    }
  }
}

TEST(SSTable, EmptyTableAndEmptyKey) {
  EXPECT_TRUE(parse_table(build_table({}), "t").empty());
  const TableEntries entries{{"", "header"}, {"a", ""}, {"a\xff", "x"}, {"b", std::string(3000, 'z')}};
  EXPECT_EQ(parse_table(build_table(entries, 16), "t"), entries);
}

TEST(SSTable, FooterHasTheLevelDbMagic) {
  const std::string table = build_table(numbered(3));
  std::uint64_t magic;
  std::memcpy(&magic, table.data() + table.size() - 8, 8);
  EXPECT_EQ(magic, 0xdb4775248b80fb57ull);
}

TEST(SSTable, RejectsUnsortedKeys) {
  EXPECT_THROW(build_table({{"b", ""}, {"a", ""}}), InvalidArgumentError);
  EXPECT_THROW(build_table({{"a", ""}, {"a", ""}}), InvalidArgumentError);
}

TEST(SSTable, EveryFlippedByteIsDataLossOrHarmless) {
  const TableEntries entries = numbered(40);
  const std::string table = build_table(entries, 128);
  int rejected = 0;
  for (std::size_t i = 0; i < table.size(); ++i) {
    std::string bad = table;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    try {
      parse_table(bad, "t");  // only the padding of the footer may change without notice
    } catch (const DataLossError& e) {
      ++rejected;
      EXPECT_NE(std::string(e.what()).find("t: corrupted table"), std::string::npos);
    }
  }
  EXPECT_GE(rejected, static_cast<int>(table.size()) - 40);
}

TEST(SSTable, TruncationsAreDataLoss) {
  const std::string table = build_table(numbered(20), 64);
  for (std::size_t n = 0; n < table.size(); n += 7) {
    EXPECT_THROW(parse_table(std::string_view(table).substr(0, n), "t"), DataLossError) << n;
  }
}

TEST(SSTable, BlockChecksumMismatchIsNamed) {
  std::string table = build_table(numbered(5));
  table[3] = static_cast<char>(table[3] ^ 1);
  try {
    parse_table(table, "x.index");
    FAIL();
  } catch (const DataLossError& e) {
    EXPECT_NE(std::string(e.what()).find("checksum mismatch"), std::string::npos) << e.what();
  }
}

class BundleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fs::path("tps_bundle_" + std::to_string(::getpid()) + "_" +
                                                ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    prefix_ = (dir_ / "ckpt-1").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write_sample() {
    BundleWriter writer(prefix_);
    const float values[] = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f, 8.0f};
    writer.add("model/w/.ATTRIBUTES/VARIABLE_VALUE", 1, {2, 3},
               std::string_view(reinterpret_cast<const char*>(values), sizeof values));
    const std::int64_t counter = 4;
    writer.add("save_counter/.ATTRIBUTES/VARIABLE_VALUE", 9, {},
               std::string_view(reinterpret_cast<const char*>(&counter), 8));
    writer.add_strings("_CHECKPOINTABLE_OBJECT_GRAPH", {}, {std::string("graph\0bytes", 11)});
    writer.add_strings("strings", {3}, {"", "a", std::string(300, 'b')});
    writer.finish();
  }

  fs::path dir_;
  std::string prefix_;
};

TEST_F(BundleTest, RoundTrip) {
  write_sample();
  EXPECT_TRUE(fs::exists(prefix_ + ".index"));
  EXPECT_TRUE(fs::exists(prefix_ + ".data-00000-of-00001"));
  BundleReader reader(prefix_);
  ASSERT_EQ(reader.entries().size(), 4u);
  const BundleEntry& w = reader.entry("model/w/.ATTRIBUTES/VARIABLE_VALUE");
  EXPECT_EQ(w.dtype, 1);
  EXPECT_EQ(w.shape, (std::vector<std::int64_t>{2, 3}));
  const std::string bytes = reader.read("model/w/.ATTRIBUTES/VARIABLE_VALUE");
  ASSERT_EQ(bytes.size(), 24u);
  float third;
  std::memcpy(&third, bytes.data() + 8, 4);
  EXPECT_EQ(third, 3.25f);
  EXPECT_EQ(reader.read_strings("_CHECKPOINTABLE_OBJECT_GRAPH"),
            (std::vector<std::string>{std::string("graph\0bytes", 11)}));
  EXPECT_EQ(reader.read_strings("strings")[2], std::string(300, 'b'));
  EXPECT_TRUE(reader.entry("save_counter/.ATTRIBUTES/VARIABLE_VALUE").shape.empty());
}

TEST_F(BundleTest, HeaderEntryIsFirstAndEncodedAsTf) {
  write_sample();
  const TableEntries table = parse_table(read_file(prefix_ + ".index", "test"), "t");
  ASSERT_FALSE(table.empty());
  EXPECT_EQ(table[0].first, "");
  EXPECT_EQ(table[0].second, std::string("\x08\x01\x1a\x02\x08\x01", 6));  // num_shards 1, version {producer 1}
}

TEST_F(BundleTest, MissingCheckpointIsNotFound) {
  EXPECT_THROW(BundleReader((dir_ / "nothing").string()), NotFoundError);
  write_sample();
  BundleReader reader(prefix_);
  EXPECT_THROW(reader.entry("no/such/key"), NotFoundError);
}

TEST_F(BundleTest, CorruptDataIsChecksumMismatch) {
  write_sample();
  {
    std::fstream f(prefix_ + ".data-00000-of-00001", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(2);
    f.put('\x7f');
  }
  BundleReader reader(prefix_);
  try {
    reader.read("model/w/.ATTRIBUTES/VARIABLE_VALUE");
    FAIL();
  } catch (const DataLossError& e) {
    EXPECT_NE(std::string(e.what()).find("Checksum does not match"), std::string::npos) << e.what();
  }
}

TEST_F(BundleTest, TruncatedDataFileIsDataLoss) {
  write_sample();
  fs::resize_file(prefix_ + ".data-00000-of-00001", 10);
  BundleReader reader(prefix_);
  EXPECT_THROW(reader.read_strings("strings"), DataLossError);
}

TEST_F(BundleTest, CorruptIndexIsDataLoss) {
  write_sample();
  const std::string index = read_file(prefix_ + ".index", "test");
  for (std::size_t i = 0; i < index.size(); i += 5) {
    std::string bad = index;
    bad[i] = static_cast<char>(bad[i] ^ 0x21);
    std::int32_t shards = 0;
    try {
      parse_index(bad, "i", shards);
    } catch (const DataLossError&) {
    } catch (const InvalidArgumentError&) {
    } catch (const UnimplementedError&) {
    }
  }
  std::ofstream(prefix_ + ".index", std::ios::binary | std::ios::trunc) << "not a table";
  EXPECT_THROW(BundleReader{prefix_}, DataLossError);
}

TEST_F(BundleTest, WriterRejectsBadInputWithoutWritingFiles) {
  BundleWriter writer(prefix_);
  EXPECT_THROW(writer.add("k", 1, {2}, "abc"), InvalidArgumentError);
  EXPECT_THROW(writer.add("", 1, {}, "abcd"), InvalidArgumentError);
  EXPECT_THROW(writer.add("k", 99, {}, "abcd"), InvalidArgumentError);
  writer.add("k", 1, {}, "abcd");
  EXPECT_THROW(writer.add("k", 1, {}, "abcd"), InvalidArgumentError);
  EXPECT_THROW(writer.add_strings("s", {2}, {"x"}), InvalidArgumentError);
  EXPECT_FALSE(fs::exists(prefix_ + ".index"));
  EXPECT_THROW(BundleWriter((dir_ / "missing" / "p").string()).finish(), NotFoundError);
}

TEST_F(BundleTest, RewriteReplacesAtomically) {
  write_sample();
  BundleWriter writer(prefix_);
  writer.add("only", 3, {1}, std::string("\x05\x00\x00\x00", 4));
  writer.finish();
  BundleReader reader(prefix_);
  EXPECT_EQ(reader.entries().size(), 1u);
  for (const auto& entry : fs::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
  }
}

}  // namespace
}  // namespace tpustrategy::checkpoint
