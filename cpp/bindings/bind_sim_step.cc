// sim/ (recorded steps): _core.sim.StepRecord, the runtime recorder (start / stop / take) and estimate_step. The
// user-facing surface is tpustrategy.experimental (record_step, estimate_step, StepReport) and
// tpustrategy.profiler.experimental (start / stop / Trace).
#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings/bindings.h"
#include "bindings/convert.h"
#include "tpustrategy/core/errors.h"
#include "tpustrategy/sim/spmd_step_events.h"
#include "tpustrategy/sim/step_estimate.h"
#include "tpustrategy/sim/step_record.h"
#include "tpustrategy/sim/step_recorder.h"
#include "tpustrategy/tpu/slice_preset.h"

namespace tpustrategy::bindings {

namespace {

using namespace tpustrategy::sim;

CoreSlot slot_from(const std::pair<int, int>& p) { return {p.first, p.second}; }
std::pair<int, int> slot_to(const CoreSlot& s) { return {s.replica, s.logical_core}; }

void bind_record(py::module_& m) {
  py::class_<StepEvent>(m, "StepEvent", R"doc(
One recorded op or collective. Ops: slot (replica, logical core), name, input/output shapes, dtype, flops, bytes,
unit ('mxu' or 'vector'). Collectives: name = kind, group [(replica, logical core), ...], count per member, bytes.)doc")
      .def_readonly("collective", &StepEvent::collective)
      .def_property_readonly("slot", [](const StepEvent& e) { return slot_to(e.slot); })
      .def_readonly("name", &StepEvent::name)
      .def_readonly("input_shapes", &StepEvent::input_shapes)
      .def_readonly("output_shapes", &StepEvent::output_shapes)
      .def_property_readonly("dtype", [](const StepEvent& e) { return std::string(dtype_name(e.dtype)); })
      .def_readonly("flops", &StepEvent::flops)
      .def_readonly("bytes", &StepEvent::bytes)
      .def_property_readonly("unit", [](const StepEvent& e) { return e.unit == OpUnit::kMxu ? "mxu" : "vector"; })
      .def_property_readonly("group",
                             [](const StepEvent& e) {
                               std::vector<std::pair<int, int>> g;
                               for (const CoreSlot& s : e.group) g.push_back(slot_to(s));
                               return g;
                             })
      .def_readonly("count", &StepEvent::count)
      .def_readonly("spmd", &StepEvent::spmd, "Inserted by the SPMD partitioner over one replica's logical cores.")
      .def("__repr__", [](const StepEvent& e) {
        if (e.collective) return fmt::format("StepEvent({}, group of {}, {} bytes)", e.name, e.group.size(), e.bytes);
        return fmt::format("StepEvent({} on replica {} core {}, {} flops, {} bytes)", e.name, e.slot.replica,
                           e.slot.logical_core, e.flops, e.bytes);
      });

  py::class_<StepRecord>(m, "StepRecord", R"doc(
What one step did, per replica and logical core, in program order (cpp/tpustrategy/sim/step_record.h).
Filled by the runtime recorder (record_start / record_take) or by hand (add_op / add_collective).)doc")
      .def(py::init([](std::string name, std::int64_t step_num) {
             StepRecord r;
             r.name = std::move(name);
             r.step_num = step_num;
             return r;
           }),
           py::kw_only(), py::arg("name") = "", py::arg("step_num") = -1, R"doc(An empty record, filled by hand.

Args:
  name: the record's name.
  step_num: the record's step number (-1: none).)doc")
      .def_readonly("name", &StepRecord::name)
      .def_readonly("step_num", &StepRecord::step_num)
      .def_readonly("events", &StepRecord::events)
      .def_property_readonly("num_events", [](const StepRecord& r) { return r.events.size(); })
      .def_property_readonly("num_replicas", &StepRecord::num_replicas)
      .def_property_readonly("logical_cores_per_replica", &StepRecord::logical_cores_per_replica)
      .def_property_readonly(
          "hbm",
          [](const StepRecord& r) {
            std::vector<py::tuple> out;
            for (const SlotMemory& m : r.hbm) out.push_back(py::make_tuple(slot_to(m.slot), m.peak, m.capacity));
            return out;
          },
          "[((replica, logical core), peak bytes, capacity bytes)] while the step was recorded.")
      .def(
          "add_spmd",
          [](StepRecord& r, const spmd::SpmdRecord& spmd_record, int replica) {
            if (replica < 0) fail<ValueError>("StepRecord.add_spmd", "replica must be >= 0, got {}", replica);
            append_spmd_entries(r, replica, spmd_record);
          },
          py::arg("spmd_record"), py::kw_only(), py::arg("replica") = 0,
          R"doc(Appends an SPMD step's per-logical-core ops and inserted collectives as one replica's events.

Args:
  spmd_record: an SpmdRecord (tpustrategy.experimental.spmd_plan().records[i]).
  replica: the replica whose events they become.

Raises:
  ValueError: a negative replica.)doc")
      .def(
          "add_op",
          [](StepRecord& r, const std::string& name, std::vector<Shape> inputs, std::vector<Shape> outputs,
             py::handle dtype, int replica, int logical_core) {
            const DType d = dtype.is_none() ? DType::kFloat32 : dtype_from_py(dtype).value_or(DType::kFloat32);
            r.add_op({replica, logical_core}, name, std::move(inputs), std::move(outputs), d);
          },
          py::arg("name"), py::arg("inputs"), py::arg("outputs"), py::kw_only(), py::arg("dtype") = "float32",
          py::arg("replica") = 0, py::arg("logical_core") = 0,
          R"doc(Appends an op; its FLOPs, bytes and unit are derived from its name and shapes.

Args:
  name: the TF op name, e.g. "MatMul".
  inputs: the input shapes.
  outputs: the output shapes.
  dtype: the element dtype.
  replica: the replica it ran on.
  logical_core: the logical core it ran on.)doc")
      .def(
          "add_collective",
          [](StepRecord& r, const std::string& kind, const std::vector<std::pair<int, int>>& group, std::int64_t count,
             py::handle dtype) {
            std::vector<CoreSlot> slots;
            slots.reserve(group.size());
            for (const auto& p : group) slots.push_back(slot_from(p));
            const DType d = dtype.is_none() ? DType::kFloat32 : dtype_from_py(dtype).value_or(DType::kFloat32);
            const CoreSlot reporter = slots.empty() ? CoreSlot{} : slots.back();
            r.add_collective(collective_kind_from_name(kind), std::move(slots), d, count, reporter);
          },
          py::arg("kind"), py::arg("group"), py::arg("count"), py::kw_only(), py::arg("dtype") = "float32",
          R"doc(Appends a collective.

Args:
  kind: e.g. "all_reduce".
  group: the members, [(replica, logical core), ...].
  count: elements per member.
  dtype: the element dtype.)doc")
      .def("__repr__", [](const StepRecord& r) {
        return fmt::format("StepRecord(name='{}', step_num={}, events={}, replicas={})", r.name, r.step_num,
                           r.events.size(), r.num_replicas());
      });

  m.def("record_start", &StepRecorder::start,
        "Starts recording every op and collective into the process-wide record (FailedPreconditionError if "
        "already recording).");
  m.def("record_stop", &StepRecorder::stop, "Stops recording; the events stay until record_take().");
  m.def("record_active", &StepRecorder::active, "Whether the runtime recorder is recording.");
  m.def("record_num_events", &StepRecorder::num_events, "Events recorded since start or the last take.");
  m.def(
      "record_spmd_call",
      [](const spmd::SpmdContext& ctx, const py::function& fn, const py::args& args, const py::kwargs& kwargs) {
        StepRecorder::SpmdScope scope(ctx);
        py::object out = fn(*args, **kwargs);
        {
          py::gil_scoped_release release;
          scope.commit();
        }
        return out;
      },
      py::arg("ctx"), py::arg("fn"),
      R"doc(Runs one SPMD partitioned call and records what it appended to ctx's SpmdRecord.

The record gets one entry per logical core of the bound replica, instead of its kernels and subgroup collectives.

Args:
  ctx: the replica's SpmdContext.
  fn: called as fn(*args, **kwargs).

Returns:
  fn's result.)doc");
  m.def("record_take", &StepRecorder::take, py::kw_only(), py::arg("name") = "", py::arg("step_num") = -1,
        R"doc(The events recorded since start or the last take, as a StepRecord (moved out).

Args:
  name: the record's name.
  step_num: the record's step number (-1: none).)doc");
}

void bind_estimate(py::module_& m) {
  py::class_<OpStat>(m, "OpStat", "One op name's simulated time summed over every core.")
      .def_readonly("name", &OpStat::name)
      .def_readonly("count", &OpStat::count)
      .def_readonly("seconds", &OpStat::seconds)
      .def_readonly("flops", &OpStat::flops)
      .def_readonly("bytes", &OpStat::bytes);
  py::class_<CollectiveStat>(m, "CollectiveStat", "One recorded collective on the target slice.")
      .def_readonly("event", &CollectiveStat::event)
      .def_readonly("kind", &CollectiveStat::kind)
      .def_readonly("group_size", &CollectiveStat::group_size)
      .def_readonly("instances", &CollectiveStat::instances)
      .def_readonly("bytes", &CollectiveStat::bytes)
      .def_readonly("seconds", &CollectiveStat::seconds)
      .def_readonly("algbw", &CollectiveStat::algbw)
      .def_readonly("busbw", &CollectiveStat::busbw)
      .def_readonly("hops", &CollectiveStat::hops)
      .def_readonly("latency_bound", &CollectiveStat::latency_bound);
  py::class_<TimedEvent>(m, "TimedEvent", "One op or collective member placed on the estimated timeline.")
      .def_readonly("event", &TimedEvent::event)
      .def_readonly("core", &TimedEvent::core)
      .def_readonly("start", &TimedEvent::start)
      .def_readonly("end", &TimedEvent::end);
  py::class_<StepEstimate>(m, "StepEstimate", "Simulated time of a recorded step on a slice preset.")
      .def_readonly("slice", &StepEstimate::slice)
      .def_readonly("num_cores", &StepEstimate::num_cores)
      .def_readonly("num_replicas", &StepEstimate::num_replicas)
      .def_readonly("cores_per_replica", &StepEstimate::cores_per_replica)
      .def_readonly("summary", &StepEstimate::summary)
      .def_readonly("ops", &StepEstimate::ops)
      .def_readonly("collectives", &StepEstimate::collectives)
      .def_readonly("hbm_peak", &StepEstimate::hbm_peak, "Per core: recorded peak HBM bytes (-1 = not recorded).")
      .def_readonly("hbm_capacity", &StepEstimate::hbm_capacity, "HBM bytes of one TF device of the target.")
      .def_property_readonly("timeline", [](const StepEstimate& e) {
        // (event, core, start, end) columns: cheaper to hand over than one object per entry.
        const std::size_t n = e.timeline.size();
        std::vector<int> event(n), core(n);
        std::vector<double> start(n), end(n);
        for (std::size_t i = 0; i < n; ++i) {
          event[i] = e.timeline[i].event;
          core[i] = e.timeline[i].core;
          start[i] = e.timeline[i].start;
          end[i] = e.timeline[i].end;
        }
        return py::make_tuple(event, core, start, end);
      });

  m.def(
      "estimate_step",
      [](const StepRecord& record, const std::string& slice, const CostParams& params, int num_replicas,
         std::vector<int> core_of_slot, bool keep_timeline) {
        const SlicePreset& preset = find_slice_preset(slice);
        EstimateOptions options{params, num_replicas, std::move(core_of_slot), keep_timeline};
        py::gil_scoped_release release;
        return estimate_step(record, preset, options);
      },
      py::arg("record"), py::arg("slice"), py::kw_only(), py::arg("params") = CostParams::calibrated(),
      py::arg("num_replicas") = 0, py::arg("core_of_slot") = std::vector<int>{}, py::arg("keep_timeline") = false,
      R"doc(Simulated time of a recorded step on a slice preset (cpp/tpustrategy/sim/step_estimate.h).

Args:
  record: a StepRecord.
  slice: the target preset's name.
  params: CostParams.
  num_replicas: target replicas (0: every core / logical cores per replica); replica t runs recorded replica
    t mod R's program.
  core_of_slot: target core of (replica t, logical core l) at t * C + l (default: the preset's device order).
  keep_timeline: also return one (event, core, start, end) entry per op and collective member.

Returns:
  StepEstimate.

Raises:
  ValueError: unknown slice, replicas that do not fit, bad core_of_slot, a subgroup that cannot be repeated.)doc");
}

}  // namespace

void init_sim_step(py::module_& sim) {
  bind_record(sim);
  bind_estimate(sim);
}

}  // namespace tpustrategy::bindings
