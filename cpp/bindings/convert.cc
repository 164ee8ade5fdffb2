#include "bindings/convert.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "bindings/python_imports.h"
#include "tpustrategy/core/errors.h"

namespace tpustrategy::bindings {

namespace {

py::object ml_dtypes_bfloat16() { return py::reinterpret_borrow<py::object>(ml_dtypes_bfloat16_type()); }

std::string type_name(py::handle value) { return py::str(py::type::handle_of(value).attr("__name__")); }

std::string short_repr(py::handle value) {
  std::string text = py::repr(value);
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

// Python scalar → one-element tensor of `dtype`, checking the value is representable.
Tensor python_scalar_to_tensor(py::handle value, std::optional<DType> requested) {
  if (py::isinstance<py::bool_>(value)) {
    DType dtype = requested.value_or(DType::kBool);
    auto v = value.cast<bool>();
    return dispatch_any_dtype(dtype, [&](auto tag) { return Tensor::scalar(static_cast<decltype(tag)>(v ? 1 : 0)); });
  }
  if (py::isinstance<py::int_>(value)) {
    long long v;
    try {
      v = value.cast<long long>();
    } catch (const py::cast_error&) {
      fail<TypeError>("convert_to_tensor", "Python int {} is out of range for int64", short_repr(value));
    }
    bool fits32 = v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max();
    DType dtype = requested.value_or(fits32 ? DType::kInt32 : DType::kInt64);
    if (dtype == DType::kInt32 && !fits32)
      fail<TypeError>("convert_to_tensor", "Cannot convert {} to EagerTensor of dtype int32: out of range", v);
    if (dtype == DType::kBool && v != 0 && v != 1)
      fail<TypeError>("convert_to_tensor", "Cannot convert {} to EagerTensor of dtype bool", v);
    return dispatch_any_dtype(dtype, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        // TF wraps a Python int into the narrow / unsigned dtypes (tf.constant(-1, tf.uint8) is 255).
        return Tensor::scalar(static_cast<T>(v));
      } else if constexpr (kIsComplex<T>) {
        return Tensor::scalar(T(static_cast<typename T::value_type>(v), 0));
      } else {
        return Tensor::scalar(static_cast<T>(static_cast<double>(v) == static_cast<double>(static_cast<T>(v))
                                                 ? static_cast<T>(v)
                                                 : static_cast<T>(static_cast<double>(v))));
      }
    });
  }
  if (py::isinstance<py::float_>(value)) {
    auto v = value.cast<double>();
    DType dtype = requested.value_or(DType::kFloat32);
    if (!is_floating(dtype) && !is_complex(dtype)) {  // TF: a Python float converts to complex too
      if (std::isnan(v) || std::trunc(v) != v || dtype == DType::kBool)
        fail<TypeError>("convert_to_tensor", "Cannot convert {} to EagerTensor of dtype {}", short_repr(value),
                        dtype_name(dtype));
    }
    return dispatch_any_dtype(dtype, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (kIsComplex<T>)
        return Tensor::scalar(T(static_cast<typename T::value_type>(v), 0));
      else
        return Tensor::scalar(static_cast<T>(v));
    });
  }
  if (PyComplex_Check(value.ptr())) {
    // A Python complex is complex128 in TF unless another complex dtype is asked for.
    DType dtype = requested.value_or(DType::kComplex128);
    if (!is_complex(dtype))
      fail<TypeError>("convert_to_tensor", "Cannot convert {} to EagerTensor of dtype {}", short_repr(value),
                      dtype_name(dtype));
    const std::complex<double> v(PyComplex_RealAsDouble(value.ptr()), PyComplex_ImagAsDouble(value.ptr()));
    if (dtype == DType::kComplex128) return Tensor::scalar(v);
    return Tensor::scalar(std::complex<float>(v));
  }
  fail<TypeError>("convert_to_tensor", "unsupported scalar {}", short_repr(value));
}

// Copies a numpy array (any layout) into a new tensor of `dtype`.
Tensor numpy_to_tensor(const py::array& array, DType dtype) {
  py::array contiguous = py::array::ensure(array, py::array::c_style | py::array::forcecast);
  if (!contiguous) throw py::error_already_set();
  if (!numpy_dtype(dtype).is(contiguous.dtype()) && !numpy_dtype(dtype).equal(contiguous.dtype())) {
    contiguous = py::array::ensure(contiguous.attr("astype")(numpy_dtype(dtype)), py::array::c_style);
  }
  Shape shape(contiguous.shape(), contiguous.shape() + contiguous.ndim());
  Tensor tensor = Tensor::empty(dtype, shape);
  if (tensor.nbytes() > 0) {
    const void* src = contiguous.data();
    void* dst = tensor.mutable_raw_data();
    auto n = static_cast<std::size_t>(tensor.nbytes());
    py::gil_scoped_release release;
    std::memcpy(dst, src, n);
  }
  return tensor;
}

// The Python Tensor whose buffer a read-only numpy view covers exactly, if any.
py::object owning_tensor_of_view(const py::array& array) {
  if (array.writeable() || !array.base()) return {};
  py::handle base = array.base();
  // numpy reaches tensors through the buffer protocol (base: a memoryview) or __array__.
  for (int depth = 0; depth < 4 && !py::isinstance<Tensor>(base); ++depth) {
    if (PyMemoryView_Check(base.ptr())) {
      base = PyMemoryView_GET_BUFFER(base.ptr())->obj;
    } else if (py::isinstance<py::array>(base)) {
      base = py::reinterpret_borrow<py::array>(base).base();
    } else {
      break;
    }
    if (!base) return {};
  }
  if (!py::isinstance<Tensor>(base)) return {};
  const auto& tensor = base.cast<const Tensor&>();
  if (tensor.raw_data() != array.data() || tensor.nbytes() != array.nbytes()) return {};
  if (!(py::detail::array_proxy(array.ptr())->flags & py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_)) return {};
  Shape shape(array.shape(), array.shape() + array.ndim());
  if (shape != tensor.shape() || dtype_from_numpy(array.dtype()) != tensor.dtype()) return {};
  return py::reinterpret_borrow<py::object>(base);
}

Tensor cast_tensor_for(const Tensor& tensor, DType dtype, Conversion mode) {
  if (tensor.dtype() == dtype) return tensor;
  if (mode == Conversion::kConvert) {
    fail<ValueError>("convert_to_tensor", "Tensor conversion requested dtype {} for Tensor with dtype {}",
                     dtype_name(dtype), dtype_name(tensor.dtype()));
  }
  // constant(tensor, dtype): go through numpy on the host, as TF's constant does for eager values.
  py::array view = tensor_to_numpy_view(tensor, py::cast(tensor));
  return numpy_to_tensor(view, dtype);
}

// The dtype of the Tensors inside a nested list or tuple, if it holds any: TF packs them, so they set the result's
// dtype (Python numbers beside them take it too); Tensors of two dtypes cannot be packed.
std::optional<DType> tensor_leaf_dtype(py::handle value) {
  if (py::isinstance<Tensor>(value)) return value.cast<const Tensor&>().dtype();
  if (!py::isinstance<py::list>(value) && !py::isinstance<py::tuple>(value)) return std::nullopt;
  std::optional<DType> found;
  for (py::handle item : value) {
    std::optional<DType> leaf = tensor_leaf_dtype(item);
    if (!leaf) continue;
    if (found && *found != *leaf)
      fail<InvalidArgumentError>("convert_to_tensor",
                                 "cannot compute Pack as input #1(zero-based) was expected to be a {} tensor but is a "
                                 "{} tensor",
                                 dtype_name(*found), dtype_name(*leaf));
    found = leaf;
  }
  return found;
}

}  // namespace

py::dtype numpy_dtype(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return py::dtype::of<bool>();
    case DType::kInt32:
      return py::dtype::of<std::int32_t>();
    case DType::kInt64:
      return py::dtype::of<std::int64_t>();
    case DType::kFloat16:
      return py::dtype("float16");
    case DType::kBFloat16:
      return py::dtype::from_args(ml_dtypes_bfloat16());
    case DType::kFloat32:
      return py::dtype::of<float>();
    case DType::kFloat64:
      return py::dtype::of<double>();
    case DType::kUInt8:
      return py::dtype::of<std::uint8_t>();
    case DType::kInt8:
      return py::dtype::of<std::int8_t>();
    case DType::kInt16:
      return py::dtype::of<std::int16_t>();
    case DType::kUInt16:
      return py::dtype::of<std::uint16_t>();
    case DType::kUInt32:
      return py::dtype::of<std::uint32_t>();
    case DType::kUInt64:
      return py::dtype::of<std::uint64_t>();
    case DType::kComplex64:
      return py::dtype("complex64");
    case DType::kComplex128:
      return py::dtype("complex128");
  }
  return py::dtype::of<float>();
}

DType dtype_from_numpy(const py::dtype& dtype) {
  for (DType d : kAllDTypes) {
    if (numpy_dtype(d).equal(dtype)) return d;
  }
  fail<TypeError>("dtype",
                  "numpy dtype {} is not supported; tpustrategy tensors hold bool, int8, int16, int32, int64, "
                  "uint8, uint16, uint32, uint64, float16, bfloat16, float32, float64, complex64 or complex128",
                  std::string(py::str(dtype)));
}

std::optional<DType> dtype_from_py(py::handle dtype) {
  if (dtype.is_none()) return std::nullopt;
  if (py::isinstance<DType>(dtype)) return dtype.cast<DType>();
  if (py::isinstance<py::str>(dtype)) return dtype_from_name(dtype.cast<std::string>());
  if (py::hasattr(dtype, "_tps_dtype")) return dtype.attr("_tps_dtype").cast<DType>();
  if (dtype.is(py::type::of(py::bool_()))) return DType::kBool;
  if (dtype.is(py::type::of(py::int_()))) return DType::kInt32;
  if (dtype.is(py::type::of(py::float_()))) return DType::kFloat32;
  try {
    py::dtype np_dtype = py::dtype::from_args(py::reinterpret_borrow<py::object>(dtype));
    return dtype_from_numpy(np_dtype);
  } catch (const py::error_already_set&) {
    fail<TypeError>("dtype", "cannot interpret {} as a dtype", short_repr(dtype));
  }
}

bool has_as_tensor(py::handle value) {
  PyObject* v = value.ptr();
  if (PyFloat_CheckExact(v) || PyLong_CheckExact(v) || PyBool_Check(v) || PyComplex_CheckExact(v)) return false;
  return py::hasattr(value, "_as_tensor");
}

Tensor to_tensor(py::handle value, std::optional<DType> dtype, Conversion mode) {
  if (py::isinstance<Tensor>(value))
    return cast_tensor_for(value.cast<const Tensor&>(), dtype.value_or(value.cast<const Tensor&>().dtype()), mode);
  if (has_as_tensor(value)) {
    py::object converted = value.attr("_as_tensor")();
    if (!py::isinstance<Tensor>(converted))
      fail<TypeError>("convert_to_tensor", "{}._as_tensor() did not return a Tensor", type_name(value));
    const auto& tensor = converted.cast<const Tensor&>();
    return cast_tensor_for(tensor, dtype.value_or(tensor.dtype()), mode);
  }
  // numpy scalars first: np.float64 subclasses Python float but keeps its dtype, as in TF.
  bool is_numpy = py::isinstance<py::array>(value) || py::isinstance(value, numpy_generic_type());
  if (!is_numpy && (py::isinstance<py::bool_>(value) || py::isinstance<py::int_>(value) ||
                    py::isinstance<py::float_>(value) || PyComplex_Check(value.ptr())))
    return python_scalar_to_tensor(value, dtype);
  if (is_numpy) {
    auto array = py::reinterpret_borrow<py::array>(numpy_module().attr("asarray")(value));
    if (py::object owner = owning_tensor_of_view(array)) {
      const auto& tensor = owner.cast<const Tensor&>();
      return cast_tensor_for(tensor, dtype.value_or(tensor.dtype()), mode);
    }
    if (dtype && is_complex(*dtype) && py::str(array.dtype().attr("kind")).cast<std::string>() == "c")
      return numpy_to_tensor(array, *dtype);  // complex128 arrays narrow to complex64 when asked, as tf.constant does
    DType source = dtype_from_numpy(array.dtype());
    DType target = dtype.value_or(source);
    if (mode == Conversion::kConvert && dtype && source != target && !(is_floating(target) && !is_floating(source))) {
      // convert_to_tensor accepts a numpy array of another dtype only when the values are exact.
      py::array cast = array.attr("astype")(numpy_dtype(target));
      if (!numpy_module().attr("array_equal")(cast.attr("astype")(array.dtype()), array).cast<bool>())
        fail<TypeError>("convert_to_tensor", "cannot convert a {} array to {} without losing values",
                        dtype_name(source), dtype_name(target));
    }
    return numpy_to_tensor(array, target);
  }
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    py::handle np = numpy_module();
    py::array array;
    try {
      array = np.attr("asarray")(value);
    } catch (py::error_already_set& e) {
      fail<ValueError>("convert_to_tensor", "Can't convert non-rectangular Python sequence to Tensor: {}",
                       short_repr(value));
    }
    std::string kind = py::str(array.dtype().attr("kind"));
    if (kind == "O" || kind == "U" || kind == "S")
      fail<TypeError>("convert_to_tensor", "Can't convert {} to a Tensor: elements must be bool, int or float",
                      short_repr(value));
    DType inferred;
    if (kind == "f") {
      inferred = DType::kFloat32;
    } else if (kind == "i" || kind == "u") {
      // Compared as Python ints: a uint64 list value above 2^63 does not fit a C++ long long.
      bool fits = array.size() == 0 || (np.attr("min")(array) >= py::int_(std::numeric_limits<std::int32_t>::min()) &&
                                        np.attr("max")(array) <= py::int_(std::numeric_limits<std::int32_t>::max()));
      inferred = fits ? DType::kInt32 : DType::kInt64;
    } else if (kind == "b") {
      inferred = DType::kBool;
    } else {
      inferred = dtype_from_numpy(array.dtype());  // complex ("c"): complex64 or complex128, as numpy holds it
    }
    if (array.size() == 0 && kind == "f") inferred = DType::kFloat32;
    if (!dtype) inferred = tensor_leaf_dtype(value).value_or(inferred);
    DType target = dtype.value_or(inferred);
    if (!is_floating(target) && !is_complex(target) && kind == "f" &&
        !np.attr("array_equal")(np.attr("trunc")(array), array).cast<bool>())
      fail<TypeError>("convert_to_tensor", "Cannot convert {} to EagerTensor of dtype {}", short_repr(value),
                      dtype_name(target));
    if (kind == "c" && !is_complex(target))
      fail<TypeError>("convert_to_tensor", "Cannot convert {} to EagerTensor of dtype {}", short_repr(value),
                      dtype_name(target));

    return numpy_to_tensor(array, target);
  }
  fail<TypeError>("convert_to_tensor", "Attempt to convert a value ({}) with an unsupported type ({}) to a Tensor",
                  short_repr(value), type_name(value));
}

py::object to_tensor_object(py::handle value, std::optional<DType> dtype, Conversion mode) {
  if (py::isinstance<Tensor>(value) && (!dtype || value.cast<const Tensor&>().dtype() == *dtype))
    return py::reinterpret_borrow<py::object>(value);
  if (py::isinstance<py::array>(value)) {
    auto array = py::reinterpret_borrow<py::array>(value);
    py::object owner = owning_tensor_of_view(array);
    if (owner && (!dtype || owner.cast<const Tensor&>().dtype() == *dtype)) return owner;
  }
  return py::cast(to_tensor(value, dtype, mode));
}

py::array tensor_to_numpy_view(const Tensor& tensor, py::handle owner) {
  std::vector<py::ssize_t> shape(tensor.shape().begin(), tensor.shape().end());
  std::vector<py::ssize_t> strides;
  strides.reserve(tensor.shape().size());
  auto row = row_major_strides(tensor.shape());
  for (auto s : row)
    strides.push_back(static_cast<py::ssize_t>(s * static_cast<std::int64_t>(dtype_size(tensor.dtype()))));
  py::array array(numpy_dtype(tensor.dtype()), shape, strides, tensor.raw_data(), owner);
  array.attr("flags").attr("writeable") = false;
  return array;
}

}  // namespace tpustrategy::bindings
