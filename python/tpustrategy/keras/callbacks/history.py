"""``keras.callbacks.History``: ``epoch`` (the epoch indices) and ``history`` (name -> list of values)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from tpustrategy.keras.callbacks.callback import Callback

if TYPE_CHECKING:
    from tpustrategy.keras.models.model import Model


class History(Callback):
    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list[Any]] = {}
        self.epoch: list[int] = []

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self.epoch = []
        if self.model is not None:
            self.model.history = self

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)
        cast("Model", self.model).history = self
