// Event proto field numbers (tensorflow/core/util/event.proto, framework/summary.proto, tensor.proto,
// tensor_shape.proto) are the wire contract with TensorBoard; they are spelled out where used.
#include "tpustrategy/data/event_file.h"

#include <unistd.h>

#include <cerrno>

#include "tpustrategy/core/errors.h"
#include "tpustrategy/data/atomic_file.h"
#include "tpustrategy/data/protobuf_wire.h"
#include "tpustrategy/data/tfrecord.h"

namespace tpustrategy::data {

namespace {

constexpr int kDtString = 7;

std::string encode_tensor(const SummaryTensor& tensor) {
  std::string shape;
  for (std::int64_t dim : tensor.shape) {
    std::string d;
    if (dim != 0) wire::put_varint_field(d, 1, static_cast<std::uint64_t>(dim));  // Dim.size
    wire::put_bytes(shape, 2, d);                                                 // TensorShapeProto.dim
  }
  std::string out;
  wire::put_varint_field(out, 1, static_cast<std::uint64_t>(tensor.dtype));  // TensorProto.dtype
  wire::put_bytes(out, 2, shape);                                            // tensor_shape
  if (tensor.dtype == kDtString) {
    for (const std::string& s : tensor.strings) wire::put_bytes(out, 8, s);  // string_val
  } else if (!tensor.content.empty()) {
    wire::put_bytes(out, 4, tensor.content);  // tensor_content
  }
  return out;
}

}  // namespace

std::string encode_file_version_event(double wall_time) {
  std::string source;
  wire::put_bytes(source, 1, "tensorflow.core.util.events_writer");  // SourceMetadata.writer
  std::string out;
  wire::put_double_field(out, 1, wall_time);  // Event.wall_time
  wire::put_bytes(out, 3, "brain.Event:2");   // Event.file_version
  wire::put_bytes(out, 10, source);           // Event.source_metadata
  return out;
}

std::string encode_summary_event(double wall_time, std::int64_t step, std::string_view tag, const SummaryTensor& tensor,
                                 std::string_view plugin_name, std::string_view plugin_content) {
  std::string plugin_data;
  wire::put_bytes(plugin_data, 1, plugin_name);  // PluginData.plugin_name
  if (!plugin_content.empty()) wire::put_bytes(plugin_data, 2, plugin_content);
  std::string metadata;
  wire::put_bytes(metadata, 1, plugin_data);  // SummaryMetadata.plugin_data
  std::string value;
  wire::put_bytes(value, 1, tag);                    // Summary.Value.tag
  wire::put_bytes(value, 8, encode_tensor(tensor));  // Summary.Value.tensor
  wire::put_bytes(value, 9, metadata);               // Summary.Value.metadata
  std::string summary;
  wire::put_bytes(summary, 1, value);  // Summary.value
  std::string out;
  wire::put_double_field(out, 1, wall_time);
  if (step != 0) wire::put_varint_field(out, 2, static_cast<std::uint64_t>(step));  // Event.step
  wire::put_bytes(out, 5, summary);                                                 // Event.summary
  return out;
}

EventFileWriter::EventFileWriter(std::string path, double wall_time) : path_(std::move(path)) {
  check_file_path(path_, "EventFileWriter");
  file_ = std::fopen(path_.c_str(), "wb");
  if (file_ == nullptr) fail_file_error("EventFileWriter", path_, "writing", errno);
  write_event(encode_file_version_event(wall_time));
  flush();
}

EventFileWriter::~EventFileWriter() {
  try {
    close();
  } catch (...) {  // a destructor must not throw; close() reported nothing the caller can act on
  }
}

void EventFileWriter::write_event(std::string_view event) {
  std::lock_guard lock(mutex_);
  if (file_ == nullptr) fail<FailedPreconditionError>("EventFileWriter", "{} is closed", path_);
  const std::string record = encode_record(event);
  if (std::fwrite(record.data(), 1, record.size(), file_) != record.size()) {
    fail<DataLossError>("EventFileWriter", "{}: short write", path_);
  }
}

void EventFileWriter::flush_locked() {
  if (file_ == nullptr) return;
  if (std::fflush(file_) != 0 || ::fsync(fileno(file_)) != 0) {
    fail<DataLossError>("EventFileWriter", "{}: flush failed (errno {})", path_, errno);
  }
}

void EventFileWriter::flush() {
  std::lock_guard lock(mutex_);
  flush_locked();
}

void EventFileWriter::close() {
  std::lock_guard lock(mutex_);
  if (file_ == nullptr) return;
  std::FILE* file = file_;
  file_ = nullptr;
  const bool ok = std::fflush(file) == 0 && ::fsync(fileno(file)) == 0;
  const bool closed = std::fclose(file) == 0;
  if (!ok || !closed) fail<DataLossError>("EventFileWriter", "{}: close failed", path_);
}

}  // namespace tpustrategy::data
