// tpustrategy._core.data: data kernels: batching / rebatching of tensors and TFRecord
// framing. Python arguments are converted first; the work itself runs with the
// GIL released.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/bindings.h"
#include "tpustrategy/data/batching.h"
#include "tpustrategy/data/tfrecord.h"

namespace tpustrategy::bindings {

namespace {

using data::RowBuffer;
using data::TFRecordReader;
using data::TFRecordWriter;

std::vector<Tensor> tensors_from(const py::sequence& items) {
  std::vector<Tensor> out;
  out.reserve(items.size());
  for (py::handle item : items) out.push_back(item.cast<Tensor>());
  return out;
}

py::object optional_bytes(std::optional<std::string> record) {
  if (!record) return py::none();
  return py::bytes(*record);
}

void bind_batching(py::module_& m) {
  m.def(
      "stack_batch",
      [](const py::sequence& elements, int component) {
        std::vector<Tensor> tensors = tensors_from(elements);
        py::gil_scoped_release release;
        return data::stack_batch(tensors, component);
      },
      py::arg("elements"), py::kw_only(), py::arg("component") = 0,
      R"doc(Stacks tensors of equal dtype and shape S into one tensor of shape [N] + S.

Args:
  elements: the N Tensors.
  component: the index of the element's component they are, named in error messages.

Raises:
  InvalidArgumentError: no elements, or dtypes or shapes that differ.)doc");
  m.def(
      "unstack_rows",
      [](const Tensor& batch) {
        py::gil_scoped_release release;
        return data::unstack_rows(batch);
      },
      py::arg("batch"), R"doc(The rows of a batch as tensors of shape batch.shape[1:].

Args:
  batch: a Tensor of rank >= 1.)doc");
  m.def(
      "split_rows",
      [](const Tensor& batch, const std::vector<std::int64_t>& sizes) {
        py::gil_scoped_release release;
        return data::split_rows(batch, sizes);
      },
      py::arg("batch"), py::arg("sizes"), R"doc(Consecutive slices of a batch along dim 0 with the given sizes.

Args:
  batch: a Tensor of rank >= 1.
  sizes: the slices' row counts, adding up to at most batch.shape[0].)doc");
  m.def(
      "slice_rows",
      [](const Tensor& batch, std::int64_t begin, std::int64_t count) {
        py::gil_scoped_release release;
        return data::slice_rows(batch, begin, count);
      },
      py::arg("batch"), py::arg("begin"), py::arg("count"), R"doc(Rows [begin, begin + count) of a batch.

Args:
  batch: a Tensor of rank >= 1.
  begin: the first row.
  count: how many rows.)doc");
  m.def(
      "slice_rows_to_devices",
      [](const Tensor& batch, const std::vector<std::int64_t>& begins, const std::vector<std::int64_t>& counts,
         const std::vector<DevicePtr>& devices) {
        py::gil_scoped_release release;
        return data::slice_rows_to_devices(batch, begins, counts, devices);
      },
      py::arg("batch"), py::arg("begins"), py::arg("counts"), py::arg("devices"),
      R"doc(Row ranges of a batch, range i allocated on devices[i] (one copy each).

Args:
  batch: a Tensor of rank >= 1.
  begins: each range's first row.
  counts: each range's row count.
  devices: each range's device.

Returns:
  One Tensor per range: rows [begins[i], begins[i] + counts[i]) on devices[i].)doc");
  m.def(
      "concat_rows",
      [](const py::sequence& parts) {
        std::vector<Tensor> tensors = tensors_from(parts);
        py::gil_scoped_release release;
        return data::concat_rows(tensors);
      },
      py::arg("parts"), R"doc(Concatenates tensors along dim 0.

Args:
  parts: Tensors of one dtype, equal but for dim 0.)doc");

  py::class_<RowBuffer>(m, "RowBuffer", "Rows of a stream of batches, handed out in batches of any size.")
      .def(py::init<>(), "An empty buffer.")
      .def(
          "push",
          [](RowBuffer& self, const py::sequence& components) {
            std::vector<Tensor> tensors = tensors_from(components);
            py::gil_scoped_release release;
            self.push(std::move(tensors));
          },
          py::arg("components"), R"doc(Appends the rows of one batch.

Args:
  components: the batch's component Tensors, equal in dim 0 and in layout to earlier batches.)doc")
      .def(
          "pop",
          [](RowBuffer& self, std::int64_t rows) {
            py::gil_scoped_release release;
            return self.pop(rows);
          },
          py::arg("rows"), R"doc(Takes the next `rows` rows as one batch.

Args:
  rows: how many rows, at most rows_available.

Returns:
  The batch's component Tensors.)doc")
      .def_property_readonly("rows_available", &RowBuffer::rows_available)
      .def_property_readonly("has_layout", &RowBuffer::has_layout);
}

void bind_tfrecord(py::module_& m) {
  m.def(
      "crc32c",
      [](const py::bytes& data, std::uint32_t crc) {
        std::string_view view = data;
        return data::crc32c(view, crc);
      },
      py::arg("data"), py::kw_only(), py::arg("crc") = 0, R"doc(CRC32C (Castagnoli) of `data`.

Args:
  data: the bytes.
  crc: the CRC of the bytes before `data`, to continue from.)doc");
  m.def("mask_crc", &data::mask_crc, py::arg("crc"), R"doc(TFRecord's masked form of a CRC32C.

Args:
  crc: the CRC32C to mask.)doc");
  m.def(
      "tfrecord_encode",
      [](const py::bytes& record) {
        std::string_view view = record;
        std::string framed;
        {
          py::gil_scoped_release release;
          framed = data::encode_record(view);
        }
        return py::bytes(framed);
      },
      py::arg("record"), R"doc(The TFRecord framing of one record: length, masked CRCs and data.

Args:
  record: the record's bytes.)doc");
  m.def(
      "tfrecord_parse",
      [](const py::bytes& contents, const std::string& name) {
        std::string_view view = contents;
        std::vector<std::string> records;
        {
          py::gil_scoped_release release;
          records = data::parse_records(view, name);
        }
        py::list out;
        for (const std::string& r : records) out.append(py::bytes(r));
        return out;
      },
      py::arg("contents"), py::arg("name"), R"doc(Every record of an in-memory TFRecord file.

Args:
  contents: the file's bytes.
  name: the file's name, for error messages.

Returns:
  A list of bytes.

Raises:
  DataLossError: a corrupted or truncated record.)doc");

  py::class_<TFRecordReader>(m, "TFRecordReader", "Streams the records of an uncompressed TFRecord file.")
      .def(py::init<std::string>(), py::arg("path"), R"doc(Opens the file.

Args:
  path: the TFRecord file.

Raises:
  NotFoundError: no such file.)doc")
      .def(
          "read",
          [](TFRecordReader& self) {
            std::optional<std::string> record;
            {
              py::gil_scoped_release release;
              record = self.read();
            }
            return optional_bytes(std::move(record));
          },
          "The next record as bytes, or None at the end of the file.\n\n"
          "Raises:\n  DataLossError: a corrupted or truncated record (naming the file and offset).")
      .def_property_readonly("offset", &TFRecordReader::offset);

  py::class_<TFRecordWriter>(m, "TFRecordWriter", "Writes records to an uncompressed TFRecord file.")
      .def(py::init<std::string>(), py::arg("path"), R"doc(Starts writing the file.

Records go to a temporary file that close() renames over `path`.

Args:
  path: the TFRecord file.

Raises:
  NotFoundError: the directory is missing.)doc")
      .def(
          "write",
          [](TFRecordWriter& self, const py::bytes& record) {
            std::string_view view = record;
            py::gil_scoped_release release;
            self.write(view);
          },
          py::arg("record"), R"doc(Appends one framed record.

Args:
  record: the record's bytes.)doc")
      .def("flush", &TFRecordWriter::flush, py::call_guard<py::gil_scoped_release>(),
           "Writes buffered records to the file.")
      .def("close", &TFRecordWriter::close, py::call_guard<py::gil_scoped_release>(),
           "Flushes and closes the file (idempotent).")
      .def_property_readonly("closed", &TFRecordWriter::closed);
}

}  // namespace

void init_data(py::module_& m) {
  bind_batching(m);
  bind_tfrecord(m);
}

}  // namespace tpustrategy::bindings
