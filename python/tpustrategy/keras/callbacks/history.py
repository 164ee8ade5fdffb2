"""``keras.callbacks.History``: ``epoch`` (the epoch indices) and ``history`` (name -> list of values)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from tpustrategy.keras.callbacks.callback import Callback

if TYPE_CHECKING:
    from tpustrategy.keras.models.model import Model


class History(Callback):
    """Records each epoch's logs (``keras.callbacks.History``); ``fit`` adds one and returns it.

    Attributes:
      epoch: The indices of the epochs recorded by the latest ``fit`` (cleared when training begins).
      history: Log name -> one value per recorded epoch; not cleared between ``fit`` calls, so a History reused
        across them keeps appending.
    """

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list[Any]] = {}
        self.epoch: list[int] = []

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        """Clears ``epoch`` and sets itself as the model's ``history``."""
        self.epoch = []
        if self.model is not None:
            self.model.history = self

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """Appends `epoch` to ``epoch`` and each entry of `logs` to its list in ``history``."""
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)
        cast("Model", self.model).history = self
