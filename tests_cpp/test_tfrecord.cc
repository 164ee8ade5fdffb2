// TFRecord framing: CRC32C vectors, masking, the byte layout, and a reader that turns
// every corruption or truncation into DataLossError.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>
#include <vector>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/data/tfrecord.h"

namespace tpustrategy::data {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tpustrategy_test_" + name)).string();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string le(std::uint64_t value, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
  return out;
}

TEST(Crc32c, KnownVectors) {
  EXPECT_EQ(crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(crc32c(""), 0u);
  EXPECT_EQ(crc32c(std::string(32, '\0')), 0x8A9136AAu);  // RFC 3720 B.4
  EXPECT_EQ(crc32c(std::string(32, '\xff')), 0x62A8AB43u);
  std::string ascending;
  for (int i = 0; i < 32; ++i) ascending.push_back(static_cast<char>(i));
  EXPECT_EQ(crc32c(ascending), 0x46DD794Eu);
  // Extending a CRC equals the CRC of the concatenation.
  EXPECT_EQ(crc32c("6789", crc32c("12345")), 0xE3069283u);
}

TEST(Crc32c, HardwareAndPortablePathsAgree) {
  std::mt19937 rng(7);
  for (int n = 0; n < 300; ++n) {
    std::string data(static_cast<std::size_t>(n), '\0');
    for (char& c : data) c = static_cast<char>(rng());
    ASSERT_EQ(crc32c(data), crc32c_portable(data)) << "n=" << n;
    ASSERT_EQ(crc32c(data.substr(n / 2), crc32c(data.substr(0, n / 2))), crc32c_portable(data));
  }
}

TEST(Crc32c, MaskFormulaAndInverse) {
  const std::uint32_t crc = 0xE3069283u;
  EXPECT_EQ(mask_crc(crc), ((crc >> 15) | (crc << 17)) + 0xa282ead8u);
  for (std::uint32_t v : {0u, 1u, crc, 0xffffffffu}) EXPECT_EQ(unmask_crc(mask_crc(v)), v);
}

std::string hand_built_record(const std::string& data) {
  const std::string length = le(data.size(), 8);
  return length + le(mask_crc(crc32c(length)), 4) + data + le(mask_crc(crc32c(data)), 4);
}

TEST(TFRecord, EncodingMatchesThePublishedLayout) {
  EXPECT_EQ(encode_record("123456789"), hand_built_record("123456789"));
  const std::string framed = encode_record("123456789");
  ASSERT_EQ(framed.size(), 12u + 9u + 4u);
  EXPECT_EQ(framed.substr(0, 8), le(9, 8));
  EXPECT_EQ(framed.substr(21), le(mask_crc(0xE3069283u), 4));
  EXPECT_EQ(encode_record(""), hand_built_record(""));
}

TEST(TFRecord, ReaderAndWriterAreSafeAcrossThreads) {
  // Regression: the bindings call read/write/close with the GIL released, so several Python
  // threads may share one reader or writer. Without a lock, readers interleaved header and data
  // reads (spurious DataLossError) and close() could fclose the FILE* under a running write().
  const std::string path = temp_path("threads.tfrecord");
  constexpr int kThreads = 4, kRecords = 100000;
  {
    TFRecordWriter writer(path);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&writer, t] {
        for (int i = 0; i < kRecords / kThreads; ++i)
          writer.write(std::string(16 + (i % 50), static_cast<char>('a' + t)));
      });
    }
    for (auto& th : threads) th.join();
    writer.close();
  }
  TFRecordReader reader(path);
  std::atomic<int> records{0}, errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      try {
        while (reader.read()) ++records;
      } catch (const std::exception&) {
        ++errors;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(records.load(), kRecords);

  TFRecordWriter writer(path);
  std::thread closer([&writer] { writer.close(); });
  for (int i = 0; i < 1000; ++i) {
    try {
      writer.write("record");
    } catch (const FailedPreconditionError&) {
      break;  // closed under us: a clear error, never a crash
    }
  }
  closer.join();
  EXPECT_TRUE(writer.closed());
  std::remove(path.c_str());
}

TEST(TFRecord, WriterAndReaderRoundTrip) {
  const std::string path = temp_path("roundtrip.tfrecord");
  std::vector<std::string> records = {"hello", "", std::string(100000, 'x'), std::string("a\0b", 3)};
  {
    TFRecordWriter writer(path);
    for (const auto& r : records) writer.write(r);
    writer.close();
    EXPECT_TRUE(writer.closed());
    EXPECT_THROW(writer.write("late"), FailedPreconditionError);
  }
  std::string expected;
  for (const auto& r : records) expected += hand_built_record(r);
  EXPECT_EQ(read_file(path), expected);
  TFRecordReader reader(path);
  for (const auto& r : records) {
    auto got = reader.read();
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(*got, r);
  }
  EXPECT_FALSE(reader.read().has_value());
  EXPECT_EQ(parse_records(expected, "mem"), records);
  std::remove(path.c_str());
}

TEST(TFRecord, MissingFileIsNotFound) { EXPECT_THROW(TFRecordReader("/nonexistent/dir/file.tfrecord"), NotFoundError); }

// Issue 10, defect 5: a directory used to read as an empty file (fopen succeeds on a directory), and a
// NUL byte cut the name short, so a different file was read or written. TF's codes: EISDIR is
// FAILED_PRECONDITION, a bad name INVALID_ARGUMENT.
TEST(TFRecord, DirectoryIsAFailedPreconditionForReaderAndWriter) {
  const std::string dir = temp_path("a_directory");
  std::filesystem::create_directories(dir);
  EXPECT_THROW(TFRecordReader{dir}, FailedPreconditionError);
  EXPECT_THROW(TFRecordWriter{dir}, FailedPreconditionError);
  EXPECT_TRUE(std::filesystem::is_directory(dir));
  std::filesystem::remove_all(dir);
}

TEST(TFRecord, NulByteInThePathIsInvalidArgumentForReaderAndWriter) {
  const std::string prefix = temp_path("nul_prefix");
  write_file(prefix, hand_built_record("the prefix file"));
  const std::string with_nul = prefix + std::string("\0suffix", 7);
  EXPECT_THROW(TFRecordReader{with_nul}, InvalidArgumentError);
  EXPECT_THROW(TFRecordWriter{with_nul}, InvalidArgumentError);
  EXPECT_THROW(TFRecordWriter{""}, InvalidArgumentError);
  EXPECT_EQ(read_file(prefix), hand_built_record("the prefix file"));  // not truncated by the writer
  std::remove(prefix.c_str());
}

// The writer is crash-safe: `path` keeps its previous contents until close() renames the fsynced
// temporary file over it; an abandoned writer leaves no temporary behind after close.
TEST(TFRecord, WriterReplacesThePreviousFileOnlyOnClose) {
  const std::string dir = temp_path("atomic_dir");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/data.tfrecord";
  write_file(path, hand_built_record("old"));
  {
    TFRecordWriter writer(path);
    writer.write("new 1");
    writer.flush();
    EXPECT_EQ(read_file(path), hand_built_record("old"));
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 2);
    writer.write("new 2");
    writer.close();
  }
  EXPECT_EQ(read_file(path), hand_built_record("new 1") + hand_built_record("new 2"));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 1);
  {
    TFRecordWriter writer(path);  // destroyed without close(): commits, as TF's writer closes on destruction
    writer.write("third");
  }
  EXPECT_EQ(read_file(path), hand_built_record("third"));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 1);
  EXPECT_THROW(TFRecordWriter{dir + "/missing/x.tfrecord"}, NotFoundError);
  std::filesystem::remove_all(dir);
}

void expect_data_loss(const std::string& bytes, const std::string& message) {
  const std::string path = temp_path("bad.tfrecord");
  write_file(path, bytes);
  TFRecordReader reader(path);
  try {
    while (reader.read()) {
    }
    ADD_FAILURE() << "expected DataLossError containing " << message;
  } catch (const DataLossError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_records(bytes, "mem"), DataLossError);
  std::remove(path.c_str());
}

TEST(TFRecord, CorruptionNamesTheRecordOffset) {
  const std::string first = encode_record("first");  // 21 bytes
  std::string bad_data = first + encode_record("second");
  bad_data[first.size() + 12] ^= 0x01;  // flip a data bit of the second record
  expect_data_loss(bad_data, "corrupted record at 21");
  std::string bad_length = first + encode_record("second");
  bad_length[first.size()] ^= 0x40;  // the length CRC catches it before the length is trusted
  expect_data_loss(bad_length, "corrupted record at 21");
  std::string bad_footer = encode_record("x");
  bad_footer.back() ^= 0x01;
  expect_data_loss(bad_footer, "corrupted record at 0");
}

TEST(TFRecord, TruncationIsDataLoss) {
  const std::string full = encode_record("payload") + encode_record("tail");
  for (std::size_t cut = 1; cut < full.size(); ++cut) {
    if (cut == encode_record("payload").size()) continue;  // a clean record boundary
    const std::string prefix = full.substr(0, cut);
    EXPECT_THROW(parse_records(prefix, "mem"), DataLossError) << "cut=" << cut;
  }
  expect_data_loss(encode_record("payload").substr(0, 15), "truncated record at 0");
  // A valid header announcing more data than the file holds.
  const std::string length = le(1u << 30, 8);
  expect_data_loss(length + le(mask_crc(crc32c(length)), 4) + "abc", "truncated record at 0");
}

TEST(TFRecord, RandomBytesAndMutationsNeverCrash) {
  std::mt19937_64 rng(12345);
  std::string valid;
  for (int i = 0; i < 5; ++i) valid += encode_record(std::string(static_cast<std::size_t>(i * 7), 'a' + i));
  int data_loss = 0, clean = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    std::string bytes;
    if (iter % 2 == 0) {
      bytes.resize(rng() % 64);
      for (char& c : bytes) c = static_cast<char>(rng());
    } else {
      bytes = valid;
      const int mutations = 1 + static_cast<int>(rng() % 3);
      for (int m = 0; m < mutations; ++m) bytes[rng() % bytes.size()] = static_cast<char>(rng());
      if (rng() % 4 == 0) bytes.resize(rng() % bytes.size());
    }
    try {
      parse_records(bytes, "fuzz");
      ++clean;
    } catch (const DataLossError&) {
      ++data_loss;
    }
  }
  EXPECT_GT(data_loss, 3000);
  EXPECT_GT(clean, 0);  // at least the empty inputs and no-op mutations parse
}

}  // namespace
}  // namespace tpustrategy::data
