"""``keras.callbacks.ModelCheckpoint`` (Keras 3): saves the weights (``save_weights_only=True``, a path
ending in ``.weights.h5``) at the end of each epoch, or every ``save_freq`` batches, optionally only
when ``monitor`` improves. ``{epoch}`` and log names in the path are formatted (epoch counted from 1).
Saving a whole model (``.keras``) is not built: it raises NotImplementedError.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from tpustrategy.keras.callbacks.callback import Callback

if TYPE_CHECKING:
    from tpustrategy.keras.models.model import Model

_logger = logging.getLogger("tpustrategy")


class ModelCheckpoint(Callback):
    """Saves the model's weights during ``fit`` (``keras.callbacks.ModelCheckpoint``); weights only here.

    Args:
      filepath: Where to save, ending in ``.weights.h5``. ``{epoch}`` (counted from 1), ``{batch}`` and log names
        (``{val_loss:.2f}``) in it are filled in at each save; missing directories are created.
      monitor: The log entry `save_best_only` compares.
      verbose: 1 prints a line at each save (or skipped save).
      save_best_only: Save only when `monitor` is strictly better than the best value so far; skip (with a
        warning) when it is not in the logs.
      save_weights_only: Must be True: saving whole models (``.keras``) is not built.
      mode: ``"min"``, ``"max"`` or ``"auto"`` (``"max"`` when the name contains acc or ends in auc, else
        ``"min"``); any other value is taken as ``"auto"``.
      save_freq: ``"epoch"`` saves at each epoch end; an int saves every that many ``on_train_batch_end`` calls
        (one per ``steps_per_execution`` chunk of steps), counted across epochs.
      initial_value_threshold: The best value to beat at first, for `save_best_only`.

    Raises:
      TypeError: `monitor` is not a string.
      ValueError: `filepath` does not end as the format requires, or `save_freq` is neither ``"epoch"`` nor an
        int.
      NotImplementedError: `save_weights_only` is False with a ``.keras`` path.
    """

    def __init__(self, filepath: str | os.PathLike[str], monitor: str = "val_loss", verbose: int = 0,
                 save_best_only: bool = False, save_weights_only: bool = False, mode: str = "auto",
                 save_freq: str | int = "epoch", initial_value_threshold: float | None = None) -> None:
        super().__init__()
        filepath = os.fspath(filepath)
        if not isinstance(monitor, str):
            raise TypeError(f"`monitor` must be the name of a log entry (a string). Received: monitor={monitor!r}")
        if save_weights_only:
            if not filepath.endswith(".weights.h5"):
                raise ValueError("When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided must "
                                 f"end in `.weights.h5` (Keras weights format). Received: filepath={filepath}")
        elif not filepath.endswith(".keras"):
            raise ValueError("The filepath provided must end in `.keras` (Keras model format). Received: "
                             f"filepath={filepath}")
        else:
            raise NotImplementedError("ModelCheckpoint saving whole models (`.keras`) is not built; use "
                                      "save_weights_only=True with a `.weights.h5` path")
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError(f"Unrecognized save_freq: {save_freq}. Expected save_freq are 'epoch' or integer values")
        self.filepath, self.monitor, self.verbose = filepath, monitor, verbose
        self.save_best_only, self.save_weights_only, self.save_freq = save_best_only, save_weights_only, save_freq
        if mode not in ("auto", "min", "max"):
            mode = "auto"
        if mode == "auto":
            mode = "max" if "acc" in monitor or monitor.endswith("auc") else "min"
        self.mode = mode
        self.best: Any = initial_value_threshold  # the best value of `monitor` so far (as logged)
        self._batches_seen = 0
        self._current_epoch = 0

    def _better(self, value: Any) -> bool:
        if self.best is None:
            return True
        return bool(np.greater(value, self.best) if self.mode == "max" else np.less(value, self.best))

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._current_epoch = epoch

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        if isinstance(self.save_freq, int):
            self._batches_seen += 1
            if self._batches_seen % self.save_freq == 0:
                self._save(self._current_epoch, batch, logs)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if self.save_freq == "epoch":
            self._save(epoch, None, logs)

    def _save(self, epoch: int, batch: int | None, logs: dict[str, Any] | None) -> None:
        logs = dict(logs or {})
        path = self.filepath.format(epoch=epoch + 1, batch=batch, **logs) if "{" in self.filepath else self.filepath
        if self.save_best_only:
            value = logs.get(self.monitor)
            if value is None:
                _logger.warning("Can save best model only with %s available, skipping.", self.monitor)
                return
            if not self._better(value):
                if self.verbose > 0:
                    print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {self.best:.5f}")
                return
            if self.verbose > 0:
                previous = "inf" if self.best is None else f"{self.best:.5f}"
                print(f"\nEpoch {epoch + 1}: {self.monitor} improved from {previous} to {value:.5f}, saving model "
                      f"to {path}")
            self.best = value
        elif self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: saving model to {path}")
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        cast("Model", self.model).save_weights(path, overwrite=True)
