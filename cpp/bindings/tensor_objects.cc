// Recognising and wrapping Tensor objects by pybind11's instance layout (Tensor: a single base, the default
// std::unique_ptr holder, so the value pointer sits in the instance's simple layout).
#include "bindings/tensor_objects.h"

#include <memory>
#include <new>
#include <typeinfo>
#include <utility>

namespace tpustrategy::bindings {

namespace py = pybind11;

namespace {

using Holder = std::unique_ptr<Tensor>;

const py::detail::type_info& tensor_class() {
  // Registered by init_tensor before any op can run; the type lives as long as the module.
  static const py::detail::type_info* info = [] {
    const auto* found = py::detail::get_type_info(typeid(Tensor), /*throw_if_missing=*/true);
    // wrap_tensor constructs the holder itself: it must be the default one.
    if (found->holder_enum_v != py::detail::holder_enum_t::std_unique_ptr)
      py::pybind11_fail("tensor_objects: Tensor's pybind11 holder is no longer a std::unique_ptr");
    return found;
  }();
  return *info;
}

}  // namespace

const Tensor* exact_tensor(PyObject* object) {
  if (Py_TYPE(object) != tensor_class().type) return nullptr;
  const auto* instance = reinterpret_cast<const py::detail::instance*>(object);
  if (!instance->simple_layout || !instance->simple_holder_constructed) return nullptr;
  return static_cast<const Tensor*>(instance->simple_value_holder[0]);
}

py::object wrap_tensor(Tensor&& tensor) {
  const py::detail::type_info& info = tensor_class();
  auto object = py::reinterpret_steal<py::object>(py::detail::make_new_instance(info.type));
  auto* instance = reinterpret_cast<py::detail::instance*>(object.ptr());
  py::detail::value_and_holder slot = instance->get_value_and_holder(&info);
  auto* value = new Tensor(std::move(tensor));
  slot.value_ptr() = value;
  new (&slot.holder<Holder>()) Holder(value);
  slot.set_holder_constructed();
  instance->owned = true;
  // Not entered in pybind11's registry of instances (a map insert now, an erase at deallocation): the registry
  // finds the wrapper of a C++ pointer a binding returns by reference, and no binding returns a Tensor by
  // reference; deallocation skips the erase for an unregistered instance.
  return object;
}

}  // namespace tpustrategy::bindings
