// tf.add, tf.exp & co. as plain CPython functions (METH_FASTCALL | METH_KEYWORDS) with TF's signature, and the
// Tensor operators (+, -, <, unary -, ...) as plain methods: the per-call path of a small elementwise op was
// mostly pybind11's dispatcher, its casters and a Python wrapper, several times the cost of adding 1024 floats
// (issue #11). A call with Tensor operands (or a Tensor and a Python number) and at most `name` by keyword runs
// the dispatched op here (recorded on tapes, placed on the current device, as through _core.ops); every other
// call goes to the facade's Python function, so conversions, errors and the SPMD partitioner stay as they are
// (a ShardedTensor is never a Tensor).
#include <pybind11/pybind11.h>

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "bindings/bindings.h"
#include "bindings/elementwise_op_names.h"
#include "bindings/fastcall.h"
#include "bindings/operands.h"
#include "bindings/tensor_objects.h"
#include "tpustrategy/core/errors.h"

namespace tpustrategy::bindings {

namespace {

using FastKeywordsFunction = PyObject* (*)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*);

bool is_python_number(PyObject* v) { return PyFloat_CheckExact(v) || PyLong_CheckExact(v) || PyBool_Check(v); }

// The result when both operands are Tensors or one is a Python number (TF's conversion: it takes the Tensor's
// dtype); nullopt for the facade's generic path.
std::optional<py::object> fast_binary(BinaryOp kind, PyObject* x, PyObject* y) {
  const Tensor* a = exact_tensor(x);
  const Tensor* b = exact_tensor(y);
  if (a != nullptr && b != nullptr) return wrap_tensor(binary_maybe_nogil(kind, *a, *b));
  if ((a != nullptr && is_python_number(y)) || (b != nullptr && is_python_number(x))) {
    auto [p, q] = operands(x, y);
    return wrap_tensor(binary_maybe_nogil(kind, p, q));
  }
  return std::nullopt;
}

// Whether a call passes `count` operands by position and `name` at most (by position or keyword), as TF's
// signature allows: anything else (operands by keyword, wrong counts) gets the facade's own handling.
bool plain_call(Py_ssize_t nargs, PyObject* kwnames, Py_ssize_t count) {
  if (kwnames == nullptr || PyTuple_GET_SIZE(kwnames) == 0) return nargs == count || nargs == count + 1;
  return nargs == count && PyTuple_GET_SIZE(kwnames) == 1 &&
         PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), "name") == 0;
}

// The facade's Python function of each op (the generic path), set by _elementwise_entry; kept for the process.
std::array<PyObject*, kBinaryOpNames.size()> binary_fallbacks{};
std::array<PyObject*, kUnaryOpNames.size()> unary_fallbacks{};

template <std::size_t I>
PyObject* binary_entry(PyObject* /*module*/, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (plain_call(nargs, kwnames, 2)) {
    try {
      if (auto result = fast_binary(kBinaryOpNames[I].second, args[0], args[1])) return result->release().ptr();
    } catch (...) {
      py::detail::try_translate_exceptions();
      return nullptr;
    }
  }
  return PyObject_Vectorcall(binary_fallbacks[I], args, nargs, kwnames);
}

template <std::size_t I>
PyObject* unary_entry(PyObject* /*module*/, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (plain_call(nargs, kwnames, 1)) {
    if (const Tensor* x = exact_tensor(args[0])) {
      try {
        return wrap_tensor(unary_maybe_nogil(kUnaryOpNames[I].second, *x)).release().ptr();
      } catch (...) {
        py::detail::try_translate_exceptions();
        return nullptr;
      }
    }
  }
  return PyObject_Vectorcall(unary_fallbacks[I], args, nargs, kwnames);
}

// The cast is CPython's convention: the flags say which signature the PyCFunction pointer has.
PyCFunction as_pycfunction(FastKeywordsFunction f) {
  return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(f));
}

// One method definition per op, and its docstring (CPython keeps pointers to both for the process).
template <std::size_t Count>
struct EntryTable {
  std::array<PyMethodDef, Count> defs;
  std::array<std::string, Count> docs;
};

template <std::size_t... I>
EntryTable<sizeof...(I)> binary_table(std::index_sequence<I...> /*ops*/) {
  return {{PyMethodDef{kBinaryOpNames[I].first, as_pycfunction(&binary_entry<I>), METH_FASTCALL | METH_KEYWORDS,
                       nullptr}...},
          {}};
}

template <std::size_t... I>
EntryTable<sizeof...(I)> unary_table(std::index_sequence<I...> /*ops*/) {
  return {
      {PyMethodDef{kUnaryOpNames[I].first, as_pycfunction(&unary_entry<I>), METH_FASTCALL | METH_KEYWORDS, nullptr}...},
      {}};
}

template <typename Table, std::size_t Count>
py::object make_entry(Table& table, std::array<PyObject*, Count>& fallbacks, std::size_t i, py::handle fallback,
                      const std::string& module, const std::string& doc) {
  if (fallbacks[i] != nullptr)
    fail<ValueError>("_elementwise_entry", "op '{}' has its entry already", table.defs[i].ml_name);
  fallbacks[i] = py::reinterpret_borrow<py::object>(fallback).release().ptr();
  table.docs[i] = doc;
  table.defs[i].ml_doc = table.docs[i].c_str();
  auto function = py::reinterpret_steal<py::object>(PyCFunction_NewEx(&table.defs[i], nullptr, py::str(module).ptr()));
  if (!function) throw py::error_already_set();
  return function;
}

py::object elementwise_entry(const std::string& name, py::handle fallback, const std::string& module,
                             const std::string& doc) {
  static auto binary = binary_table(std::make_index_sequence<kBinaryOpNames.size()>());
  static auto unary = unary_table(std::make_index_sequence<kUnaryOpNames.size()>());
  if (!PyCallable_Check(fallback.ptr())) fail<TypeError>("_elementwise_entry", "fallback must be callable");
  if (const int i = op_index(kBinaryOpNames, name); i >= 0) {
    return make_entry(binary, binary_fallbacks, static_cast<std::size_t>(i), fallback, module, doc);
  }
  if (const int i = op_index(kUnaryOpNames, name); i >= 0) {
    return make_entry(unary, unary_fallbacks, static_cast<std::size_t>(i), fallback, module, doc);
  }
  fail<ValueError>("_elementwise_entry", "no elementwise op named '{}'", name);
}

}  // namespace

void init_elementwise_entries(py::module_& m) {
  m.def("_elementwise_entry", &elementwise_entry, py::arg("name"), py::arg("fallback"), py::kw_only(),
        py::arg("module"), py::arg("doc"),
        R"doc(The public function of elementwise op `name` (tf.add, tf.exp, ...): a plain CPython function that runs
Tensor operands (or a Tensor and a Python number) itself and hands every other call to `fallback`.

Args:
  name: an op of _core.ops' elementwise set ("add", "relu", ...).
  fallback: the facade's Python function of the op, with the same signature.
  module: the function's __module__ (where pickling and Keras' serialization find it).
  doc: its docstring, beginning with CPython's text signature line ("add(x, y, name=None)\n--\n\n").

Raises:
  ValueError: `name` is no elementwise op.)doc");
}

}  // namespace tpustrategy::bindings
