// Tensor-level cross-replica functions for the Python replica scheduler: each takes every participant's
// Tensor at once (the scheduler has already collected them), validates, and computes once with the GIL
// released. Results share one buffer and are charged to each destination device (distribute/cross_replica.h).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/bindings.h"
#include "tpustrategy/distribute/cross_replica.h"

namespace tpustrategy::bindings {

namespace {

using Devices = std::optional<std::vector<DevicePtr>>;

// None → each participant's own device, in participant order.
std::vector<DevicePtr> destinations_or_inputs(const Devices& devices, const std::vector<Tensor>& inputs) {
  if (devices) return *devices;
  std::vector<DevicePtr> out;
  out.reserve(inputs.size());
  for (const Tensor& t : inputs) out.push_back(t.device());
  return out;
}

}  // namespace

void init_collectives(py::module_& m) {
  m.def(
      "all_reduce",
      [](const std::vector<Tensor>& tensors, const std::string& op, const Devices& devices) {
        CollectiveOp reduce_op = collective_op_from_name(op);
        std::vector<DevicePtr> destinations = destinations_or_inputs(devices, tensors);
        py::gil_scoped_release release;
        return all_reduce_tensors(tensors, reduce_op, destinations);
      },
      py::arg("tensors"), py::arg("op"), py::kw_only(), py::arg("devices") = py::none(), R"doc(
Reduces every replica's tensor element-wise and delivers the result to each device.

Args:
  tensors: one Tensor per replica, all of the same dtype and shape.
  op: "SUM", "MEAN", "MAX", "MIN" or "PROD" (any case).
  devices: where results go (one result each); None = each input's device.

Returns:
  A list with one Tensor per device; they share one buffer, each charged to its device.

Raises:
  InvalidArgumentError: dtypes or shapes differ (the message names the replica).)doc");
  m.def(
      "all_gather",
      [](const std::vector<Tensor>& tensors, std::int64_t axis, const Devices& devices) {
        std::vector<DevicePtr> destinations = destinations_or_inputs(devices, tensors);
        py::gil_scoped_release release;
        return all_gather_tensors(tensors, axis, destinations);
      },
      py::arg("tensors"), py::arg("axis"), py::kw_only(), py::arg("devices") = py::none(), R"doc(
Concatenates every replica's tensor along `axis` (replica order) and delivers it to each device.

Sizes along `axis` may differ; every other dimension, the rank and the dtype must match.

Args:
  tensors: one Tensor per replica.
  axis: the axis to concatenate along (negative counts from the end).
  devices: where results go (one result each); None = each input's device.

Returns:
  A list with one Tensor per device, sharing one buffer.

Raises:
  InvalidArgumentError: rank 0, or dtypes, ranks or other dimensions that differ.)doc");
  m.def(
      "broadcast",
      [](const Tensor& tensor, const std::vector<DevicePtr>& devices) {
        py::gil_scoped_release release;
        return share_across(tensor, devices);
      },
      py::arg("tensor"), py::arg("devices"), R"doc(
The same value on each device (one shared buffer, charged to every device).

Args:
  tensor: the value to broadcast.
  devices: the destination devices.

Returns:
  A list with one Tensor per device.)doc");
  m.def(
      "reduce_scatter",
      [](const std::vector<Tensor>& tensors, const std::string& op, const Devices& devices) {
        CollectiveOp reduce_op = collective_op_from_name(op);
        std::vector<DevicePtr> destinations = destinations_or_inputs(devices, tensors);
        py::gil_scoped_release release;
        return reduce_scatter_tensors(tensors, reduce_op, destinations);
      },
      py::arg("tensors"), py::arg("op"), py::kw_only(), py::arg("devices") = py::none(), R"doc(
Replica j receives the reduction of every replica's j-th slice along axis 0.

Args:
  tensors: one Tensor per replica, same dtype and shape; axis 0 divisible by the number of replicas.
  op: "SUM", "MEAN", "MAX", "MIN" or "PROD" (any case).
  devices: where results go (one result each); None = each input's device.

Returns:
  A list with one Tensor per device: its slice of the reduction.

Raises:
  InvalidArgumentError: dtypes or shapes differ, or axis 0 does not divide.)doc");
}

}  // namespace tpustrategy::bindings
