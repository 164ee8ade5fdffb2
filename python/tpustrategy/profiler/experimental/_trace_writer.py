"""Writes estimated steps as a Chrome / Perfetto trace (the Trace Event Format's JSON object form, gzipped).

Layout: one process (pid) per simulated host, one thread (tid) per simulated TPU core of that host, named by
metadata events; every op and collective is a complete event ("ph": "X") with its simulated start and duration in
microseconds; every step is a complete event on each host's "Steps" track. Events of a track are written in
increasing ts order.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from tpustrategy import _core

if TYPE_CHECKING:
    from tpustrategy.experimental._step_report import CollectiveTime, StepReport

# A trace event: the Trace Event Format's JSON object (values of several kinds, as the format has them).
TraceEvent = dict[str, Any]
# One step to write: (name, step_num or None, its report with a timeline).
TracedStep = tuple[str, "int | None", "StepReport"]

STEPS_TID = 1_000_000  # the per-host track that shows the steps
_MAX_GROUP_LISTED = 64


def _op_args(event: _core.sim.StepEvent, dtype: str) -> dict[str, Any]:
    return {"replica": event.slot[0], "logical_core": event.slot[1], "dtype": dtype,
            "input_shapes": str([list(s) for s in event.input_shapes]),
            "output_shapes": str([list(s) for s in event.output_shapes]),
            "flops": event.flops, "bytes": event.bytes, "unit": event.unit}


def _collective_args(event: _core.sim.StepEvent, stat: CollectiveTime | None) -> dict[str, Any]:
    replicas = sorted({replica for replica, _ in event.group})
    args: dict[str, Any] = {"kind": event.name, "group_size": stat.group_size if stat else len(event.group),
            "group_replicas": str(replicas[:_MAX_GROUP_LISTED]) + (" ..." if len(replicas) > _MAX_GROUP_LISTED else ""),
            "bytes": stat.bytes if stat else event.bytes, "dtype": event.dtype, "elements_per_member": event.count}
    if event.spmd:  # inserted by the SPMD partitioner over one replica's logical cores
        args["inserted_by"] = "spmd_partitioner"
        args["group_logical_cores"] = str(sorted(core for _, core in event.group))
    if stat is not None:
        args.update({"algbw_GBps": stat.algbw / 1e9, "busbw_GBps": stat.busbw / 1e9, "hops": stat.hops,
                     "latency_bound": stat.latency_bound, "instances": stat.instances})
    return args


def trace_events(steps: Iterable[TracedStep], preset: _core.slice.SlicePreset,
                 coordinates: np.ndarray) -> list[TraceEvent]:
    """Trace events for `steps` ([(name, step_num, StepReport with a timeline)], laid end to end); `coordinates`:
    the preset's [task, device, 4] device coordinates."""
    per_host = preset.devices_per_host
    job = _core.devices.job()  # the devices' job: localhost on a one-host slice, as their names say
    events: list[TraceEvent] = []
    for task in range(preset.num_hosts):
        events.append({"ph": "M", "name": "process_name", "pid": task, "tid": 0,
                       "args": {"name": f"/job:{job}/replica:0/task:{task} (host {task}, {preset.name})"}})
        events.append({"ph": "M", "name": "process_sort_index", "pid": task, "tid": 0, "args": {"sort_index": task}})
        events.append({"ph": "M", "name": "thread_name", "pid": task, "tid": STEPS_TID, "args": {"name": "Steps"}})
        events.append({"ph": "M", "name": "thread_sort_index", "pid": task, "tid": STEPS_TID,
                       "args": {"sort_index": -1}})
        for device in range(per_host):
            x, y, z, core = (int(v) for v in coordinates[task][device])
            core_id = task * per_host + device
            events.append({"ph": "M", "name": "thread_name", "pid": task, "tid": device,
                           "args": {"name": f"TPU:{core_id} [{x},{y},{z},{core}]"}})
            events.append({"ph": "M", "name": "thread_sort_index", "pid": task, "tid": device,
                           "args": {"sort_index": device}})
    body: list[TraceEvent] = []
    offset_us = 0.0
    for name, step_num, report in steps:
        record_events = report.record.events
        stats = {c.event: c for c in report.collectives}
        # One (name, cat, args) per recorded event, shared by every core that runs it (a what-if on a pod repeats
        # each event thousands of times; the args dict is read-only once written).
        described: dict[int, tuple[str, str, dict[str, Any]]] = {}
        for index, core, start, end in report.timeline:
            about = described.get(index)
            if about is None:
                event = record_events[index]
                if event.collective:
                    about = (event.name, "collective", _collective_args(event, stats.get(index)))
                else:
                    about = (event.name, "op", _op_args(event, event.dtype))
                described[index] = about
            task, tid = divmod(core, per_host)
            body.append({"ph": "X", "pid": task, "tid": tid, "ts": offset_us + start * 1e6,
                         "dur": (end - start) * 1e6, "name": about[0], "cat": about[1], "args": about[2]})
        step_name = name or "step"
        if step_num is not None and step_num >= 0:
            step_name = f"{step_name} {step_num}"
        for task in range(preset.num_hosts):
            body.append({"ph": "X", "pid": task, "tid": STEPS_TID, "ts": offset_us, "dur": report.step_time * 1e6,
                         "name": step_name, "cat": "step",
                         "args": {"step_num": step_num, "step_time_us": report.step_time * 1e6,
                                  "slice": report.slice}})
        offset_us += report.step_time * 1e6
    body.sort(key=lambda e: (e["pid"], e["tid"], e["ts"]))
    return events + body


def write_trace(path: str, steps: Iterable[TracedStep], preset: _core.slice.SlicePreset,
                coordinates: np.ndarray) -> str:
    """Writes the gzipped JSON trace to `path` (directories created) and returns the path."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    document = {"displayTimeUnit": "ns", "traceEvents": trace_events(steps, preset, coordinates),
                "metadata": {"producer": "tpustrategy simulated profiler", "slice": preset.name}}
    # json.dumps (the C encoder) then one write: json.dump streams through the pure-Python encoder, ~10x slower
    # (86k events of a v4-8192 step: minutes instead of seconds).
    text = json.dumps(document, separators=(",", ":"))
    with gzip.open(path, "wb", compresslevel=6) as f:
        f.write(text.encode("utf-8"))
    return path
