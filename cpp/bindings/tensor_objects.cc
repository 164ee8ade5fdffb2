// Recognising and wrapping Tensor objects by pybind11's instance layout (Tensor: a single base, the default
// std::unique_ptr holder, so the value pointer sits in the instance's simple layout).
#include "bindings/tensor_objects.h"

#include <typeinfo>
#include <utility>

namespace tpustrategy::bindings {

namespace py = pybind11;

namespace {

const py::detail::type_info& tensor_class() {
  // Registered by init_tensor before any op can run; the type lives as long as the module.
  static const py::detail::type_info* info = py::detail::get_type_info(typeid(Tensor), /*throw_if_missing=*/true);
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
  instance->get_value_and_holder(&info).value_ptr() = new Tensor(std::move(tensor));
  instance->owned = true;
  info.init_instance(instance, nullptr);  // the unique_ptr holder, and the registration pybind11 expects
  return object;
}

}  // namespace tpustrategy::bindings
