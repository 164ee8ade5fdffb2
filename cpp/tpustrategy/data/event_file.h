#pragma once
// TensorBoard event files: a TFRecord stream of tensorflow.Event protos, the first one carrying
// file_version "brain.Event:2". Summaries are written as TF 2 writes them: one Summary.Value per event
// with the tag, the data as a TensorProto (numbers in tensor_content, strings in string_val) and
// SummaryMetadata naming the TensorBoard plugin (scalars, histograms, text, images).
//
// Unlike TFRecordWriter the file is written in place and flushed as it grows, because TensorBoard
// reads event files while they are written. A process killed mid-write leaves at most a truncated
// last record, which event readers (TF's and TensorBoard's) stop at; earlier events stay readable.
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace tpustrategy::data {

// A summary's data in the shape of a TensorProto.
struct SummaryTensor {
  int dtype = 0;                     // TF DataType enum value (DT_FLOAT = 1, DT_DOUBLE = 2, DT_STRING = 7, ...)
  std::vector<std::int64_t> shape;   // dimensions (empty: a scalar)
  std::string content;               // little-endian element bytes (numeric dtypes)
  std::vector<std::string> strings;  // the elements of a DT_STRING tensor
};

// The serialized first Event of a file: wall_time, file_version "brain.Event:2", source_metadata.
std::string encode_file_version_event(double wall_time);
// A serialized Event with one tensor summary value.
std::string encode_summary_event(double wall_time, std::int64_t step, std::string_view tag, const SummaryTensor& tensor,
                                 std::string_view plugin_name, std::string_view plugin_content);

class EventFileWriter {
 public:
  // Creates `path` and writes the file_version event. Throws NotFoundError (missing directory),
  // FailedPreconditionError (a directory), InvalidArgumentError (empty or NUL in the name).
  EventFileWriter(std::string path, double wall_time);
  ~EventFileWriter();
  EventFileWriter(const EventFileWriter&) = delete;
  EventFileWriter& operator=(const EventFileWriter&) = delete;

  // Appends one framed Event. Throws FailedPreconditionError after close().
  void write_event(std::string_view event);
  // Flushes and fsyncs what was written (TF's EventsWriter::Flush syncs too).
  void flush();
  void close();
  const std::string& path() const { return path_; }

 private:
  void flush_locked();

  std::string path_;
  mutable std::mutex mutex_;
  std::FILE* file_ = nullptr;
};

}  // namespace tpustrategy::data
