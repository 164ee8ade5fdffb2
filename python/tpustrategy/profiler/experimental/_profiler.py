"""The profiler's state: start / stop / Trace / Profile, as tf.profiler.experimental (TF 2.21 names and errors)."""

from __future__ import annotations

import datetime
import os
import socket
import threading
from typing import Any, NamedTuple

from tpustrategy import _core, errors
from tpustrategy.experimental._step_report import estimate_step
from tpustrategy.profiler.experimental._trace_writer import write_trace

_sim = _core.sim
_lock = threading.Lock()
_session: _Session | None = None
_last_path: str | None = None


class ProfilerOptions(NamedTuple):
    """tf.profiler.experimental.ProfilerOptions; accepted for compatibility (the simulated profiler records every
    op and collective whatever the levels)."""

    host_tracer_level: int = 2
    python_tracer_level: int = 0
    device_tracer_level: int = 1
    delay_ms: int | None = None


class _Session:
    def __init__(self, logdir: str) -> None:
        self.logdir = logdir
        self.steps: list[_sim.StepRecord] = []  # StepRecord per step, in order
        self.trace_depth = 0

    def cut(self, name: str = "", step_num: int = -1) -> None:
        """Closes the events recorded so far as one step (nothing if there are none)."""
        if _sim.record_num_events() == 0:
            return
        self.steps.append(_sim.record_take(name=name, step_num=step_num))


def start(logdir: str, options: ProfilerOptions | None = None) -> None:
    """Starts recording every op and collective; raises AlreadyExistsError if a profiler is running."""
    global _session
    if options is not None and not isinstance(options, ProfilerOptions):
        raise TypeError(f"options must be a tf.profiler.experimental.ProfilerOptions, got {type(options).__name__}")
    logdir = os.fspath(logdir)
    if not logdir:
        raise ValueError("start: logdir must be a non-empty path")
    with _lock:
        if _session is not None:
            raise errors.AlreadyExistsError(None, None, "Another profiler is running.")
        _sim.record_start()  # FailedPreconditionError while experimental.record_step records
        _sim.record_take()
        _session = _Session(logdir)


def stop(save: bool = True) -> None:
    """Stops the profiler and, with save=True, writes the trace under the logdir given to start() (returns None,
    as TF; ``Profile.path`` and ``last_trace_path()`` give the file).

    Raises:
      UnavailableError: no profiler is running.
    """
    _stop(save)


def last_trace_path() -> str | None:
    """The file the last stop(save=True) wrote (None before any)."""
    return _last_path


def _stop(save: bool) -> str | None:
    global _session, _last_path
    with _lock:
        if _session is None:
            raise errors.UnavailableError(None, None, "Cannot export profiling results. No profiler is running.")
        session, _session = _session, None
        _sim.record_stop()
        session.cut()
    if not save:
        return None
    _last_path = _save(session)
    return _last_path


def _save(session: _Session) -> str:
    preset = _core.slice.active_slice()
    reports = [(r.name, r.step_num, estimate_step(r, preset.name, keep_timeline=True)) for r in session.steps]
    run = datetime.datetime.now(datetime.timezone.utc).strftime("%Y_%m_%d_%H_%M_%S")
    host = socket.gethostname() or "localhost"
    path = os.path.join(session.logdir, "plugins", "profile", run, f"{host}.trace.json.gz")
    coordinates = _core.topology.slice_topology(preset.name).device_coordinates
    return write_trace(path, reports, preset, coordinates)


class Trace:
    """tf.profiler.experimental.Trace: annotates a region; with step_num= it is a step. While the profiler runs,
    each outermost Trace delimits one step of the trace (named `name`, numbered `step_num`). Free when the profiler
    is not running."""

    def __init__(self, name: str, **kwargs: Any) -> None:
        self.name = str(name)
        step_num = kwargs.get("step_num")
        self.step_num = -1 if step_num is None else int(step_num)
        self._session: _Session | None = None

    def __enter__(self) -> Trace:
        with _lock:
            session = _session
            if session is not None:
                if session.trace_depth == 0:
                    session.cut()  # what ran before this Trace is a step of its own
                session.trace_depth += 1
                self._session = session
        return self

    def __exit__(self, *exc: object) -> None:
        with _lock:
            session, self._session = self._session, None
            if session is None:
                return
            session.trace_depth -= 1
            if session.trace_depth == 0 and session is _session:
                session.cut(self.name, self.step_num)


class Profile:
    """tf.profiler.experimental.Profile(logdir, options=None): start() on entry, stop() on exit."""

    def __init__(self, logdir: str, options: ProfilerOptions | None = None) -> None:
        self.logdir = logdir
        self.options = options
        self.path: str | None = None

    def __enter__(self) -> Profile:
        start(self.logdir, self.options)
        return self

    def __exit__(self, *exc: object) -> None:
        self.path = _stop(True)
