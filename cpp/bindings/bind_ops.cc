// Tensor ops (tpustrategy._core.ops) and the Python operators of Tensor.
// Every op goes through the dispatch point (autodiff/recorded_ops.h), where active
// gradient tapes record it. Arguments are converted with the GIL held (TF's rules: a Tensor operand fixes
// the dtype a Python operand converts to), then every kernel runs with the GIL
// released. The tf-shaped Python signatures live in python/tpustrategy/ops/.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <climits>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "bindings/bindings.h"
#include "bindings/convert.h"
#include "bindings/elementwise_op_names.h"
#include "bindings/nogil.h"
#include "bindings/operands.h"
#include "tpustrategy/autodiff/recorded_ops.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/ops/cast.h"
#include "tpustrategy/ops/creation.h"
#include "tpustrategy/ops/elementwise.h"
#include "tpustrategy/ops/fused_update.h"
#include "tpustrategy/ops/indexing.h"
#include "tpustrategy/ops/matmul.h"
#include "tpustrategy/ops/nn.h"
#include "tpustrategy/ops/reduce.h"
#include "tpustrategy/ops/shape_ops.h"

namespace tpustrategy::bindings {

// The Tensor operators as plain CPython methods (elementwise_operators.cc) and the entry points of tf.add & co.
// (elementwise_entries.cc); declared here, not in bindings.h, to keep that header stable.
void init_elementwise_operators(py::handle tensor_class);
void init_elementwise_entries(py::module_& m);

namespace {

using Axes = std::optional<std::vector<std::int64_t>>;

// A Python int (or __index__-able) as int64, saturating at the int64 range.
std::int64_t index_value(py::handle v, const char* what) {
  if (py::isinstance<py::bool_>(v)) fail<TypeError>("__getitem__", "{} must be an integer, not bool", what);
  PyObject* index = PyNumber_Index(v.ptr());
  if (!index) {
    PyErr_Clear();
    fail<TypeError>("__getitem__",
                    "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar tf.int32/tf.int64 "
                    "tensors are valid indices, got {}",
                    std::string(py::repr(v)));
  }
  auto owned = py::reinterpret_steal<py::object>(index);
  int overflow = 0;
  long long value = PyLong_AsLongLongAndOverflow(index, &overflow);
  if (overflow > 0) return LLONG_MAX;
  if (overflow < 0) return -LLONG_MAX;
  return value;
}

IndexItem index_item(py::handle key) {
  if (key.is_none()) return IndexItem::new_axis();
  if (key.is(py::ellipsis())) return IndexItem::ellipsis();
  if (PySlice_Check(key.ptr())) {
    py::object start = key.attr("start"), stop = key.attr("stop"), step = key.attr("step");
    std::optional<std::int64_t> b, e;
    if (!start.is_none()) b = index_value(start, "slice start");
    if (!stop.is_none()) e = index_value(stop, "slice stop");
    std::int64_t s = step.is_none() ? 1 : index_value(step, "slice step");
    return IndexItem::range(b, e, s);
  }
  if (py::isinstance<Tensor>(key)) {
    const auto& t = key.cast<const Tensor&>();
    if (t.rank() != 0 || !is_index_dtype(t.dtype())) {
      fail<TypeError>("__getitem__", "a tensor index must be a scalar int32/int64 tensor, got a {} tensor of shape {}",
                      dtype_name(t.dtype()), shape_to_string(t.shape()));
    }
    return IndexItem::at(t.dtype() == DType::kInt64 ? t.data<std::int64_t>()[0] : t.data<std::int32_t>()[0]);
  }
  return IndexItem::at(index_value(key, "an index"));
}

// The single element of a one-element tensor, as a Python bool / int / float.
py::object scalar_value(const Tensor& t, const char* what) {
  if (t.num_elements() != 1) {
    fail<TypeError>(what, "only size-1 tensors can be converted to Python scalars, got shape {}",
                    shape_to_string(t.shape()));
  }
  return dispatch_any_dtype(t.dtype(), [&](auto tag) -> py::object {
    using T = decltype(tag);
    const T v = t.data<T>()[0];
    if constexpr (std::is_same_v<T, bool>)
      return py::bool_(v);
    else if constexpr (kIsComplex<T>)
      return py::reinterpret_steal<py::object>(PyComplex_FromDoubles(v.real(), v.imag()));
    else if constexpr (std::is_unsigned_v<T>)
      return py::int_(static_cast<unsigned long long>(v));
    else if constexpr (std::is_integral_v<T>)
      return py::int_(static_cast<long long>(v));
    else
      return py::float_(static_cast<double>(v));
  });
}

const char* kUnaryDoc = R"doc(Applies the op elementwise.

Args:
  x: A Tensor or a value convertible to one.
  name: Ignored (TF graph name).

Returns:
  A Tensor with the dtype and shape of `x`.

Raises:
  TypeError: the op does not support `x`'s dtype (e.g. exp/log/sqrt of integers).)doc";

const char* kBinaryDoc = R"doc(Applies the op elementwise with NumPy broadcasting.

Args:
  x: A Tensor or a value convertible to one.
  y: A Tensor or a value convertible to one; a Python operand takes the other operand's dtype.
  name: Ignored (TF graph name).

Returns:
  A Tensor of the broadcast shape (bool for comparisons, float64 for divide of integers).

Raises:
  InvalidArgumentError: the shapes do not broadcast, the dtypes differ, or integer division by zero.
  TypeError: the op does not support the dtype, or a Python operand is not representable in it.)doc";

const char* kArgExtremumArgs = R"doc(

Args:
  input: a Tensor or a value convertible to one.
  axis: the axis to reduce (negative counts from the end).
  output_type: int32 or int64.

Returns:
  A Tensor of `output_type` with `axis` removed.

Raises:
  InvalidArgumentError: the axis is out of range, or the input is empty along it.)doc";

void def_matmul_operator(py::class_<Tensor>& cls, const char* name, bool reflected) {
  cls.def(name, [reflected](py::handle self, py::handle other) -> py::object {
    if (!is_operand(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    auto [a, b] = reflected ? operands(other, self) : operands(self, other);
    // An init-capture: clang before 16 cannot capture a structured binding.
    return py::cast(nogil([&a = a, &b = b] { return op::matmul(a, b); }));
  });
}

void def_equality_operator(py::class_<Tensor>& cls, const char* name, BinaryOp kind) {
  // TF2: elementwise; values that cannot be compared (incompatible shapes, dtypes) give a Python bool. Other types
  // get NotImplemented, so a RaggedTensor compares element-wise from either side (Python's identity fallback
  // gives the same bool for everything else).
  cls.def(name, [kind](py::handle self, py::handle other) -> py::object {
    const bool unequal = kind == BinaryOp::kNotEqual;
    if (other.is_none()) return py::bool_(unequal);
    if (!is_operand(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    try {
      auto [a, b] = operands(self, other);
      return py::cast(nogil([&a = a, &b = b, kind] { return op::binary(kind, a, b); }));
    } catch (const InvalidArgumentError&) {
      return py::bool_(unequal);
    } catch (const TypeError&) {
      return py::bool_(unequal);
    } catch (const ValueError&) {
      return py::bool_(unequal);
    }
  });
}

void init_tensor_operators(py::module_& m) {
  auto cls = py::reinterpret_borrow<py::class_<Tensor>>(py::type::of<Tensor>());
  init_elementwise_operators(cls);
  def_equality_operator(cls, "__eq__", BinaryOp::kEqual);
  def_equality_operator(cls, "__ne__", BinaryOp::kNotEqual);
  def_matmul_operator(cls, "__matmul__", false);
  def_matmul_operator(cls, "__rmatmul__", true);
  cls.def("__pos__", [](py::handle self) { return py::reinterpret_borrow<py::object>(self); });
  cls.def("__abs__", [](const Tensor& t) { return nogil([&] { return op::unary(UnaryOp::kAbs, t); }); });
  cls.def("__invert__", [](const Tensor& t) {
    if (t.dtype() != DType::kBool)
      fail<TypeError>("__invert__", "~ is only supported on bool tensors, got {}", dtype_name(t.dtype()));
    return nogil([&] { return op::unary(UnaryOp::kLogicalNot, t); });
  });
  cls.def(
      "__getitem__",
      [](const Tensor& t, py::handle key) {
        std::vector<IndexItem> items;
        if (py::isinstance<py::tuple>(key)) {
          for (py::handle k : key) items.push_back(index_item(k));
        } else {
          items.push_back(index_item(key));
        }
        return nogil([&] { return op::get_item(t, items); });
      },
      py::arg("slice_spec"), R"doc(NumPy basic indexing (tf.Tensor.__getitem__).

Args:
  slice_spec: an int, slice (any step), ..., None (tf.newaxis), a scalar int tensor, or a tuple of them.

Raises:
  TypeError: an index of another kind.
  InvalidArgumentError: an index out of range.)doc");
  cls.def("__len__", [](const Tensor& t) -> std::int64_t {
    if (t.rank() == 0) fail<TypeError>("__len__", "len() of a scalar (rank-0) tensor is not defined");
    return t.shape()[0];
  });
  cls.def("__iter__", [](const Tensor& t) {
    if (t.rank() == 0) fail<TypeError>("__iter__", "Cannot iterate over a scalar tensor.");
    std::vector<Tensor> rows = nogil([&] { return op::unstack(t, 0); });
    return py::iter(py::cast(std::move(rows)));
  });
  cls.def("__bool__", [](const Tensor& t) {
    if (t.num_elements() != 1) {
      fail<ValueError>("__bool__",
                       "The truth value of a tensor with {} elements (shape {}) is ambiguous. Use tf.reduce_any or "
                       "tf.reduce_all",
                       t.num_elements(), shape_to_string(t.shape()));
    }
    return py::bool_(scalar_value(t, "__bool__")).cast<bool>();
  });
  cls.def("__int__", [](const Tensor& t) { return py::int_(scalar_value(t, "__int__")); });
  cls.def("__float__", [](const Tensor& t) {
    py::object v = scalar_value(t, "__float__");
    return py::float_(is_complex(t.dtype()) ? v.attr("real") : v);  // TF: float() of complex64 is its real part
  });
  cls.def("__complex__", [](const Tensor& t) {
    py::object v = scalar_value(t, "__complex__");
    return py::reinterpret_steal<py::object>(PyComplex_FromCComplex(PyComplex_AsCComplex(v.ptr())));
  });
  cls.def("__index__", [](const Tensor& t) -> py::object {
    if (t.rank() != 0 || !is_integer(t.dtype())) {
      fail<TypeError>("__index__", "only scalar integer tensors can be used as an index, got a {} tensor of shape {}",
                      dtype_name(t.dtype()), shape_to_string(t.shape()));
    }
    return scalar_value(t, "__index__");
  });
  cls.def(
      "item", [](const Tensor& t) { return scalar_value(t, "item"); },
      "The value of a size-1 tensor as a Python bool, int, float or complex (TypeError for other sizes).");
  (void)m;
}

}  // namespace

// 3-D convolution and pooling (bind_ops_nn3d.cc); declared here, not in bindings.h, to keep that header stable.
void init_ops_nn3d(py::module_& m);

void init_ops(py::module_& m) {
  // Loop bindings reach the lambdas through init-captures: clang before 16 cannot capture a structured binding.
  for (const auto& [name, kind] : kUnaryOpNames) {
    m.def(
        name, [kind = kind](py::handle x, py::handle) { return unary_maybe_nogil(kind, as_tensor(x)); }, py::arg("x"),
        py::kw_only(), py::arg("name") = py::none(), kUnaryDoc);
  }
  for (const auto& [name, kind] : kBinaryOpNames) {
    m.def(
        name,
        [kind = kind](py::handle x, py::handle y, py::handle) {
          auto [a, b] = operands(x, y);
          return binary_maybe_nogil(kind, a, b);
        },
        py::arg("x"), py::arg("y"), py::kw_only(), py::arg("name") = py::none(), kBinaryDoc);
  }

  m.def(
      "cast",
      [](py::handle x, DType dtype) {
        Tensor t = as_tensor(x);
        return nogil([&] { return op::cast(t, dtype); });
      },
      py::arg("x"), py::arg("dtype"), R"doc(Converts `x` to `dtype` (tf.cast).

Float to integer truncates toward zero and saturates (NaN becomes 0); any value to bool is `x != 0`.

Args:
  x: A Tensor or a value convertible to one.
  dtype: The target DType.

Returns:
  `x` itself when it already has `dtype`, else a new Tensor.)doc");

  const std::pair<const char*, ReduceKind> reductions[] = {
      {"reduce_sum", ReduceKind::kSum}, {"reduce_mean", ReduceKind::kMean}, {"reduce_max", ReduceKind::kMax},
      {"reduce_min", ReduceKind::kMin}, {"reduce_prod", ReduceKind::kProd}, {"reduce_any", ReduceKind::kAny},
      {"reduce_all", ReduceKind::kAll}};
  for (const auto& [name, kind] : reductions) {
    m.def(
        name,
        [kind = kind](py::handle x, Axes axis, bool keepdims) {
          Tensor t = as_tensor(x);
          return nogil([&] { return op::reduce(kind, t, axis, keepdims); });
        },
        py::arg("input_tensor"), py::arg("axis") = py::none(), py::kw_only(), py::arg("keepdims") = false,
        R"doc(Reduces `input_tensor` over `axis` (tf.reduce_*).

Args:
  input_tensor: A Tensor or a value convertible to one.
  axis: None (all axes) or a list of axes (negative counts from the end; [] reduces nothing).
  keepdims: Keep reduced axes with length 1.

Returns:
  The reduced Tensor (same dtype; the mean of integers uses integer division).

Raises:
  InvalidArgumentError: an axis is out of range.
  TypeError: unsupported dtype (bool for arithmetic reductions, non-bool for any/all).)doc");
  }
  const std::tuple<const char*, const char*, Tensor (*)(const Tensor&, std::int64_t, DType)> arg_extrema[] = {
      {"argmax", "maximum", &op::argmax}, {"argmin", "minimum", &op::argmin}};
  for (const auto& [name, what, fn] : arg_extrema) {
    m.def(
        name,
        [fn = fn](py::handle x, std::int64_t axis, DType output_type) {
          Tensor t = as_tensor(x);
          return nogil([&] { return fn(t, axis, output_type); });
        },
        py::arg("input"), py::arg("axis") = 0, py::kw_only(), py::arg("output_type") = DType::kInt64,
        (std::string("Index of the first ") + what + " along `axis` (tf.math." + name + ")." + kArgExtremumArgs)
            .c_str());
  }
  m.def(
      "matmul",
      [](py::handle a, py::handle b, bool transpose_a, bool transpose_b) {
        auto [x, y] = operands(a, b);
        return nogil([&x = x, &y = y, transpose_a, transpose_b] { return op::matmul(x, y, transpose_a, transpose_b); });
      },
      py::arg("a"), py::arg("b"), py::kw_only(), py::arg("transpose_a") = false, py::arg("transpose_b") = false,
      R"doc(Matrix product of the last two axes, batch axes broadcast (tf.linalg.matmul).

Args:
  a: a Tensor of rank >= 2 (or convertible).
  b: a Tensor of rank >= 2 of a's dtype; a Python operand takes a's dtype.
  transpose_a: use the transpose of a's last two axes.
  transpose_b: use the transpose of b's last two axes.

Returns:
  A Tensor of shape batch + [M, N].

Raises:
  InvalidArgumentError: rank < 2, mismatched inner dimensions, batch shapes that do not broadcast.)doc");

  m.def(
      "reshape",
      [](py::handle x, std::vector<std::int64_t> shape) {
        Tensor t = as_tensor(x);
        return nogil([&] { return op::reshape(t, shape); });
      },
      py::arg("tensor"), py::arg("shape"),
      R"doc(Reshapes `tensor` (tf.reshape); shares the buffer.

Args:
  tensor: a Tensor or a value convertible to one.
  shape: the new shape; one dimension may be -1 (inferred).

Raises:
  InvalidArgumentError: the element counts differ, or more than one -1.)doc");
  m.def(
      "expand_dims",
      [](py::handle x, std::int64_t axis) {
        Tensor t = as_tensor(x);
        return nogil([&] { return op::expand_dims(t, axis); });
      },
      py::arg("input"), py::arg("axis"),
      R"doc(Inserts a length-1 axis at `axis` (tf.expand_dims).

Args:
  input: a Tensor or a value convertible to one.
  axis: in [-rank - 1, rank].

Raises:
  InvalidArgumentError: axis out of range.)doc");
  m.def(
      "squeeze",
      [](py::handle x, std::vector<std::int64_t> axis) {
        Tensor t = as_tensor(x);
        return nogil([&] { return op::squeeze(t, axis); });
      },
      py::arg("input"), py::arg("axis") = std::vector<std::int64_t>{},
      R"doc(Removes length-1 axes (tf.squeeze).

Args:
  input: a Tensor or a value convertible to one.
  axis: the axes to remove; all length-1 axes when empty.

Raises:
  InvalidArgumentError: a listed axis is out of range or not of length 1.)doc");
  m.def(
      "transpose",
      [](py::handle x, std::vector<std::int64_t> perm) {
        Tensor t = as_tensor(x);
        return nogil([&] { return op::transpose(t, perm); });
      },
      py::arg("a"), py::arg("perm") = std::vector<std::int64_t>{},
      R"doc(Permutes axes (tf.transpose).

Args:
  a: a Tensor or a value convertible to one.
  perm: a permutation of range(rank); reverses the axes when empty.

Raises:
  InvalidArgumentError: perm is not a permutation of the axes.)doc");
  m.def(
      "concat",
      [](const std::vector<Tensor>& values, std::int64_t axis) {
        return nogil([&] { return op::concat(values, axis); });
      },
      py::arg("values"), py::arg("axis"),
      R"doc(Concatenates tensors of one dtype along `axis` (tf.concat).

Args:
  values: Tensors of one dtype and rank, equal except along `axis`.
  axis: the axis (negative counts from the end).

Raises:
  InvalidArgumentError: no values, or dtypes, ranks or other dimensions differ.)doc");
  m.def(
      "stack",
      [](const std::vector<Tensor>& values, std::int64_t axis) {
        return nogil([&] { return op::stack(values, axis); });
      },
      py::arg("values"), py::arg("axis") = 0,
      R"doc(Stacks same-shaped tensors along a new axis (tf.stack).

Args:
  values: Tensors of one dtype and shape.
  axis: where the new axis goes, in [-rank - 1, rank].

Raises:
  InvalidArgumentError: no values, or dtypes or shapes differ.)doc");
  m.def(
      "unstack",
      [](py::handle x, std::int64_t axis) {
        Tensor t = as_tensor(x);
        return nogil([&] { return op::unstack(t, axis); });
      },
      py::arg("value"), py::arg("axis") = 0,
      R"doc(The slices of `value` along `axis` (tf.unstack).

Args:
  value: a Tensor of rank >= 1 (or convertible).
  axis: the axis to unstack (negative counts from the end).

Returns:
  A list of value.shape[axis] Tensors, each without `axis`.)doc");
  m.def(
      "split",
      [](py::handle x, std::int64_t num, std::int64_t axis) {
        Tensor t = as_tensor(x);
        return nogil([&] { return op::split(t, num, axis); });
      },
      py::arg("value"), py::arg("num"), py::arg("axis") = 0,
      R"doc(Splits into `num` equal parts (tf.split with an integer).

Args:
  value: a Tensor or a value convertible to one.
  num: the number of parts; must divide value.shape[axis].
  axis: the axis to split.

Returns:
  A list of `num` Tensors.

Raises:
  InvalidArgumentError: num does not divide the axis.)doc");
  m.def(
      "split_sizes",
      [](py::handle x, std::vector<std::int64_t> sizes, std::int64_t axis) {
        Tensor t = as_tensor(x);
        return nogil([&] { return op::split_sizes(t, sizes, axis); });
      },
      py::arg("value"), py::arg("sizes"), py::arg("axis") = 0,
      R"doc(Splits into parts of `sizes` (tf.split with a list).

Args:
  value: a Tensor or a value convertible to one.
  sizes: the parts' sizes along `axis`; one may be -1 (the rest).
  axis: the axis to split.

Returns:
  A list of len(sizes) Tensors.

Raises:
  InvalidArgumentError: the sizes do not add up to the axis.)doc");
  m.def(
      "tile",
      [](py::handle x, std::vector<std::int64_t> multiples) {
        Tensor t = as_tensor(x);
        return nogil([&] { return op::tile(t, multiples); });
      },
      py::arg("input"), py::arg("multiples"),
      R"doc(Repeats `input` `multiples[i]` times along axis i (tf.tile).

Args:
  input: a Tensor or a value convertible to one.
  multiples: one non-negative count per axis.

Raises:
  InvalidArgumentError: len(multiples) differs from the rank, or a count is negative.)doc");
  m.def(
      "broadcast_to",
      [](py::handle x, std::vector<std::int64_t> shape) {
        Tensor t = as_tensor(x);
        return nogil([&] { return op::broadcast_to(t, shape); });
      },
      py::arg("input"), py::arg("shape"),
      R"doc(Broadcasts `input` to `shape` (tf.broadcast_to, NumPy rules).

Args:
  input: a Tensor or a value convertible to one.
  shape: the target shape.

Raises:
  InvalidArgumentError: input does not broadcast to shape.)doc");
  m.def(
      "slice",
      [](py::handle x, std::vector<std::int64_t> begin, std::vector<std::int64_t> size) {
        Tensor t = as_tensor(x);
        return nogil([&] { return op::slice(t, begin, size); });
      },
      py::arg("input_"), py::arg("begin"), py::arg("size"),
      R"doc(The block of `input_` at `begin` of `size` (tf.slice).

Args:
  input_: a Tensor or a value convertible to one.
  begin: the start index per axis.
  size: the extent per axis; -1 means to the end.

Raises:
  InvalidArgumentError: the block does not fit in the input.)doc");
  m.def(
      "gather",
      [](py::handle x, py::handle indices, std::int64_t axis) {
        Tensor t = as_tensor(x);
        Tensor i = as_tensor(indices);
        return nogil([&] { return op::gather(t, i, axis); });
      },
      py::arg("params"), py::arg("indices"), py::arg("axis") = 0,
      R"doc(Gathers slices of `params` along `axis` (tf.gather).

Args:
  params: a Tensor or a value convertible to one.
  indices: an int32 / int64 Tensor of indices into axis `axis`.
  axis: the axis to gather from.

Returns:
  A Tensor of shape params.shape[:axis] + indices.shape + params.shape[axis + 1:].

Raises:
  InvalidArgumentError: an index is out of range.)doc");

  m.def(
      "fill",
      [](std::vector<std::int64_t> dims, py::handle value) {
        Tensor v = as_tensor(value);
        return nogil([&] { return op::fill(dims, v); });
      },
      py::arg("dims"), py::arg("value"),
      R"doc(A tensor of shape `dims` filled with the scalar `value` (tf.fill).

Args:
  dims: the shape.
  value: a scalar Tensor or Python number; its dtype is the result's.)doc");
  m.def(
      "zeros",
      [](std::vector<std::int64_t> shape, DType dtype) { return nogil([&] { return op::zeros(shape, dtype); }); },
      py::arg("shape"), py::arg("dtype") = DType::kFloat32,
      R"doc(A tensor of zeros (tf.zeros).

Args:
  shape: the shape.
  dtype: the DType.)doc");
  m.def(
      "ones",
      [](std::vector<std::int64_t> shape, DType dtype) { return nogil([&] { return op::ones(shape, dtype); }); },
      py::arg("shape"), py::arg("dtype") = DType::kFloat32,
      R"doc(A tensor of ones (tf.ones).

Args:
  shape: the shape.
  dtype: the DType.)doc");
  m.def(
      "range",
      [](py::handle start, py::handle limit, py::handle delta, std::optional<DType> dtype) {
        Tensor s = as_tensor(start, dtype), l = as_tensor(limit, dtype), d = as_tensor(delta, dtype);
        if (!dtype) {
          // TF's inference: the widest of int32 < int64 < float32 < float64 among the arguments.
          auto rank = [](DType t) {
            switch (t) {
              case DType::kInt32:
                return 0;
              case DType::kInt64:
                return 1;
              case DType::kFloat32:
                return 3;
              case DType::kFloat64:
                return 4;
              default:
                return 2;
            }
          };
          DType widest = s.dtype();
          for (DType t : {l.dtype(), d.dtype()}) {
            if (rank(t) > rank(widest)) widest = t;
          }
          dtype = widest;
        }
        return nogil([&] { return op::range(op::cast(s, *dtype), op::cast(l, *dtype), op::cast(d, *dtype)); });
      },
      py::arg("start"), py::arg("limit"), py::arg("delta"), py::kw_only(), py::arg("dtype") = py::none(),
      R"doc(The sequence start, start + delta, ... up to but excluding limit (tf.range).

Args:
  start: the first value.
  limit: the bound, excluded.
  delta: the step, not zero.
  dtype: the DType; None infers the widest of int32 < int64 < float32 < float64 among the arguments.

Raises:
  InvalidArgumentError: delta is zero or points away from limit.)doc");
  m.def(
      "one_hot",
      [](py::handle indices, std::int64_t depth, py::handle on, py::handle off, std::int64_t axis,
         std::optional<DType> dtype) {
        Tensor idx = as_tensor(indices);
        if (!dtype) {  // TF: the dtype of on_value / off_value when given, else float32
          if (!on.is_none())
            dtype = as_tensor(on).dtype();
          else if (!off.is_none())
            dtype = as_tensor(off).dtype();
          else
            dtype = DType::kFloat32;
        }
        Tensor on_t = on.is_none() ? op::cast(Tensor::scalar<bool>(true), *dtype) : as_tensor(on, dtype);
        Tensor off_t = off.is_none() ? op::cast(Tensor::scalar<bool>(false), *dtype) : as_tensor(off, dtype);
        return nogil([&] { return op::one_hot(idx, depth, on_t, off_t, axis); });
      },
      py::arg("indices"), py::arg("depth"), py::kw_only(), py::arg("on_value") = py::none(),
      py::arg("off_value") = py::none(), py::arg("axis") = -1, py::arg("dtype") = py::none(),
      R"doc(One-hot encoding (tf.one_hot); out-of-range indices give all off_value.

Args:
  indices: an integer Tensor.
  depth: the number of classes.
  on_value: the value at the index (default 1).
  off_value: the value elsewhere (default 0).
  axis: where the new axis of length `depth` goes (-1: last).
  dtype: the result's DType; None takes on_value's or off_value's, else float32.

Returns:
  A Tensor of rank indices.rank + 1.)doc");
  m.def(
      "where",
      [](py::handle condition, py::handle x, py::handle y) {
        Tensor c = as_tensor(condition);
        if (x.is_none() && y.is_none()) return nogil([&] { return op::where(c); });
        if (x.is_none() || y.is_none()) fail<ValueError>("where", "x and y must both be given, or neither");
        auto [a, b] = operands(x, y);
        return nogil([&c, &a = a, &b = b] { return op::where(c, a, b); });
      },
      py::arg("condition"), py::arg("x") = py::none(), py::arg("y") = py::none(),
      R"doc(Selects x where condition else y, broadcasting (tf.where).

Args:
  condition: a bool Tensor.
  x: the values where condition is true; None with y None.
  y: the values where condition is false.

Returns:
  With x and y, a Tensor of the broadcast shape; with only condition, the int64 [n, rank] coordinates
  of its true elements.

Raises:
  ValueError: only one of x and y is given.
  InvalidArgumentError: the shapes do not broadcast or x and y differ in dtype.)doc");
  m.def(
      "identity",
      [](py::handle x) {
        Tensor t = as_tensor(x);
        return nogil([&] { return op::identity(t); });
      },
      py::arg("input"),
      R"doc(The same values on the current device (tf.identity).

Args:
  input: a Tensor or a value convertible to one.)doc");
  m.def(
      "softmax",
      [](py::handle x, std::int64_t axis) {
        Tensor t = as_tensor(x);
        return nogil([&] { return op::softmax(t, axis); });
      },
      py::arg("logits"), py::arg("axis") = -1,
      R"doc(Numerically stable softmax over `axis` (tf.nn.softmax).

Args:
  logits: a floating Tensor.
  axis: the axis to normalise over.)doc");
  m.def(
      "log_softmax",
      [](py::handle x, std::int64_t axis) {
        Tensor t = as_tensor(x);
        return nogil([&] { return op::log_softmax(t, axis); });
      },
      py::arg("logits"), py::arg("axis") = -1,
      R"doc(Numerically stable log-softmax over `axis` (tf.nn.log_softmax).

Args:
  logits: a floating Tensor.
  axis: the axis to normalise over.)doc");

  m.def(
      "pad",
      [](py::handle x, std::vector<std::int64_t> paddings) {
        Tensor t = as_tensor(x);
        return nogil([&] { return op::pad(t, paddings); });
      },
      py::arg("tensor"), py::arg("paddings"),
      R"doc(Zero padding (tf.pad with mode CONSTANT and value 0).

Args:
  tensor: a Tensor or a value convertible to one.
  paddings: the flattened [rank, 2] (before, after) amounts.

Raises:
  InvalidArgumentError: paddings of the wrong length, or negative.)doc");
  m.def(
      "unsorted_segment_sum",
      [](py::handle data, py::handle segment_ids, std::int64_t num_segments) {
        Tensor d = as_tensor(data), ids = as_tensor(segment_ids);
        return nogil([&] { return op::unsorted_segment_sum(d, ids, num_segments); });
      },
      py::arg("data"), py::arg("segment_ids"), py::arg("num_segments"),
      R"doc(Sums rows of `data` per segment id (tf.math.unsorted_segment_sum).

Args:
  data: a Tensor.
  segment_ids: an integer Tensor, one id per row of `data`; negative ids are dropped.
  num_segments: the number of segments (the result's first dimension).

Returns:
  A Tensor of shape [num_segments] + data.shape[1:].

Raises:
  InvalidArgumentError: an id >= num_segments, or mismatched shapes.)doc");
  m.def(
      "stop_gradient",
      [](py::handle x) {
        Tensor t = as_tensor(x);
        return op::stop_gradient(t);
      },
      py::arg("input"),
      R"doc(The same values; no gradient flows back through the result (tf.stop_gradient).

Args:
  input: a Tensor or a value convertible to one.)doc");
  m.def(
      "_assign_update",
      [](const Tensor& value, const Tensor& delta, bool subtract) {
        // The kernel alone: a variable's assign_add / assign_sub is no op a tape records or the profiler traces.
        return nogil(
            [&] { return tpustrategy::binary(subtract ? BinaryOp::kSubtract : BinaryOp::kAdd, value, delta); });
      },
      py::arg("value"), py::arg("delta"), py::arg("subtract"),
      R"doc(The new value of Variable.assign_add / assign_sub (not recorded on tapes).

Args:
  value: the variable's value.
  delta: a Tensor of value's dtype and shape.
  subtract: value - delta when True, value + delta when False.)doc");
  m.def(
      "_apply_gradient_descent",
      [](const Tensor& var, const Tensor& grad, const Tensor& lr) {
        // Not a dispatched op either: an optimizer's update is no op a tape records.
        return nogil([&] { return gradient_descent_update(var, grad, lr); });
      },
      py::arg("var"), py::arg("grad"), py::arg("lr"),
      R"doc(var - grad * lr in one pass (TF's ResourceApplyGradientDescent), bit-identical to the two ops.

Args:
  var: the variable's value.
  grad: its gradient, same dtype and shape.
  lr: the scalar learning rate, same dtype.)doc");

  init_ops_nn(m);
  init_ops_nn3d(m);
  init_ops_dtypes(m);
  init_tensor_operators(m);
  init_elementwise_entries(m);
}

}  // namespace tpustrategy::bindings
