"""``keras.callbacks.EarlyStopping`` (Keras 3): stops training when ``monitor`` has not improved by
``min_delta`` for ``patience`` epochs; optionally restores the best weights."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from tpustrategy.keras.callbacks.callback import Callback

if TYPE_CHECKING:
    from tpustrategy.keras.models.model import Model

_logger = logging.getLogger("tpustrategy")


class EarlyStopping(Callback):
    """Stops ``fit`` once `monitor` stops improving (``keras.callbacks.EarlyStopping``).

    At each epoch end from `start_from_epoch` on, a value better than the best so far by more than `min_delta`
    resets the wait count (when it also beats `baseline`); otherwise, after `patience` epochs without that,
    it sets ``model.stop_training``. If `monitor` is missing from the logs, it logs a warning and does nothing.

    Args:
      monitor: The log entry to watch (``"val_loss"``, ``"accuracy"`` ...).
      min_delta: The least change that counts as an improvement (its sign is ignored).
      patience: Epochs without improvement before stopping.
      verbose: 1 prints the stopping epoch and the restoring of weights at the end of training.
      mode: ``"min"``, ``"max"``, or ``"auto"`` (``"max"`` for a name ending in acc, accuracy or auc, else
        ``"min"``); an unknown mode logs a warning and falls back to ``"auto"``.
      baseline: A value the monitored quantity must beat before the wait count resets; None for none.
      restore_best_weights: At the end of training, set the weights of the best epoch seen (when one was seen).
      start_from_epoch: Epochs to ignore at the start (a warm-up).

    Raises:
      TypeError: `monitor` is not a string.
    """

    def __init__(self, monitor: str = "val_loss", min_delta: float = 0, patience: int = 0, verbose: int = 0,
                 mode: str = "auto", baseline: float | None = None, restore_best_weights: bool = False,
                 start_from_epoch: int = 0) -> None:
        super().__init__()
        if not isinstance(monitor, str):
            raise TypeError(f"`monitor` must be the name of a log entry (a string). Received: monitor={monitor!r}")
        self.monitor, self.patience, self.verbose = monitor, patience, verbose
        self.baseline, self.restore_best_weights = baseline, restore_best_weights
        self.start_from_epoch = start_from_epoch
        if mode not in ("auto", "min", "max"):
            _logger.warning("EarlyStopping mode %s is unknown, fallback to auto mode.", mode)
            mode = "auto"
        if mode == "auto":
            mode = "max" if monitor.endswith(("acc", "accuracy", "auc")) else "min"
        self.mode = mode
        self.min_delta = abs(min_delta) * (1 if mode == "max" else -1)
        self.wait = 0
        self.stopped_epoch = 0
        self.best: Any = None  # the best value of `monitor` so far (as logged)
        self.best_weights: list[Any] | None = None
        self.best_epoch = 0

    def _improved(self, value: Any, reference: Any) -> bool:
        if reference is None:
            return True
        if self.mode == "max":
            return bool(np.greater(value - self.min_delta, reference))
        return bool(np.less(value - self.min_delta, reference))

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self.wait, self.stopped_epoch, self.best, self.best_weights, self.best_epoch = 0, 0, None, None, 0

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        value = (logs or {}).get(self.monitor)
        if value is None:
            _logger.warning("Early stopping conditioned on metric `%s` which is not available. Available metrics "
                            "are: %s", self.monitor, ",".join(logs or {}))
            return
        if epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = cast("Model", self.model).get_weights()
        self.wait += 1
        if self._improved(value, self.best):
            self.best, self.best_epoch = value, epoch
            if self.restore_best_weights:
                self.best_weights = cast("Model", self.model).get_weights()
            if self.baseline is None or self._improved(value, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            cast("Model", self.model).stop_training = True

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}.")
            cast("Model", self.model).set_weights(self.best_weights)
