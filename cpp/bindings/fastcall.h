#pragma once
// A C++ function bound as a plain CPython function or method (METH_FASTCALL), without pybind11's dispatcher: for
// the calls under which a replica's greenlet switches away (bind_runtime.cc). greenlet copies the C stack of a
// switched-out greenlet, from its start to the switch, to the heap, and back when it resumes; pybind11's dispatcher
// frame (argument casters, the call record, the overload loop) was the largest part of a parked replica's copy, and
// at 2048 replicas those copies no longer fit the cache (issue #11). Exceptions are translated as pybind11 does.
#include <pybind11/pybind11.h>

#include <cstddef>
#include <span>
#include <string>

namespace tpustrategy::bindings {

// `self` is the bound instance of a method, null for a module function; `args` are the positional arguments.
using FastFunction = pybind11::object (*)(PyObject* self, std::span<PyObject* const> args);

template <FastFunction Fn>
PyObject* fastcall(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  try {
    return Fn(self, {args, static_cast<std::size_t>(nargs)}).release().ptr();
  } catch (...) {
    pybind11::detail::try_translate_exceptions();
    return nullptr;
  }
}

template <FastFunction Fn>
PyMethodDef* fastcall_def(const char* name, const char* doc) {
  // CPython keeps a pointer to the definition: one per function, for the process's lifetime.
  // The cast is CPython's convention: METH_FASTCALL says which signature the PyCFunction pointer has.
  static PyMethodDef def{name, reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&fastcall<Fn>)),
                         METH_FASTCALL, doc};
  return &def;
}

// `m.name(*args)` calls Fn(nullptr, args). `doc` begins with a signature line, as pybind11's docstrings do.
template <FastFunction Fn>
void def_fastcall(pybind11::module_& m, const char* name, const char* doc) {
  auto function = pybind11::reinterpret_steal<pybind11::object>(
      PyCFunction_NewEx(fastcall_def<Fn>(name, doc), nullptr, m.attr("__name__").ptr()));
  if (!function) throw pybind11::error_already_set();
  m.add_object(name, function);
}

// `instance.name(*args)` calls Fn(instance, args), for instances of the pybind11 class `cls`.
template <FastFunction Fn>
void def_fastcall_method(pybind11::handle cls, const char* name, const char* doc) {
  auto method = pybind11::reinterpret_steal<pybind11::object>(
      PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), fastcall_def<Fn>(name, doc)));
  if (!method) throw pybind11::error_already_set();
  pybind11::setattr(cls, name, method);
}

[[noreturn, gnu::noinline, gnu::cold]] inline void fail_argument_count(const char* function, std::size_t given,
                                                                       std::size_t count) {
  throw pybind11::type_error(std::string(function) + "() takes " + std::to_string(count) +
                             " positional arguments but " + std::to_string(given) + " were given");
}

// The positional argument count a fast function takes: TypeError naming the function otherwise. (The error is built
// out of line: its strings would otherwise take room in the caller's frame, which a parked replica's stack holds.)
inline void expect_arguments(const char* function, std::span<PyObject* const> args, std::size_t count) {
  if (args.size() != count) fail_argument_count(function, args.size(), count);
}

}  // namespace tpustrategy::bindings
