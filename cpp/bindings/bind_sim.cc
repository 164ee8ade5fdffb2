// sim/: _core.sim, the cost model (simulated time of ops and collectives on a slice) and the per-core step timeline.
// The user-facing helpers are in tpustrategy/experimental/ (estimate_op_time, estimate_collective_time, ...).
#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/bindings.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/sim/collective_cost.h"
#include "tpustrategy/sim/cost_params.h"
#include "tpustrategy/sim/roofline.h"
#include "tpustrategy/sim/slice_geometry.h"
#include "tpustrategy/sim/step_timeline.h"
#include "tpustrategy/tpu/slice_preset.h"

namespace tpustrategy::bindings {

namespace {

using namespace tpustrategy::sim;

OpUnit unit_from_name(const std::string& name) {
  if (name == "mxu") return OpUnit::kMxu;
  if (name == "vector") return OpUnit::kVector;
  fail<ValueError>("op_time", "unit must be 'mxu' (matmul, convolution) or 'vector', got '{}'", name);
}

void bind_params(py::module_& m) {
  py::class_<CostParams>(m, "CostParams", R"doc(
Calibration of the cost model: efficiencies against the data-sheet peaks and fixed costs. The defaults are
calibrated on the scaling book's v5e measurements (see cpp/tpustrategy/sim/cost_params.h).)doc")
      .def(py::init([](double ici_efficiency, double hop_latency_factor, double collective_overhead_us,
                       double op_overhead_us, double mxu_efficiency, double hbm_efficiency, double pcie_efficiency,
                       double dcn_efficiency) {
             CostParams p{ici_efficiency, hop_latency_factor, collective_overhead_us, op_overhead_us,
                          mxu_efficiency, hbm_efficiency,     pcie_efficiency,        dcn_efficiency};
             validate(p);
             return p;
           }),
           py::kw_only(), py::arg("ici_efficiency") = 0.75, py::arg("hop_latency_factor") = 1.2,
           py::arg("collective_overhead_us") = 2.0, py::arg("op_overhead_us") = 1.0, py::arg("mxu_efficiency") = 1.0,
           py::arg("hbm_efficiency") = 1.0, py::arg("pcie_efficiency") = 1.0, py::arg("dcn_efficiency") = 1.0,
           R"doc(Cost-model parameters; the defaults are the calibrated ones.

Args:
  ici_efficiency: fraction of an ICI link's peak rate a collective reaches, in (0, 1].
  hop_latency_factor: multiplier of the data-sheet per-hop latency.
  collective_overhead_us: fixed cost of launching one collective.
  op_overhead_us: fixed cost of launching one op.
  mxu_efficiency: fraction of the MXU's peak FLOP rate reached, in (0, 1].
  hbm_efficiency: fraction of the HBM bandwidth reached, in (0, 1].
  pcie_efficiency: fraction of the host link's bandwidth reached, in (0, 1].
  dcn_efficiency: fraction of the data-centre network's bandwidth reached, in (0, 1].

Raises:
  ValueError: an efficiency outside (0, 1] or a negative factor or overhead.)doc")
      .def_static("calibrated", &CostParams::calibrated, "The calibrated defaults.")
      .def_static("nominal", &CostParams::nominal, "Data-sheet peaks: efficiency 1, no latency, no overhead.")
      .def_readonly("ici_efficiency", &CostParams::ici_efficiency)
      .def_readonly("hop_latency_factor", &CostParams::hop_latency_factor)
      .def_readonly("collective_overhead_us", &CostParams::collective_overhead_us)
      .def_readonly("op_overhead_us", &CostParams::op_overhead_us)
      .def_readonly("mxu_efficiency", &CostParams::mxu_efficiency)
      .def_readonly("hbm_efficiency", &CostParams::hbm_efficiency)
      .def_readonly("pcie_efficiency", &CostParams::pcie_efficiency)
      .def_readonly("dcn_efficiency", &CostParams::dcn_efficiency)
      .def("__repr__", [](const CostParams& p) {
        return fmt::format(
            "CostParams(ici_efficiency={}, hop_latency_factor={}, collective_overhead_us={}, "
            "op_overhead_us={})",
            p.ici_efficiency, p.hop_latency_factor, p.collective_overhead_us, p.op_overhead_us);
      });

  py::class_<RingAxis>(m, "RingAxis", "One torus axis a collective's group spans.")
      .def(py::init([](int size, bool wraparound, int stride, bool on_chip) {
             return RingAxis{size, wraparound, stride, on_chip};
           }),
           py::arg("size"), py::kw_only(), py::arg("wraparound") = false, py::arg("stride") = 1,
           py::arg("on_chip") = false, R"doc(One axis of a collective's group.

Args:
  size: members along the axis.
  wraparound: whether the ring closes through a wraparound link.
  stride: the distance in hops between neighbouring members.
  on_chip: whether the axis is the cores of one chip (no ICI).)doc")
      .def_readonly("size", &RingAxis::size)
      .def_readonly("wraparound", &RingAxis::wraparound)
      .def_readonly("stride", &RingAxis::stride)
      .def_readonly("on_chip", &RingAxis::on_chip)
      .def("__repr__", [](const RingAxis& a) {
        return fmt::format("RingAxis({}, wraparound={}, stride={}, on_chip={})", a.size,
                           a.wraparound ? "True" : "False", a.stride, a.on_chip ? "True" : "False");
      });
}

void bind_costs(py::module_& m) {
  py::class_<OpCost>(m, "OpCost", "Simulated time of one op on one TF TPU device (seconds).")
      .def_readonly("seconds", &OpCost::seconds)
      .def_readonly("compute_seconds", &OpCost::compute_seconds)
      .def_readonly("memory_seconds", &OpCost::memory_seconds)
      .def_readonly("overhead_seconds", &OpCost::overhead_seconds)
      .def_readonly("compute_bound", &OpCost::compute_bound);
  py::class_<CollectiveCost>(m, "CollectiveCost", "Simulated time of one collective (seconds).")
      .def_readonly("seconds", &CollectiveCost::seconds)
      .def_readonly("bandwidth_seconds", &CollectiveCost::bandwidth_seconds)
      .def_readonly("latency_seconds", &CollectiveCost::latency_seconds)
      .def_readonly("overhead_seconds", &CollectiveCost::overhead_seconds)
      .def_readonly("hops", &CollectiveCost::hops)
      .def_readonly("group_size", &CollectiveCost::group_size)
      .def_readonly("latency_bound", &CollectiveCost::latency_bound);
  py::class_<BusBandwidth>(m, "BusBandwidth", "nccl-tests' algorithm and bus bandwidth (bytes/s).")
      .def_readonly("algbw", &BusBandwidth::algbw)
      .def_readonly("busbw", &BusBandwidth::busbw);

  m.def(
      "op_time",
      [](const std::string& generation, const std::string& unit, double flops, double bytes, const std::string& dtype,
         const CostParams& params) {
        return op_time(find_chip_spec(generation), unit_from_name(unit), flops, bytes, mxu_dtype_from_name(dtype),
                       params);
      },
      py::arg("generation"), py::arg("unit"), py::arg("flops"), py::arg("bytes"), py::kw_only(),
      py::arg("dtype") = "bfloat16", py::arg("params") = CostParams::calibrated(),
      R"doc(Roofline time of one op on one TF TPU device of `generation`.

Args:
  generation: "v2", "v3", "v4", "v5e", "v5p" or "v6e".
  unit: "mxu" (matmul, convolution: FLOPs at the dtype's peak) or "vector" (memory-bound).
  flops: floating-point (or int8) operations.
  bytes: HBM bytes read and written.
  dtype: "bfloat16", "float16", "float32" or "int8" (the MXU rate).
  params: CostParams.

Returns:
  OpCost.

Raises:
  ValueError: unknown generation, unit or dtype; negative or non-finite flops/bytes.)doc");
  m.def(
      "collective_time",
      [](const std::string& generation, const std::string& kind, double bytes, const std::vector<RingAxis>& axes,
         const CostParams& params) {
        return collective_time(find_chip_spec(generation), collective_kind_from_name(kind), bytes, axes, params);
      },
      py::arg("generation"), py::arg("kind"), py::arg("bytes"), py::arg("axes"), py::kw_only(),
      py::arg("params") = CostParams::calibrated(),
      R"doc(Time of one collective over the given torus axes (ring algorithms per axis).

Args:
  generation: the chip generation.
  kind: "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "collective_permute" or "broadcast".
  bytes: all_reduce / all_to_all / permute / broadcast: the per-member buffer; all_gather: the gathered array;
    reduce_scatter: the array before scattering.
  axes: RingAxis per torus axis the group spans (see slice_axes / group_axes).
  params: CostParams.

Returns:
  CollectiveCost.)doc");
  m.def(
      "latency_bound_threshold_bytes",
      [](const std::string& generation, const CostParams& params) {
        return latency_bound_threshold_bytes(find_chip_spec(generation), params);
      },
      py::arg("generation"), py::kw_only(), py::arg("params") = CostParams::calibrated(),
      R"doc(Per-hop message size in bytes below which an ICI hop is latency-bound.

Args:
  generation: the chip generation, e.g. "v5e".
  params: CostParams.)doc");
  m.def(
      "bus_bandwidth",
      [](const std::string& kind, double bytes, int group_size, double seconds) {
        return bus_bandwidth(collective_kind_from_name(kind), bytes, group_size, seconds);
      },
      py::arg("kind"), py::arg("bytes"), py::arg("group_size"), py::arg("seconds"),
      R"doc(algbw and busbw as nccl-tests reports them.

Args:
  kind: the collective, e.g. "all_reduce".
  bytes: the buffer size as collective_time takes it.
  group_size: the number of members.
  seconds: the collective's time.

Returns:
  BusBandwidth.)doc");
  m.def(
      "host_transfer_time",
      [](const std::string& generation, double bytes, const CostParams& params) {
        return host_transfer_time(find_chip_spec(generation), bytes, params);
      },
      py::arg("generation"), py::arg("bytes"), py::kw_only(), py::arg("params") = CostParams::calibrated(),
      R"doc(Seconds to move `bytes` between host and one chip over PCIe.

Args:
  generation: the chip generation.
  bytes: the bytes moved.
  params: CostParams.)doc");
  m.def(
      "dcn_all_reduce_time",
      [](const std::string& generation, double bytes_per_chip, int num_slices, const CostParams& params) {
        return dcn_all_reduce_time(find_chip_spec(generation), bytes_per_chip, num_slices, params);
      },
      py::arg("generation"), py::arg("bytes_per_chip"), py::arg("num_slices"), py::kw_only(),
      py::arg("params") = CostParams::calibrated(),
      R"doc(Seconds for an all-reduce across slices over DCN, each chip exchanging its own share.

Args:
  generation: the chip generation.
  bytes_per_chip: each chip's share of the buffer.
  num_slices: the slices taking part.
  params: CostParams.)doc");
  m.def(
      "slice_axes",
      [](const std::string& slice, const std::string& axes) {
        return axes_by_name(geometry_of(find_slice_preset(slice)), axes);
      },
      py::arg("slice"), py::arg("axes"), R"doc(RingAxis list for whole axes of a preset.

Args:
  slice: the preset's name.
  axes: letters of "xyzc" (c = the cores of a chip).

Raises:
  ValueError: an unknown slice or axis letter.)doc");
  m.def(
      "group_axes",
      [](const std::string& slice, const std::vector<Coordinate>& members) {
        const SliceGeometry g = geometry_of(find_slice_preset(slice));
        py::gil_scoped_release release;
        return group_axes(g, members);
      },
      py::arg("slice"), py::arg("members"), R"doc(RingAxis list of the box a group's members span.

Args:
  slice: the preset's name.
  members: the members' [x, y, z, core] coordinates.)doc");
  m.def(
      "aggregate_ici_bandwidth",
      [](const std::string& slice) { return aggregate_ici_bandwidth(geometry_of(find_slice_preset(slice))); },
      py::arg("slice"), R"doc(Sum over chips of their ICI links' one-way rate, bytes/s (the 'all-reduce bandwidth').

Args:
  slice: the preset's name.)doc");
  m.def(
      "bisection_bandwidth",
      [](const std::string& slice) { return bisection_bandwidth(geometry_of(find_slice_preset(slice))); },
      py::arg("slice"), R"doc(One-way bytes/s across the narrowest cut of the slice in half.

Args:
  slice: the preset's name.)doc");
}

void bind_timeline(py::module_& m) {
  py::class_<CriticalStep>(m, "CriticalStep", "One record on a step's critical path and the core it ran on.")
      .def_readonly("record", &CriticalStep::record)
      .def_readonly("core", &CriticalStep::core)
      .def("__repr__",
           [](const CriticalStep& s) { return fmt::format("CriticalStep(record={}, core={})", s.record, s.core); });
  py::class_<StepSummary>(m, "StepSummary", "Step time, per-core shares, MXU utilisation and critical path.")
      .def_readonly("step_time", &StepSummary::step_time)
      .def_readonly("compute", &StepSummary::compute)
      .def_readonly("communication", &StepSummary::communication)
      .def_readonly("idle", &StepSummary::idle)
      .def_readonly("compute_share", &StepSummary::compute_share)
      .def_readonly("communication_share", &StepSummary::communication_share)
      .def_readonly("idle_share", &StepSummary::idle_share)
      .def_readonly("mxu_utilization", &StepSummary::mxu_utilization)
      .def_readonly("critical_path", &StepSummary::critical_path)
      .def_readonly("critical_compute", &StepSummary::critical_compute)
      .def_readonly("critical_communication", &StepSummary::critical_communication);

  py::class_<StepTimeline>(m, "StepTimeline", R"doc(
Simulated timeline of one step over every TF TPU device of a slice preset, fed with records in program order.
Cores are the preset's devices in task-major order (task t, device d -> core t * devices_per_host + d).)doc")
      .def(py::init([](const std::string& slice, const CostParams& params) {
             const SlicePreset& preset = find_slice_preset(slice);
             py::gil_scoped_release release;
             return StepTimeline(preset, params);
           }),
           py::arg("slice"), py::kw_only(), py::arg("params") = CostParams::calibrated(),
           R"doc(An empty timeline over every TF TPU device of a preset.

Args:
  slice: the preset's name.
  params: CostParams.)doc")
      .def_property_readonly("num_cores", &StepTimeline::num_cores)
      .def_property_readonly("num_records", &StepTimeline::num_records)
      .def(
          "add_op",
          [](StepTimeline& t, int core, const std::string& name, const std::string& unit, double flops, double bytes,
             const std::string& dtype) {
            return t.add_op({core, name, unit_from_name(unit), flops, bytes, mxu_dtype_from_name(dtype)});
          },
          py::arg("core"), py::arg("name"), py::kw_only(), py::arg("unit") = "vector", py::arg("flops") = 0.0,
          py::arg("bytes") = 0.0, py::arg("dtype") = "bfloat16", R"doc(Appends one op on `core`.

Args:
  core: the core it runs on.
  name: the op's name.
  unit: "mxu" or "vector".
  flops: its floating-point operations.
  bytes: its HBM bytes.
  dtype: the MXU dtype.

Returns:
  Its record index.)doc")
      .def(
          "add_ops",
          [](StepTimeline& t, const py::array_t<int, py::array::c_style | py::array::forcecast>& cores,
             const py::array_t<double, py::array::c_style | py::array::forcecast>& flops,
             const py::array_t<double, py::array::c_style | py::array::forcecast>& bytes, const std::string& name,
             const std::string& unit, const std::string& dtype) {
            if (cores.size() != flops.size() || cores.size() != bytes.size())
              fail<ValueError>("StepTimeline.add_ops", "cores, flops and bytes differ in length: {}, {}, {}",
                               cores.size(), flops.size(), bytes.size());
            const OpUnit u = unit_from_name(unit);
            const MxuDType d = mxu_dtype_from_name(dtype);
            const int* c = cores.data();
            const double* f = flops.data();
            const double* b = bytes.data();
            const auto n = cores.size();
            py::gil_scoped_release release;
            for (py::ssize_t i = 0; i < n; ++i) t.add_op({c[i], name, u, f[i], b[i], d});
          },
          py::arg("cores"), py::arg("flops"), py::arg("bytes"), py::kw_only(), py::arg("name") = "op",
          py::arg("unit") = "mxu", py::arg("dtype") = "bfloat16",
          R"doc(Appends one op per element, in order.

Args:
  cores: per op, its core (numpy arrays of equal length).
  flops: per op, its floating-point operations.
  bytes: per op, its HBM bytes.
  name: every op's name.
  unit: "mxu" or "vector".
  dtype: the MXU dtype.

Raises:
  ValueError: the arrays differ in length.)doc")
      .def(
          "add_collective",
          [](StepTimeline& t, const std::string& name, const std::string& kind, std::vector<int> group, double bytes) {
            const CollectiveKind k = collective_kind_from_name(kind);
            py::gil_scoped_release release;
            return t.add_collective({name, k, std::move(group), bytes});
          },
          py::arg("name"), py::arg("kind"), py::arg("group"), py::arg("bytes"),
          R"doc(Appends one collective; it starts when the last member arrives.

Args:
  name: the collective's name.
  kind: e.g. "all_reduce".
  group: the member cores.
  bytes: the buffer size as collective_time takes it.

Returns:
  Its record index.)doc")
      .def("record_start", &StepTimeline::record_start, py::arg("record"), R"doc(A record's simulated start time.

Args:
  record: a record index.)doc")
      .def("record_end", &StepTimeline::record_end, py::arg("record"), R"doc(A record's simulated end time.

Args:
  record: a record index.)doc")
      .def("summarize", &StepTimeline::summarize, py::call_guard<py::gil_scoped_release>(), "The step's StepSummary.");
}

}  // namespace

void init_sim(py::module_& m) {
  bind_params(m);
  bind_costs(m);
  bind_timeline(m);
  init_sim_step(m);
}

}  // namespace tpustrategy::bindings
