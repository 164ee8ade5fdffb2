// Simulated devices: listing, lookup, placement (the current device) and the
// per-device memory accounting behind tf.config.experimental.get_memory_info.
#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/bindings.h"
#include "tpustrategy/core/buffer_cache.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/runtime/device_registry.h"

namespace tpustrategy::bindings {

void init_devices(py::module_& m) {
  py::class_<Device, DevicePtr>(m, "Device", "A simulated device: a TPU core, a host CPU or a logical device.")
      .def_property_readonly("name", &Device::name)
      .def_property_readonly("device_type", &Device::type)
      .def_property_readonly("task", &Device::task)
      .def_property_readonly("index", &Device::index)
      .def_property_readonly("host_index", &Device::host_index)
      .def_property_readonly("coordinates", &Device::coordinates)
      .def(
          "memory_info",
          [](const Device& d) {
            auto info = d.memory_info();
            py::dict out;
            out["current"] = info.current;
            out["peak"] = info.peak;
            out["limit"] = info.capacity;
            return out;
          },
          "{'current': bytes in use, 'peak': the most since the last reset, 'limit': the capacity}.")
      .def("reset_memory_stats", &Device::reset_peak, "Sets the peak to the current usage.")
      .def("set_memory_limit", &Device::set_capacity, py::arg("bytes"), R"doc(Sets the device's memory capacity.

Args:
  bytes: the new capacity in bytes.)doc")
      .def_property_readonly("default_memory_limit", &Device::default_capacity)
      .def("__repr__", [](const Device& d) { return fmt::format("<Device {}>", d.name()); })
      // is_operator: another type gives NotImplemented (so == is False), not a TypeError.
      .def(
          "__eq__", [](const Device& a, const Device& b) { return &a == &b; }, py::is_operator())
      .def("__hash__", [](const Device& d) { return std::hash<const void*>()(&d); });

  m.def(
      "list_devices", [](const std::string& type) { return DeviceRegistry::global().devices(type); },
      py::arg("device_type") = "", R"doc(Devices of the simulated slice, TPU cores first, in ordinal order.

Args:
  device_type: "TPU", "CPU" or "GPU"; "" lists every device.

Returns:
  A list of Device.)doc");
  m.def(
      "find_device", [](const std::string& name) { return DeviceRegistry::global().find(name); }, py::arg("name"),
      R"doc(Resolves a full or partial TF device name to a simulated device.

Args:
  name: e.g. "TPU:3", "/job:localhost/replica:0/task:0/device:CPU:0".

Returns:
  The Device (GPU:k and CPU:k, k > 0, are created on first use as logical devices of host 0).

Raises:
  ValueError: no device matches, or several do.)doc");
  m.def(
      "local_devices", [](const std::string& type) { return DeviceRegistry::global().local_devices(type); },
      py::arg("device_type") = "", R"doc(The process's own devices: a multi-host slice's client's, else host 0's.

Args:
  device_type: "TPU", "CPU" or "GPU"; "" lists every device.

Returns:
  A list of Device, in the order list_devices gives.)doc");
  m.def(
      "default_cpu", [] { return DeviceRegistry::global().default_cpu(); },
      "Where tensors made outside any device scope live: the client's CPU on a multi-host slice (TF's\n"
      "/job:localhost/replica:0/task:0/device:CPU:0), else host 0's CPU.");
  m.def(
      "host_cpu", [](int task) { return DeviceRegistry::global().host_cpu(task); }, py::arg("task") = 0,
      R"doc(The CPU device of a slice host (never a client's CPU).

Args:
  task: the host's task index.

Raises:
  ValueError: no host has that task index.)doc");
  m.def(
      "release_cached_memory", [] { return release_cached_buffers(); },
      "Returns the host memory the tensor-buffer caches hold (freed buffers kept for reuse) to the OS.\n\n"
      "Returns:\n  The bytes freed. HBM accounting is unaffected: cached blocks are charged to no device.",
      py::call_guard<py::gil_scoped_release>());
  m.def("cached_memory_bytes", &cached_buffer_bytes, "Host bytes held by the tensor-buffer caches.");
  m.def("buffer_cache_limit", &buffer_cache_limit, "The most host bytes the tensor-buffer caches keep together.");
  m.def(
      "set_buffer_cache_limit",
      [](std::int64_t bytes) {
        if (bytes < 0) throw py::value_error(fmt::format("set_buffer_cache_limit: negative limit {}", bytes));
        set_buffer_cache_limit(static_cast<std::size_t>(bytes));
      },
      py::arg("bytes"), R"doc(Sets the buffer caches' limit; drops the caches when over it.

Args:
  bytes: the most host bytes the caches keep together (0 disables caching).

Raises:
  ValueError: a negative limit.)doc");
  m.def("current_device", &current_device, "The device new tensors are placed on (None = host CPU 0).");
  m.def("set_current_device", &set_current_device, py::arg("device").none(true), R"doc(Places new tensors on `device`.

Args:
  device: a Device, or None for host CPU 0.)doc");
  m.def(
      "set_logical_cpu_count", [](int n) { DeviceRegistry::global().set_logical_cpu_count(n); }, py::arg("count"),
      R"doc(Splits host 0's CPU into `count` logical CPU devices (tf.config.set_logical_device_configuration).

Args:
  count: the number of CPU devices, at least 1.

Raises:
  ValueError: count < 1.)doc");
  m.def(
      "job", [] { return DeviceRegistry::global().job(); },
      "The job in the slice's devices' names (localhost, worker).");
  m.def(
      "set_job", [](const std::string& job) { DeviceRegistry::global().set_job(job); }, py::arg("job"),
      R"doc(Renames every device into `job`; only while no replica runs.

A TF_CONFIG worker's devices are /job:worker/...

Args:
  job: the job name, e.g. "worker".

Raises:
  ValueError: an invalid job name.)doc");
  m.def(
      "set_logical_gpu_count",
      [](int n, std::int64_t bytes) { DeviceRegistry::global().set_logical_gpu_count(n, bytes); }, py::arg("count"),
      py::kw_only(), py::arg("memory_limit_bytes") = 0, R"doc(Makes `count` logical GPU devices on host 0.

Args:
  count: the number of GPU devices (0 removes them).
  memory_limit_bytes: each device's memory capacity; 0 keeps the default.

Raises:
  ValueError: a negative count.)doc");
  m.def(
      "parse_device_spec",
      [](const std::string& name) {
        DeviceSpec s = parse_device_spec(name);
        py::dict out;
        out["job"] = s.job ? py::cast(*s.job) : py::none();
        out["replica"] = s.replica ? py::cast(*s.replica) : py::none();
        out["task"] = s.task ? py::cast(*s.task) : py::none();
        out["device_type"] = s.type ? py::cast(*s.type) : py::none();
        out["device_index"] = s.index ? py::cast(*s.index) : py::none();
        return out;
      },
      py::arg("name"), R"doc(Parses a TF device name into its parts (tf.DeviceSpec.from_string).

Args:
  name: e.g. "/job:worker/replica:0/task:1/device:TPU:3" or "GPU:0".

Returns:
  {'job', 'replica', 'task', 'device_type', 'device_index'}, None for each part not given.

Raises:
  ValueError: the name cannot be parsed.)doc");
}

}  // namespace tpustrategy::bindings
