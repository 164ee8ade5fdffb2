// Slice presets, chip generations and the active simulated slice.
#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/bindings.h"
#include "tpustrategy/runtime/slice_devices.h"
#include "tpustrategy/tpu/chip_spec.h"
#include "tpustrategy/tpu/slice_preset.h"

namespace tpustrategy::bindings {

void init_slice(py::module_& m) {
  py::class_<ChipSpec>(m, "ChipSpec", "Figures of one TPU chip generation (cost model presets).")
      .def_readonly("name", &ChipSpec::name)
      .def_readonly("cores_per_chip", &ChipSpec::cores_per_chip)
      .def_readonly("bf16_tflops_per_chip", &ChipSpec::bf16_tflops)
      .def_readonly("hbm_bytes_per_chip", &ChipSpec::hbm_bytes)
      .def_readonly("hbm_gbps", &ChipSpec::hbm_gbps)
      .def_readonly("ici_torus_dims", &ChipSpec::ici_torus_dims)
      .def_readonly("ici_links_per_chip", &ChipSpec::ici_links_per_chip)
      .def_readonly("ici_gbps_per_link", &ChipSpec::ici_link_gbps)
      .def_readonly("tensorcores_per_chip", &ChipSpec::tensorcores_per_chip)
      .def_readonly("f32_tflops_per_chip", &ChipSpec::f32_tflops)
      .def_readonly("int8_tops_per_chip", &ChipSpec::int8_tops)
      .def_readonly("ici_hop_latency_us", &ChipSpec::ici_hop_latency_us)
      .def_readonly("pcie_gbps", &ChipSpec::pcie_gbps)
      .def_readonly("dcn_gbps", &ChipSpec::dcn_gbps)
      .def_readonly("chips_per_host", &ChipSpec::chips_per_host)
      .def_readonly("pod_shape", &ChipSpec::pod_shape)
      .def_readonly("max_slice_shape", &ChipSpec::max_slice_shape)
      .def_property_readonly("hbm_bytes_per_device", [](const ChipSpec& c) { return per_device_hbm_bytes(c); })
      .def("__repr__", [](const ChipSpec& c) { return fmt::format("<ChipSpec {}>", c.name); });

  py::class_<SlicePreset>(m, "SlicePreset", "A named simulated TPU slice such as 'v3-8'.")
      .def_readonly("name", &SlicePreset::name)
      .def_readonly("generation", &SlicePreset::generation)
      .def_readonly("mesh_shape", &SlicePreset::mesh_shape)
      .def_readonly("num_hosts", &SlicePreset::num_hosts)
      .def_readonly("devices_per_host", &SlicePreset::devices_per_host)
      .def_readonly("host_shape", &SlicePreset::host_shape)
      .def_property_readonly("num_devices", [](const SlicePreset& p) { return p.num_hosts * p.devices_per_host; })
      .def_property_readonly("chip", [](const SlicePreset& p) { return chip_spec(p); })
      .def_readonly("twisted", &SlicePreset::twisted)
      .def_property_readonly("num_chips", [](const SlicePreset& p) { return num_chips(p); })
      .def_property_readonly(
          "wraparound", [](const SlicePreset& p) { return wraparound_axes(p); },
          "Per chip axis [x, y, z]: whether the ring closes through a wraparound link.")
      .def("__repr__", [](const SlicePreset& p) { return fmt::format("<SlicePreset {}>", p.name); });

  m.def("slice_presets", &slice_presets, "Every named slice the simulator knows, as SlicePreset values.");
  m.def("chip_specs", &chip_specs, "Every chip generation the simulator knows, as ChipSpec values.");
  m.def("find_slice_preset", &find_slice_preset, py::arg("name"), R"doc(The preset called `name`.

Args:
  name: a preset name such as "v3-8" or "v5p-128".

Returns:
  The SlicePreset.

Raises:
  ValueError: no preset has that name (the message lists them).)doc");
  m.def("activate_slice", &activate_slice, py::arg("name"), R"doc(Replaces the simulated devices with the named slice's.

Args:
  name: a preset name such as "v3-8".

Raises:
  ValueError: no preset has that name.)doc");
  m.def("active_slice", &active_slice, "The SlicePreset whose devices are simulated now (v3-8 until activate_slice).");
}

}  // namespace tpustrategy::bindings
