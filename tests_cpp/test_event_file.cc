// TensorBoard event files: the Event protos are byte-for-byte those TF 2.21 (with TensorBoard 2.21)
// writes for the same summaries (the expected bytes were captured from tf.summary with that version),
// and the file is TFRecord-framed, flushed in place, and rejects bad paths.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/data/event_file.h"
#include "tpustrategy/data/tfrecord.h"

namespace tpustrategy::data {
namespace {

std::string file_bytes(const std::string& path) {
  std::string bytes(std::filesystem::file_size(path), '\0');
  std::FILE* f = std::fopen(path.c_str(), "rb");
  EXPECT_EQ(std::fread(bytes.data(), 1, bytes.size(), f), bytes.size());
  std::fclose(f);
  return bytes;
}

double wall_time_of(const std::string& event) {  // Event.wall_time is field 1, fixed64, first
  double value;
  std::memcpy(&value, event.data() + 1, 8);
  return value;
}

TEST(EventFile, FileVersionEventMatchesTf) {
  const std::string tf_bytes(
      "\t\x00\x00\x00\xe0\xde\xc0\xda\x41\x1a\rbrain.Event:2R$\n\"tensorflow.core.util.events_writer", 62);
  EXPECT_EQ(encode_file_version_event(wall_time_of(tf_bytes)), tf_bytes);
}

TEST(EventFile, ScalarEventMatchesTf) {
  const std::string tf_bytes(
      "\t\x88\x7f\x03\xe0\xde\xc0\xda\x41\x10\x03*!\n\x1f\n\x04lossB\n\x08\x01\x12\x00\"\x04\x00\x00\x00?J\x0b\n\t\n"
      "\x07scalars",
      46);
  const float half = 0.5f;
  SummaryTensor tensor{1, {}, std::string(reinterpret_cast<const char*>(&half), 4), {}};
  EXPECT_EQ(encode_summary_event(wall_time_of(tf_bytes), 3, "loss", tensor, "scalars", ""), tf_bytes);
}

TEST(EventFile, TextEventMatchesTf) {
  const std::string tf_bytes(
      "\tBv\n\xe0\xde\xc0\xda\x41\x10\x03*\x1c\n\x1a\n\x01tB\x0b\x08\x07\x12\x00\x42\x05helloJ\x08\n\x06\n\x04text",
      41);
  SummaryTensor tensor{7, {}, "", {"hello"}};
  EXPECT_EQ(encode_summary_event(wall_time_of(tf_bytes), 3, "t", tensor, "text", ""), tf_bytes);
}

TEST(EventFile, HistogramShapeIsEncodedAsTf) {
  SummaryTensor tensor{2, {4, 3}, std::string(96, '\0'), {}};
  const std::string event = encode_summary_event(1.0, 3, "h", tensor, "histograms", "");
  // dtype DT_DOUBLE, shape {dim {size: 4} dim {size: 3}}, then 96 bytes of tensor_content
  EXPECT_NE(event.find(std::string("\x08\x02\x12\x08\x12\x02\x08\x04\x12\x02\x08\x03\"\x60", 14)), std::string::npos);
}

TEST(EventFile, WriterFramesRecordsAndFlushes) {
  const auto dir = std::filesystem::temp_directory_path() / ("tps_events_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "events.out.tfevents.test").string();
  {
    EventFileWriter writer(path, 12.5);
    writer.write_event("abc");
    writer.flush();
    const auto records = parse_records(file_bytes(path), path);
    ASSERT_EQ(records.size(), 2u);
    EXPECT_EQ(records[0], encode_file_version_event(12.5));
    EXPECT_EQ(records[1], "abc");
    writer.close();
    EXPECT_THROW(writer.write_event("x"), FailedPreconditionError);
  }
  EXPECT_THROW(EventFileWriter((dir / "missing" / "f").string(), 1.0), NotFoundError);
  EXPECT_THROW(EventFileWriter(dir.string(), 1.0), FailedPreconditionError);
  EXPECT_THROW(EventFileWriter(std::string("a\0b", 3), 1.0), InvalidArgumentError);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tpustrategy::data
