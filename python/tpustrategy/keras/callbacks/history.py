"""``keras.callbacks.History``: ``epoch`` (the epoch indices) and ``history`` (name -> list of values)."""

from __future__ import annotations

from typing import Any

from tpustrategy.keras.callbacks.callback import Callback


class History(Callback):
    def __init__(self) -> None:
        super().__init__()
        self.history: dict = {}
        self.epoch: list = []

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self.epoch = []
        if self.model is not None:
            self.model.history = self

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)
        self.model.history = self
