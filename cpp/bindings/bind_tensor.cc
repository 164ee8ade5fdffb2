// tpustrategy.DType and tpustrategy.Tensor: the immutable tensor, its numpy
// interop (zero-copy read-only views out, the owner kept alive; copies in) and
// TF-shaped reprs. Operators and ops are added by bind_ops.cc.
#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/bindings.h"
#include "bindings/convert.h"
#include "bindings/python_imports.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/runtime/device_registry.h"

namespace tpustrategy::bindings {

namespace {

std::string buffer_format(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return "?";
    case DType::kInt32:
      return py::format_descriptor<std::int32_t>::format();
    case DType::kInt64:
      return py::format_descriptor<std::int64_t>::format();
    case DType::kFloat16:
      return "e";
    case DType::kFloat32:
      return "f";
    case DType::kFloat64:
      return "d";
    case DType::kUInt8:
      return "B";
    case DType::kInt8:
      return "b";
    case DType::kInt16:
      return "h";
    case DType::kUInt16:
      return "H";
    case DType::kUInt32:
      return py::format_descriptor<std::uint32_t>::format();
    case DType::kUInt64:
      return py::format_descriptor<std::uint64_t>::format();
    case DType::kComplex64:
      return "Zf";
    case DType::kComplex128:
      return "Zd";
    case DType::kBFloat16:
      break;
  }
  fail<TypeError>("Tensor", "bfloat16 has no buffer-protocol format; use np.asarray(tensor) (ml_dtypes.bfloat16)");
}

// DType.min / DType.max: numpy's finfo / iinfo as Python numbers; TF raises TypeError for bool and complex.
py::object dtype_limit(DType d, bool max) {
  if (d == DType::kBool || is_complex(d)) fail<TypeError>("DType", "Cannot find minimum value of {}.", dtype_name(d));
  py::handle np = numpy_module();
  py::object info = is_floating(d) ? np.attr("finfo")(numpy_dtype(d)) : np.attr("iinfo")(numpy_dtype(d));
  py::object value = info.attr(max ? "max" : "min");
  return is_floating(d) ? py::object(py::float_(value)) : py::object(py::int_(value));
}

// TF's numpy text: repr of the array, the Python value for scalars, a leading
// newline when the text spans several lines.
std::string numpy_text(py::handle self, bool is_repr) {
  const auto& tensor = self.cast<const Tensor&>();
  py::array view = tensor_to_numpy_view(tensor, self);
  std::string text;
  if (tensor.rank() == 0) {
    py::object item = view.attr("item")();
    text = is_repr ? std::string(py::repr(item)) : std::string(py::str(item));
  } else {
    text = is_repr ? std::string(py::repr(view)) : std::string(py::str(view));
  }
  if (text.find('\n') != std::string::npos) text = "\n" + text;
  return text;
}

py::tuple shape_tuple(const Tensor& t) {
  py::tuple out(t.shape().size());
  for (std::size_t i = 0; i < t.shape().size(); ++i) out[i] = py::int_(t.shape()[i]);
  return out;
}

}  // namespace

void init_tensor(py::module_& m) {
  py::class_<DType>(m, "DType", "A tensor element type (mirrors tf.DType).")
      .def(py::init([](py::handle spec) {
             auto d = dtype_from_py(spec);
             if (!d) fail<TypeError>("DType", "a dtype is required");
             return *d;
           }),
           py::arg("type_value"), R"doc(The DType of `type_value`.

Args:
  type_value: a DType, a numpy dtype or type, or a dtype name ("float32").

Raises:
  TypeError: `type_value` names no supported dtype.)doc")
      .def_property_readonly("name", [](DType d) { return std::string(dtype_name(d)); })
      .def_property_readonly("size", [](DType d) { return dtype_size(d); })
      .def_property_readonly("is_floating", [](DType d) { return is_floating(d); })
      .def_property_readonly("is_integer", [](DType d) { return is_integer(d); })
      .def_property_readonly("is_bool", [](DType d) { return d == DType::kBool; })
      .def_property_readonly("is_unsigned", [](DType d) { return is_unsigned(d); })
      .def_property_readonly("is_complex", [](DType d) { return is_complex(d); })
      .def_property_readonly("is_quantized", [](DType) { return false; })
      .def_property_readonly("real_dtype",
                             [](DType d) {
                               return d == DType::kComplex128 ? DType::kFloat64 : is_complex(d) ? DType::kFloat32 : d;
                             })
      .def_property_readonly("min", [](DType d) { return dtype_limit(d, /*max=*/false); })
      .def_property_readonly("max", [](DType d) { return dtype_limit(d, /*max=*/true); })
      .def_property_readonly("as_numpy_dtype", [](DType d) { return numpy_dtype(d).attr("type"); })
      .def_property_readonly("base_dtype", [](DType d) { return d; })
      .def("__eq__",
           [](DType d, py::handle other) {
             try {
               auto o = dtype_from_py(other);
               return o && *o == d;
             } catch (const std::exception&) {
               return false;
             }
           })
      .def("__ne__",
           [](DType d, py::handle other) {
             try {
               auto o = dtype_from_py(other);
               return !(o && *o == d);
             } catch (const std::exception&) {
               return true;
             }
           })
      .def("__hash__", [](DType d) { return static_cast<int>(d); })
      .def("__repr__", [](DType d) { return fmt::format("tf.{}", dtype_name(d)); })
      .def("__str__", [](DType d) { return fmt::format("<dtype: '{}'>", dtype_name(d)); })
      .def(py::pickle([](DType d) { return std::string(dtype_name(d)); },
                      [](const std::string& name) { return dtype_from_name(name); }));
  for (DType d : kAllDTypes) m.attr(std::string(dtype_name(d)).c_str()) = d;

  py::class_<Tensor>(m, "Tensor", py::buffer_protocol(), R"doc(
An immutable tensor on a simulated device (mirrors tf.Tensor / EagerTensor).

np.asarray(t) and t.numpy() are zero-copy read-only views that keep the tensor
alive; np.array(t) copies. Its bytes count against its device's memory.)doc")
      .def_property_readonly("dtype", &Tensor::dtype)
      .def_property_readonly("_shape_tuple", &shape_tuple)
      .def_property_readonly("ndim", &Tensor::rank)
      .def_property_readonly("nbytes", &Tensor::nbytes)
      .def_property_readonly("device", [](const Tensor& t) { return t.device() ? t.device()->name() : std::string(); })
      .def("_num_elements", &Tensor::num_elements)
      .def("_buffer_address", [](const Tensor& t) { return reinterpret_cast<std::uintptr_t>(t.raw_data()); })
      .def(
          "numpy",
          [](py::handle self) -> py::object {
            const auto& t = self.cast<const Tensor&>();
            py::array view = tensor_to_numpy_view(t, self);
            if (t.rank() == 0) return view[py::tuple()];
            return std::move(view);
          },
          "Returns the value as numpy: a read-only view sharing the tensor's memory (a numpy scalar for rank 0).")
      .def(
          "__array__",
          [](py::handle self, const py::object& dtype, const py::object& copy) -> py::object {
            py::array view = tensor_to_numpy_view(self.cast<const Tensor&>(), self);
            bool must_copy = !copy.is_none() && copy.cast<bool>();
            if (!dtype.is_none()) return view.attr("astype")(dtype, py::arg("copy") = must_copy);
            if (must_copy) return view.attr("copy")();
            return std::move(view);
          },
          py::arg("dtype") = py::none(), py::arg("copy") = py::none(), R"doc(The numpy protocol: np.asarray(t).

Args:
  dtype: convert to this numpy dtype (a copy); None keeps the tensor's.
  copy: True always copies; None or False give the zero-copy read-only view when no conversion is needed.

Returns:
  A numpy array.)doc")
      .def_buffer([](const Tensor& t) {
        std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end()), strides;
        for (auto s : row_major_strides(t.shape()))
          strides.push_back(static_cast<py::ssize_t>(s * static_cast<std::int64_t>(dtype_size(t.dtype()))));
        return py::buffer_info(const_cast<void*>(t.raw_data()), static_cast<py::ssize_t>(dtype_size(t.dtype())),
                               buffer_format(t.dtype()), t.rank(), shape, strides, /*readonly=*/true);
      })
      .def("__repr__",
           [](py::handle self) {
             const auto& t = self.cast<const Tensor&>();
             return fmt::format("<tf.Tensor: shape={}, dtype={}, numpy={}>", shape_to_string(t.shape()),
                                dtype_name(t.dtype()), numpy_text(self, true));
           })
      .def("__str__",
           [](py::handle self) {
             const auto& t = self.cast<const Tensor&>();
             return fmt::format("tf.Tensor({}, shape={}, dtype={})", numpy_text(self, false),
                                shape_to_string(t.shape()), dtype_name(t.dtype()));
           })
      .def("__hash__",
           [](py::handle) -> py::int_ {
             fail<TypeError>("Tensor", "Tensor is unhashable. Instead, use tensor.ref() as the key.");
           })
      .def("__copy__", [](py::handle self) { return py::reinterpret_borrow<py::object>(self); })
      .def("__deepcopy__", [](py::handle self, py::handle) { return py::reinterpret_borrow<py::object>(self); })
      .def(py::pickle(
          [](py::handle self) {
            const auto& t = self.cast<const Tensor&>();
            return py::make_tuple(py::array(tensor_to_numpy_view(t, self).attr("copy")()), t.dtype());
          },
          [](const py::tuple& state) { return to_tensor(state[0], state[1].cast<DType>()); }));

  m.def(
      "convert_to_tensor",
      [](py::handle value, py::handle dtype) {
        return to_tensor_object(value, dtype_from_py(dtype), Conversion::kConvert);
      },
      py::arg("value"), py::arg("dtype") = py::none(), R"doc(Converts a Python value, numpy array or Tensor to a Tensor.

Args:
  value: a Tensor (returned as it is when the dtype matches), numpy array, Python scalar or nested list.
  dtype: the DType wanted; None infers it as TF does.

Returns:
  A Tensor.

Raises:
  TypeError: `value` cannot be converted, or a Tensor of another dtype is given with `dtype`.)doc");
  m.def(
      "constant",
      [](py::handle value, py::handle dtype) {
        return to_tensor_object(value, dtype_from_py(dtype), Conversion::kConstant);
      },
      py::arg("value"), py::arg("dtype") = py::none(), R"doc(Creates a Tensor holding a copy of `value` (tf.constant).

Args:
  value: a Tensor, numpy array, Python scalar or nested list.
  dtype: the DType wanted; None infers it as TF does.

Returns:
  A new Tensor on the current device.

Raises:
  TypeError: `value` cannot be converted to `dtype`.)doc");
  m.def(
      "copy_to_device",
      [](const Tensor& t, const std::string& device) {
        auto target = DeviceRegistry::global().find(device);
        py::gil_scoped_release release;
        return t.copy_to(target);
      },
      py::arg("tensor"), py::arg("device"), R"doc(A copy of `tensor` on another simulated device.

Args:
  tensor: the Tensor to copy.
  device: a full or partial device name, e.g. "TPU:3".

Returns:
  The new Tensor, charged to `device`.

Raises:
  ValueError: no device matches `device`, or several do.
  ResourceExhaustedError: the device's memory is full.)doc");
}

}  // namespace tpustrategy::bindings
