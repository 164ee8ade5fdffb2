// tpustrategy._core.checkpoint: TF's TensorBundle checkpoint files. Python walks the object graph and
// converts arrays; the table and bundle encoding, the file I/O and every check run here with the GIL
// released.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/bindings.h"
#include "tpustrategy/checkpoint/tensor_bundle.h"

namespace tpustrategy::bindings {

using checkpoint::BundleReader;
using checkpoint::BundleWriter;

void init_checkpoint(py::module_& m) {
  m.def(
      "write_file_atomically",
      [](const std::string& path, const py::bytes& data) {
        std::string_view view = data;
        py::gil_scoped_release release;
        checkpoint::write_file_atomically(path, view, "write_file_atomically");
      },
      py::arg("path"), py::arg("data"),
      R"doc(Writes `data` to `path` through a temporary file, fsync and rename.

The previous file stays intact until the rename.

Args:
  path: the file to write.
  data: its new contents.)doc");
  py::class_<BundleWriter>(m, "BundleWriter", "Writes <prefix>.index and <prefix>.data-00000-of-00001.")
      .def(py::init<std::string>(), py::arg("prefix"), R"doc(A writer; nothing is written before finish().

Args:
  prefix: the checkpoint's path prefix.)doc")
      .def(
          "add",
          [](BundleWriter& self, const std::string& key, int dtype, const std::vector<std::int64_t>& shape,
             const py::bytes& data) {
            std::string_view view = data;
            py::gil_scoped_release release;
            self.add(key, dtype, shape, view);
          },
          py::arg("key"), py::arg("dtype"), py::arg("shape"), py::arg("data"),
          R"doc(Adds a numeric tensor.

Args:
  key: the tensor's key in the checkpoint.
  dtype: a TF DataType enum value.
  shape: the tensor's shape.
  data: its little-endian element bytes.

Raises:
  InvalidArgumentError: a repeated key, or bytes that do not fit dtype and shape.)doc")
      .def("add_strings", &BundleWriter::add_strings, py::arg("key"), py::arg("shape"), py::arg("strings"),
           py::call_guard<py::gil_scoped_release>(), R"doc(Adds a DT_STRING tensor.

Args:
  key: the tensor's key in the checkpoint.
  shape: the tensor's shape.
  strings: its elements, row-major.

Raises:
  InvalidArgumentError: a repeated key, or a count that does not fit the shape.)doc")
      .def("finish", &BundleWriter::finish, py::call_guard<py::gil_scoped_release>(),
           "Writes the data file, then the index, each crash-safely (temporary file, fsync, rename).");
  py::class_<BundleReader>(m, "BundleReader", "Reads a checkpoint written by TensorFlow or BundleWriter.")
      .def(py::init<std::string>(), py::arg("prefix"), py::call_guard<py::gil_scoped_release>(),
           R"doc(Reads and checks `<prefix>.index`.

Args:
  prefix: the checkpoint's path prefix.

Raises:
  NotFoundError: no such checkpoint.
  DataLossError: a corrupt index.)doc")
      .def(
          "entries",
          [](const BundleReader& self) {
            py::dict out;
            for (const auto& [key, entry] : self.entries()) {
              out[py::str(key)] = py::make_tuple(entry.dtype, py::cast(entry.shape));
            }
            return out;
          },
          "Every tensor key -> (TF DataType enum value, shape).")
      .def(
          "read",
          [](const BundleReader& self, const std::string& key) {
            std::string bytes;
            {
              py::gil_scoped_release release;
              bytes = self.read(key);
            }
            return py::bytes(bytes);
          },
          py::arg("key"), R"doc(The little-endian bytes of a numeric tensor (CRC checked).

Args:
  key: the tensor's key.

Raises:
  NotFoundError: no such key.
  DataLossError: a CRC mismatch or a truncated data file.)doc")
      .def(
          "read_strings",
          [](const BundleReader& self, const std::string& key) {
            std::vector<std::string> strings;
            {
              py::gil_scoped_release release;
              strings = self.read_strings(key);
            }
            py::list out;
            for (const std::string& s : strings) out.append(py::bytes(s));
            return out;
          },
          py::arg("key"), R"doc(The elements of a DT_STRING tensor (CRCs checked).

Args:
  key: the tensor's key.

Raises:
  NotFoundError: no such key.
  DataLossError: a CRC mismatch or a truncated data file.)doc")
      .def_property_readonly("prefix", &BundleReader::prefix);
}

}  // namespace tpustrategy::bindings
