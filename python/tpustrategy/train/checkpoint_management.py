"""``tf.train.CheckpointManager``: numbered saves in one directory, the oldest deleted beyond
``max_to_keep`` (unless kept by ``keep_checkpoint_every_n_hours``), the ``checkpoint`` state file
kept in TF's text format, and the state of an existing directory picked up on construction."""

from __future__ import annotations

import collections
import glob
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from tpustrategy.train.checkpoint_state import CheckpointState, get_checkpoint_state, write_state

if TYPE_CHECKING:
    from tpustrategy.train.checkpoint import Checkpoint, CheckpointOptions


def _delete_checkpoint(prefix: str) -> None:
    for path in [prefix + ".index", *glob.glob(glob.escape(prefix) + ".data-?????-of-?????")]:
        try:
            os.remove(path)
        except FileNotFoundError:
            pass


class CheckpointManager:
    """Manages multiple checkpoints by keeping some and deleting unneeded ones (mirrors
    ``tf.train.CheckpointManager``).

    Args:
      checkpoint: the ``tf.train.Checkpoint`` to save and restore.
      directory: where checkpoints and the ``checkpoint`` state file go (created on first save).
      max_to_keep: how many recent checkpoints to keep (None: all).
      keep_checkpoint_every_n_hours: keep one checkpoint per this many hours besides the recent ones.
      checkpoint_name: the file name prefix (default "ckpt").
      step_counter, checkpoint_interval: with both, ``save`` writes only when the step advanced by at least
        the interval since the last save.
      init_fn: called by ``restore_or_initialize`` when there is no checkpoint.

    Raises:
      ValueError: `max_to_keep` not positive, `directory` None, or `checkpoint_interval` without
        `step_counter`.
    """

    def __init__(self, checkpoint: Checkpoint, directory: str | os.PathLike[str], max_to_keep: int | None,
                 keep_checkpoint_every_n_hours: float | None = None, checkpoint_name: str = "ckpt",
                 step_counter: Any = None, checkpoint_interval: int | None = None,
                 init_fn: Callable[[], Any] | None = None) -> None:
        if checkpoint is None or not callable(getattr(checkpoint, "write", None)):
            raise TypeError(f"checkpoint must be a tf.train.Checkpoint, got {checkpoint!r}")
        if directory is None:
            raise ValueError("directory cannot be None")
        if max_to_keep is not None and (not isinstance(max_to_keep, (int, np.integer)) or max_to_keep <= 0):
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_every_seconds = None if keep_checkpoint_every_n_hours is None else \
            float(keep_checkpoint_every_n_hours) * 3600.0
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._init_fn = init_fn
        self._last_checkpoint_step: int | None = None
        self._maybe_delete: collections.OrderedDict[str, float] = collections.OrderedDict()
        self._latest_checkpoint: str | None = None
        self._last_preserved_timestamp = time.time()
        state = get_checkpoint_state(self._directory)
        if state is not None:
            paths = state.all_model_checkpoint_paths
            stamps = state.all_model_checkpoint_timestamps
            if len(stamps) != len(paths):
                stamps = [time.time()] * len(paths)
            self._maybe_delete.update(zip(paths, stamps, strict=True))
            self._latest_checkpoint = state.model_checkpoint_path
            if state.last_preserved_timestamp:
                self._last_preserved_timestamp = state.last_preserved_timestamp

    @property
    def directory(self) -> str:
        """The directory the checkpoints and the ``checkpoint`` state file are in."""
        return self._directory

    @property
    def checkpoint(self) -> Checkpoint:
        """The ``tf.train.Checkpoint`` this manager saves and restores."""
        return self._checkpoint

    @property
    def latest_checkpoint(self) -> str | None:
        """The prefix of the newest checkpoint, or None."""
        return self._latest_checkpoint

    @property
    def checkpoints(self) -> list[str]:
        """The managed checkpoints' prefixes, oldest first."""
        return list(self._maybe_delete)

    @property
    def checkpoint_interval(self) -> int | None:
        """The fewest steps between two saves, or None (every ``save`` writes)."""
        return self._checkpoint_interval

    def _current_step(self) -> int:
        value = self._step_counter
        return int(np.asarray(value.numpy() if hasattr(value, "numpy") else value))

    def save(self, checkpoint_number: int | None = None, check_interval: bool = True,
             options: CheckpointOptions | None = None) -> str | None:
        """Saves ``<directory>/<checkpoint_name>-<n>`` with n = `checkpoint_number` or the checkpoint's save counter
        (incremented either way), deletes checkpoints beyond ``max_to_keep``, updates the state file. Returns the
        path, or None when ``checkpoint_interval`` says it is too early."""
        if self._checkpoint_interval is not None and check_interval:
            step = self._current_step()
            if self._last_checkpoint_step is not None and step - self._last_checkpoint_step < self._checkpoint_interval:
                return None
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        if checkpoint_number is None:
            checkpoint_number = int(np.asarray(counter.numpy()))
        elif hasattr(checkpoint_number, "numpy"):
            checkpoint_number = int(np.asarray(checkpoint_number.numpy()))
        path = self._checkpoint.write(f"{self._prefix}-{int(checkpoint_number)}", options=options)
        self._maybe_delete.pop(path, None)  # an overwritten checkpoint moves to the end of the queue
        self._maybe_delete[path] = time.time()
        self._latest_checkpoint = path
        if self._step_counter is not None:
            self._last_checkpoint_step = self._current_step()
        # The state file names the new checkpoint before old files go: a process killed at any point leaves a
        # state file whose latest checkpoint is complete (at worst a stale old checkpoint stays on disk).
        doomed = self._sweep()
        self._record_state()
        for old in doomed:
            _delete_checkpoint(old)
        return path

    def _sweep(self) -> list[str]:
        """Drops the oldest checkpoints beyond max_to_keep from the managed set; returns those to delete."""
        doomed: list[str] = []
        if self._max_to_keep is None:
            return doomed
        while len(self._maybe_delete) > self._max_to_keep:
            path, timestamp = self._maybe_delete.popitem(last=False)
            if self._keep_every_seconds is not None and \
                    timestamp - self._last_preserved_timestamp >= self._keep_every_seconds:
                self._last_preserved_timestamp = timestamp
                continue
            doomed.append(path)
        return doomed

    def _record_state(self) -> None:
        assert self._latest_checkpoint is not None  # save() has just set it
        write_state(self._directory, CheckpointState(self._latest_checkpoint, list(self._maybe_delete),
                                                     list(self._maybe_delete.values()),
                                                     self._last_preserved_timestamp))

    def restore_or_initialize(self) -> str | None:
        """Restores the latest checkpoint and returns its path; without one calls ``init_fn`` and returns None."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._step_counter is not None:
                self._last_checkpoint_step = self._current_step()
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None

    def sync(self) -> None:
        """Nothing to wait for: saving is synchronous."""
