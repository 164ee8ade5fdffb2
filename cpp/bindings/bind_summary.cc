// tpustrategy._core.summary: TensorBoard event files (Event protos in TFRecord framing). Python picks
// the data and the plugin; the encoding and the file I/O run here with the GIL released.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/bindings.h"
#include "tpustrategy/data/event_file.h"

namespace tpustrategy::bindings {

using data::EventFileWriter;
using data::SummaryTensor;

void init_summary(py::module_& m) {
  m.def(
      "encode_summary_event",
      [](double wall_time, std::int64_t step, const std::string& tag, int dtype, std::vector<std::int64_t> shape,
         const py::bytes& content, std::vector<std::string> strings, const std::string& plugin_name,
         const py::bytes& plugin_content) {
        SummaryTensor tensor{dtype, std::move(shape), std::string(content), std::move(strings)};
        std::string plugin = plugin_content;
        std::string event;
        {
          py::gil_scoped_release release;
          event = data::encode_summary_event(wall_time, step, tag, tensor, plugin_name, plugin);
        }
        return py::bytes(event);
      },
      py::arg("wall_time"), py::arg("step"), py::arg("tag"), py::arg("dtype"), py::arg("shape"), py::arg("content"),
      py::arg("strings"), py::arg("plugin_name"), py::arg("plugin_content"),
      R"doc(A serialized tensorflow.Event with one tensor summary value.

Args:
  wall_time: seconds since the epoch.
  step: the global step.
  tag: the summary's tag.
  dtype: the TF DataType enum value of the tensor.
  shape: the tensor's shape.
  content: little-endian element bytes (numeric dtypes; empty for DT_STRING).
  strings: the elements of a DT_STRING tensor (empty otherwise).
  plugin_name: the TensorBoard plugin ("scalars", "histograms", "text", "images").
  plugin_content: the plugin's serialized metadata.

Returns:
  The Event proto's bytes.)doc");
  py::class_<EventFileWriter>(m, "EventFileWriter", "Appends Event records to a TensorBoard event file.")
      .def(py::init<std::string, double>(), py::arg("path"), py::arg("wall_time"),
           R"doc(Creates the file and writes the file_version event.

Args:
  path: the event file to create.
  wall_time: the file_version event's time, seconds since the epoch.

Raises:
  NotFoundError: the directory is missing.
  FailedPreconditionError: `path` is a directory.)doc")
      .def(
          "write_event",
          [](EventFileWriter& self, const py::bytes& event) {
            std::string_view view = event;
            py::gil_scoped_release release;
            self.write_event(view);
          },
          py::arg("event"), R"doc(Appends one record.

Args:
  event: a serialized Event (encode_summary_event).)doc")
      .def("flush", &EventFileWriter::flush, py::call_guard<py::gil_scoped_release>(),
           "Writes buffered records to the file.")
      .def("close", &EventFileWriter::close, py::call_guard<py::gil_scoped_release>(),
           "Flushes and closes the file (idempotent).")
      .def_property_readonly("path", &EventFileWriter::path);
}

}  // namespace tpustrategy::bindings
