"""Recorded steps and their simulated time: record_step, estimate_step and StepReport (tpustrategy.experimental).

A step is recorded while it runs (every op at the op-dispatch point, every collective at the Communicator's
observer hook, per replica and logical core: cpp/tpustrategy/sim/step_record.h) and estimated afterwards on any
slice preset by the C++ cost model, so the same recorded step answers "what if it ran on v5e-256?" at once::

    with tpx.record_step("train") as rec:
        strategy.run(step_fn, args=(batch,))
    report = tpx.estimate_step(rec.record)            # on the active slice
    report.what_if("v5e-256").step_time               # the same per-replica program on another slice
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, NamedTuple

from tpustrategy import _core

if TYPE_CHECKING:
    from tpustrategy.tpu.device_assignment import DeviceAssignment

_sim = _core.sim


class OpTime(NamedTuple):
    """One op name's simulated time, summed over every core."""

    name: str
    count: int  # type: ignore[assignment]  # a public field: shadows tuple.count() on purpose
    seconds: float
    flops: float
    bytes: float


class CollectiveTime(NamedTuple):
    """One recorded collective on the target slice (one instance; nccl-tests' algbw / busbw in bytes/s)."""

    kind: str
    group_size: int
    instances: int
    bytes: float
    seconds: float
    algbw: float
    busbw: float
    hops: int
    latency_bound: bool
    event: int


class record_step:  # noqa: N801 (a context manager named like TF's lower-case helpers)
    """Records every op and collective the program runs while entered; `.record` is the StepRecord after exit.

    Only one recording at a time: entering while another one (or the profiler) records raises
    FailedPreconditionError.
    """

    def __init__(self, name: str = "", step_num: int | None = None):
        self.name = str(name)
        self.step_num = -1 if step_num is None else int(step_num)
        self.record: _sim.StepRecord | None = None

    def __enter__(self) -> record_step:
        _sim.record_start()
        _sim.record_take()  # drop anything left over from an earlier recording
        return self

    def __exit__(self, *exc: object) -> None:
        _sim.record_stop()
        self.record = _sim.record_take(name=self.name, step_num=self.step_num)


def _core_of_slot(device_assignment: DeviceAssignment, record: _sim.StepRecord) -> list[int]:
    """Timeline core (task-major TF device index) of every (replica, logical core) of a DeviceAssignment."""
    topology = device_assignment.topology
    per_task = topology.num_tpus_per_task
    per_replica = max(record.logical_cores_per_replica, 1)
    if device_assignment.num_cores_per_replica < per_replica:
        raise ValueError(f"estimate_step: the record uses {per_replica} logical cores per replica but the device "
                         f"assignment has {device_assignment.num_cores_per_replica}")
    cores = []
    for replica in range(device_assignment.num_replicas):
        for logical_core in range(per_replica):
            coordinates = device_assignment.coordinates(replica, logical_core)
            task = topology.task_ordinal_at_coordinates(coordinates)
            cores.append(task * per_task + topology.tpu_device_ordinal_at_coordinates(coordinates))
    return cores


def estimate_step(record: _sim.StepRecord, slice: str | None = None, *,  # noqa: A002
                  params: _sim.CostParams | None = None, num_replicas: int = 0,
                  device_assignment: DeviceAssignment | None = None, keep_timeline: bool = False) -> StepReport:
    """Simulated time of a recorded step on a slice preset.

    Args:
      record: a StepRecord (from record_step, the profiler, or built by hand with _core.sim.StepRecord).
      slice: the preset to estimate on (default: the active slice).
      params: CostParams (default: the calibrated ones).
      num_replicas: replicas on the target (default: every core / logical cores per replica); replica t runs the
        recorded replica t mod R's program (weak scaling: the same per-replica work).
      device_assignment: a tf.tpu.experimental.DeviceAssignment of the target slice placing the replicas (default:
        replica t on the preset's t-th device).
      keep_timeline: keep every op's and collective's (core, start, end) for plots and traces.

    Returns:
      StepReport.

    Raises:
      ValueError: unknown slice; replicas that do not fit; a subgroup collective that cannot be repeated.
    """
    if not isinstance(record, _sim.StepRecord):
        raise TypeError(f"estimate_step: record must be a StepRecord, got {type(record).__name__}")
    name = _core.slice.active_slice().name if slice is None else _core.slice.find_slice_preset(str(slice)).name
    params = _sim.CostParams.calibrated() if params is None else params
    core_of_slot = [] if device_assignment is None else _core_of_slot(device_assignment, record)
    if device_assignment is not None and not num_replicas:
        num_replicas = device_assignment.num_replicas
    estimate = _sim.estimate_step(record, name, params=params, num_replicas=int(num_replicas),
                                  core_of_slot=core_of_slot, keep_timeline=bool(keep_timeline))
    return StepReport(record, estimate, params)


def _fmt_time(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.3f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3f} ms"
    return f"{seconds * 1e6:.2f} µs"


def _fmt_bytes(n: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.2f} {unit}"
    return f"{n:.0f} B"


class StepReport:
    """One step's simulated time on a slice: step time, per-core compute / communication / idle, per-core HBM peak,
    the top ops and collectives (with nccl-tests' algbw / busbw), and what_if() to re-estimate the same record
    elsewhere.

    HBM: ``hbm_peak[core]`` is the most HBM (bytes) the replica / logical core running there held while the step was
    recorded (None where nothing was recorded: hand-built records, cores no replica runs on); ``hbm_capacity`` is one
    core's HBM on this report's generation, so ``what_if`` tells whether the same per-replica tensors would fit."""

    def __init__(self, record: _sim.StepRecord, estimate: _sim.StepEstimate, params: _sim.CostParams) -> None:
        """Made by estimate_step (record: StepRecord, estimate: _core.sim.StepEstimate, params: CostParams)."""
        for value, kind, what in ((record, _sim.StepRecord, "record"), (estimate, _sim.StepEstimate, "estimate"),
                                  (params, _sim.CostParams, "params")):
            if not isinstance(value, kind):
                raise TypeError(f"StepReport: {what} must be a {kind.__name__}, got {type(value).__name__} "
                                "(use tpustrategy.experimental.estimate_step)")
        self.record = record
        self.params = params
        self._estimate = estimate
        summary = estimate.summary
        self.slice = estimate.slice
        self.generation = _core.slice.find_slice_preset(self.slice).generation
        self.num_cores = estimate.num_cores
        self.num_replicas = estimate.num_replicas
        self.cores_per_replica = estimate.cores_per_replica
        self.step_time = summary.step_time
        self.compute = list(summary.compute)  # per core, seconds
        self.communication = list(summary.communication)
        self.idle = list(summary.idle)
        self.compute_share = summary.compute_share
        self.communication_share = summary.communication_share
        self.idle_share = summary.idle_share
        self.mxu_utilization = summary.mxu_utilization
        self.critical_compute = summary.critical_compute
        self.critical_communication = summary.critical_communication
        self.hbm_peak = [None if b < 0 else int(b) for b in estimate.hbm_peak]  # per core, bytes
        self.hbm_capacity = int(estimate.hbm_capacity)
        self.ops = [OpTime(s.name, s.count, s.seconds, s.flops, s.bytes) for s in estimate.ops]
        self.collectives = [CollectiveTime(c.kind, c.group_size, c.instances, c.bytes, c.seconds, c.algbw, c.busbw,
                                           c.hops, c.latency_bound, c.event) for c in estimate.collectives]

    @property
    def max_hbm_peak(self) -> int | None:
        """The largest per-core HBM peak (None when the record has no HBM figures)."""
        known = [b for b in self.hbm_peak if b is not None]
        return max(known) if known else None

    @property
    def hbm_fits(self) -> bool | None:
        """Whether every core's recorded peak fits one core's HBM on this generation (None: nothing recorded)."""
        peak = self.max_hbm_peak
        return None if peak is None else peak <= self.hbm_capacity

    def top_ops(self, n: int = 10) -> list[OpTime]:
        """The n op names with the most simulated time (summed over cores)."""
        return self.ops[: max(int(n), 0)]

    def top_collectives(self, n: int = 10) -> list[CollectiveTime]:
        """The n recorded collectives with the most simulated time (one instance x instances)."""
        return self.collectives[: max(int(n), 0)]

    @property
    def timeline(self) -> list[tuple[int, int, float, float]]:
        """(event, core, start, end) per op and per collective member (estimate_step(keep_timeline=True))."""
        events, cores, starts, ends = self._estimate.timeline
        return list(zip(events, cores, starts, ends, strict=True))

    def what_if(self, slice: str, *, num_replicas: int = 0, params: _sim.CostParams | None = None,  # noqa: A002
                keep_timeline: bool = False) -> StepReport:
        """The same recorded step estimated on another preset (e.g. 'v5e-256'), without running anything."""
        return estimate_step(self.record, slice, params=self.params if params is None else params,
                             num_replicas=num_replicas, keep_timeline=keep_timeline)

    def __repr__(self) -> str:
        return (f"StepReport(slice='{self.slice}', step_time={_fmt_time(self.step_time)}, replicas="
                f"{self.num_replicas}, compute={self.compute_share:.1%}, communication="
                f"{self.communication_share:.1%}, idle={self.idle_share:.1%}, mxu_utilization="
                f"{self.mxu_utilization:.1%}{self._hbm_repr()})")

    def _hbm_repr(self) -> str:
        peak = self.max_hbm_peak
        return "" if peak is None else f", max_hbm_peak={_fmt_bytes(peak)} of {_fmt_bytes(self.hbm_capacity)}"

    def _hbm_row(self) -> str:
        peak = self.max_hbm_peak
        if peak is None:
            return "not recorded"
        core = self.hbm_peak.index(peak)
        text = (f"max {_fmt_bytes(peak)} (core {core}) of {_fmt_bytes(self.hbm_capacity)} per core "
                f"({peak / self.hbm_capacity:.1%})")
        if peak > self.hbm_capacity:
            text = f"<span style='color:#c00'><b>does not fit</b>: {text}</span>"
        return text

    def _repr_html_(self) -> str:
        e = html.escape
        rows = [
            ("slice", f"{e(self.slice)} ({self.num_cores} cores, {self.num_replicas} replicas x "
                      f"{self.cores_per_replica} logical cores)"),
            ("step time", _fmt_time(self.step_time)),
            ("compute / communication / idle",
             f"{self.compute_share:.1%} / {self.communication_share:.1%} / {self.idle_share:.1%}"),
            ("MXU utilisation", f"{self.mxu_utilization:.1%}"),
            ("HBM peak", self._hbm_row()),
            ("critical path", f"{_fmt_time(self.critical_compute)} compute, "
                              f"{_fmt_time(self.critical_communication)} communication"),
        ]
        out = ["<div class='tpustrategy-step-report'>", "<b>Simulated step</b>",
               "<table>" + "".join(f"<tr><th style='text-align:left'>{k}</th><td>{v}</td></tr>" for k, v in rows)
               + "</table>"]
        out.append(self._bars_svg())
        if self.ops:
            out.append("<b>Top ops</b> (summed over cores)<table><tr><th>op</th><th>count</th><th>time</th>"
                       "<th>FLOPs</th><th>bytes</th></tr>")
            for op in self.top_ops(10):
                out.append(f"<tr><td>{e(op.name)}</td><td>{op.count}</td><td>{_fmt_time(op.seconds)}</td>"
                           f"<td>{op.flops:.3g}</td><td>{_fmt_bytes(op.bytes)}</td></tr>")
            out.append("</table>")
        if self.collectives:
            out.append("<b>Top collectives</b> (one instance)<table><tr><th>kind</th><th>group</th><th>bytes</th>"
                       "<th>time</th><th>algbw</th><th>busbw</th></tr>")
            for c in self.top_collectives(10):
                out.append(f"<tr><td>{e(c.kind)}</td><td>{c.group_size} x{c.instances}</td><td>{_fmt_bytes(c.bytes)}"
                           f"</td><td>{_fmt_time(c.seconds)}</td><td>{c.algbw / 1e9:.2f} GB/s</td>"
                           f"<td>{c.busbw / 1e9:.2f} GB/s</td></tr>")
            out.append("</table>")
        out.append("</div>")
        return "".join(out)

    def _bars_svg(self, max_cores: int = 64) -> str:
        """Per-core stacked bars (compute, communication, idle) for the first max_cores cores."""
        n = min(self.num_cores, max_cores)
        if n == 0 or self.step_time <= 0:
            return ""
        width, bar = 480, 10
        parts = [f"<svg width='{width + 140}' height='{n * (bar + 2) + 20}' xmlns='http://www.w3.org/2000/svg'>"]
        for core in range(n):
            y = core * (bar + 2)
            x = 50.0
            parts.append(f"<text x='0' y='{y + bar}' font-size='9'>core {core}</text>")
            for value, colour in ((self.compute[core], "#4e79a7"), (self.communication[core], "#f28e2b"),
                                  (self.idle[core], "#d3d3d3")):
                w = width * max(value, 0.0) / self.step_time
                parts.append(f"<rect x='{x:.1f}' y='{y}' width='{w:.1f}' height='{bar}' fill='{colour}'/>")
                x += w
            peak = self.hbm_peak[core] if core < len(self.hbm_peak) else None
            if peak is not None:
                colour = "#c00" if peak > self.hbm_capacity else "#333"
                parts.append(f"<text x='{width + 55}' y='{y + bar}' font-size='9' fill='{colour}'>HBM "
                             f"{_fmt_bytes(peak)}</text>")
        parts.append(f"<text x='50' y='{n * (bar + 2) + 14}' font-size='10'>compute (blue), communication "
                     f"(orange), idle (grey); right: HBM peak</text></svg>")
        return "".join(parts)
