"""``tf.summary`` writers and recording state: the default writer, the default step, ``record_if``.

As TF 2, the state is per thread; the replicas of a strategy share their thread, and inside a replica
context only replica 0 of the sync group records (TF sets ``is_recording_distribution_strategy`` to
``replica_id_in_sync_group == 0`` when a ReplicaContext is entered), so a summary in ``strategy.run``
is written once per step, by the chief's first replica.

A file writer appends Event records to ``events.out.tfevents.<seconds>.<host>.<pid>.<uid><suffix>``
through the C++ EventFileWriter; queued events are flushed (and fsynced) when ``max_queue`` are pending,
when ``flush_millis`` have passed since the last flush, on ``flush()``, ``close()`` and at exit.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import socket
import threading
import time
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as np

from tpustrategy import _core
from tpustrategy.distribute import distribution_strategy_context as ds_context


class _SummaryState(threading.local):
    def __init__(self) -> None:
        self.writer: _FileWriter | None = None  # only a file writer becomes the default
        self.step: Any = None
        self.is_recording: Any = None  # None: the default (record), else a bool or a callable returning one


_state = _SummaryState()
_writer_uid = itertools.count()
_open_writers: weakref.WeakSet[_FileWriter] = weakref.WeakSet()


def _flush_all_at_exit() -> None:
    for writer in list(_open_writers):
        with contextlib.suppress(Exception):
            writer.close()


atexit.register(_flush_all_at_exit)


def _as_bool(value: object) -> bool:
    value = value() if callable(value) else value
    return bool(np.asarray(value.numpy() if hasattr(value, "numpy") else value))


def _replica_records() -> bool:
    """False inside a replica context other than replica 0 of its sync group."""
    if not ds_context.has_strategy():
        return True
    context = ds_context.get_replica_context()
    if context is None:  # cross-replica context records
        return True
    replica_id: object = context.replica_id_in_sync_group
    return int(np.asarray(replica_id.numpy() if hasattr(replica_id, "numpy") else replica_id)) == 0


def _recording() -> bool:
    if _state.writer is None:
        return False
    if _state.is_recording is not None and not _as_bool(_state.is_recording):
        return False
    return _replica_records()


def should_record_summaries() -> _core.tensor.Tensor:
    """Whether summaries would be recorded now: a default writer, ``record_if`` true, replica 0 (bool tensor)."""
    recording: _core.tensor.Tensor = _core.tensor.constant(_recording(), _core.tensor.bool)
    return recording


@contextlib.contextmanager
def record_if(condition: Any) -> Iterator[None]:
    """Sets the summary recording condition (a bool, a bool tensor, or a callable returning one) in a block."""
    previous = _state.is_recording
    _state.is_recording = condition
    try:
        yield
    finally:
        _state.is_recording = previous


def get_step() -> Any:
    """The default step set by ``set_step`` or ``as_default(step=)``, else None."""
    return _state.step


def set_step(step: Any) -> None:
    """Sets the default step (an int, an int64 tensor or a variable, read when a summary is written)."""
    _state.step = step


def resolve_step(step: Any) -> int:
    """The int step of a summary: `step`, else the default step; ValueError when neither is set."""
    if step is None:
        step = _state.step
    if step is None:
        raise ValueError("No step set. Please specify one either through the `step` argument or through "
                         "tf.summary.experimental.set_step()")
    value = step.numpy() if hasattr(step, "numpy") else step
    array = np.asarray(value)
    if array.shape != () or not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        raise ValueError(f"step must be an int64 scalar, got {step!r}")
    return int(array)


def default_writer() -> SummaryWriter | None:
    """The writer summaries go to now, else None (``tf.summary.experimental`` has no public twin)."""
    return _state.writer


class SummaryWriter:
    """The interface of ``tf.summary.SummaryWriter``: get one from ``create_file_writer`` or ``create_noop_writer``."""

    def set_as_default(self, step: Any = None) -> None:
        """Makes this writer the current thread's default writer from now on.

        Args:
          step: if not None, also becomes the default step (as ``tf.summary.experimental.set_step``).
        """
        raise NotImplementedError

    def as_default(self, step: Any = None) -> contextlib.AbstractContextManager[SummaryWriter]:
        """A context manager in which this writer (and `step`, if not None) is the thread's default; the previous
        writer and step come back when the block exits."""
        raise NotImplementedError

    def init(self) -> None:
        """Prepares the writer for writing (TF's hook for graph mode; the writers here are ready once created)."""
        raise NotImplementedError

    def flush(self) -> None:
        """Writes the queued events to disk."""
        raise NotImplementedError

    def close(self) -> None:
        """Flushes and releases the writer, which cannot be used afterwards."""
        raise NotImplementedError


class _FileWriter(SummaryWriter):
    def __init__(self, logdir: str, max_queue: int, flush_millis: int, filename_suffix: str) -> None:
        os.makedirs(logdir, exist_ok=True)
        now = time.time()
        name = (f"events.out.tfevents.{int(now):010d}.{socket.gethostname()}.{os.getpid()}."
                f"{next(_writer_uid)}{filename_suffix}")
        self._file = _core.summary.EventFileWriter(os.path.join(logdir, name), now)
        self._logdir = logdir
        self._max_queue = max_queue
        self._flush_seconds = flush_millis / 1000.0
        self._pending = 0
        self._last_flush = time.monotonic()
        self._lock = threading.Lock()
        self._closed = False
        _open_writers.add(self)

    @property
    def _path(self) -> str:
        return self._file.path

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"SummaryWriter {self!r} is already closed")

    def set_as_default(self, step: Any = None) -> None:
        """Makes this writer the default for the rest of the thread (and `step` the default step, if given).

        Raises:
          RuntimeError: the writer is closed.
        """
        self._check_open()
        _state.writer = self
        if step is not None:
            _state.step = step

    @contextlib.contextmanager
    def as_default(self, step: Any = None) -> Iterator[SummaryWriter]:
        """The default writer (and step, if given) inside the block, restoring both after it; flushes at the end of
        the block, as TF.

        Raises:
          RuntimeError: the writer is closed.
        """
        self._check_open()
        previous_writer, previous_step = _state.writer, _state.step
        _state.writer = self
        if step is not None:
            _state.step = step
        try:
            yield self
            if not self._closed:
                self.flush()
        finally:
            _state.writer, _state.step = previous_writer, previous_step

    def init(self) -> None:
        """Nothing to do: the file is created by the constructor.

        Raises:
          RuntimeError: the writer is closed.
        """
        self._check_open()

    def write_event(self, event: bytes) -> None:
        with self._lock:
            self._check_open()
            self._file.write_event(event)
            self._pending += 1
            due = time.monotonic() - self._last_flush >= self._flush_seconds
            if self._pending >= self._max_queue or due:
                self._flush_locked()

    def _flush_locked(self) -> None:
        self._file.flush()
        self._pending = 0
        self._last_flush = time.monotonic()

    def flush(self) -> None:
        """Writes the queued events to disk (fsynced)."""
        with self._lock:
            if not self._closed:
                self._flush_locked()

    def close(self) -> None:
        """Flushes and closes the file; the writer cannot be used afterwards. Closing twice is allowed."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._file.close()
        if _state.writer is self:
            _state.writer = None
        _open_writers.discard(self)

    def __repr__(self) -> str:
        return f"<tpustrategy.summary.SummaryWriter logdir={self._logdir!r}>"


class _NoopWriter(SummaryWriter):
    """A writer that writes nothing (as ``create_noop_writer``): it does not even become the default."""

    def set_as_default(self, step: Any = None) -> None:
        """Does nothing: neither this writer nor `step` becomes a default."""

    @contextlib.contextmanager
    def as_default(self, step: Any = None) -> Iterator[SummaryWriter]:
        """Yields this writer and changes no default, so summaries in the block go to the previous writer, if any."""
        yield self

    def init(self) -> None:
        """Does nothing."""

    def flush(self) -> None:
        """Does nothing."""

    def close(self) -> None:
        """Does nothing; the writer stays usable."""


def create_file_writer(logdir: str | os.PathLike[str], max_queue: int | None = None, flush_millis: int | None = None,
                       filename_suffix: str | None = None, name: str | None = None,
                       experimental_trackable: bool = False, experimental_mesh: Any = None) -> SummaryWriter:
    """Creates a summary file writer for `logdir` (created if missing), as ``tf.summary.create_file_writer``.

    Args:
      logdir: the directory of the event file.
      max_queue: events queued before a flush (default 10).
      flush_millis: the largest interval between flushes, in ms (default 120,000).
      filename_suffix: appended to the event file's name (default ".v2").

    Raises:
      ValueError: `logdir` is None or empty, `max_queue` / `flush_millis` negative.
      NotFoundError / FailedPreconditionError: the file cannot be created.
    """
    del name, experimental_trackable, experimental_mesh
    if logdir is None:
        raise ValueError("Logdir cannot be None")
    logdir = os.fspath(logdir.numpy() if hasattr(logdir, "numpy") else logdir)
    if isinstance(logdir, bytes):
        logdir = logdir.decode()
    if not logdir:
        raise ValueError("logdir cannot be empty")
    max_queue = 10 if max_queue is None else int(max_queue)
    flush_millis = 120_000 if flush_millis is None else int(flush_millis)
    if max_queue < 0 or flush_millis < 0:
        raise ValueError(f"max_queue and flush_millis must be >= 0, got {max_queue} and {flush_millis}")
    suffix = ".v2" if filename_suffix is None else str(filename_suffix)
    return _FileWriter(logdir, max(max_queue, 1), flush_millis, suffix)


def create_noop_writer() -> SummaryWriter:
    """A writer that records nothing (``tf.summary.create_noop_writer``)."""
    return _NoopWriter()


def flush(writer: SummaryWriter | None = None, name: str | None = None) -> None:
    """Flushes `writer` (default: the default writer); nothing without one."""
    del name
    writer = writer if writer is not None else _state.writer
    if writer is None:
        return
    if not isinstance(writer, SummaryWriter):
        raise TypeError(f"writer must be a tf.summary.SummaryWriter, got {writer!r}")
    writer.flush()
