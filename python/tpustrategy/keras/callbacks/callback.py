"""``keras.callbacks.Callback``: hooks fit / evaluate / predict call, with ``self.model`` and ``self.params``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tpustrategy.keras.models.model import Model


class Callback:
    def __init__(self) -> None:
        self.params: dict[str, Any] = {}
        self._model: Model | None = None

    def set_params(self, params: dict[str, Any]) -> None:
        self.params = params

    def set_model(self, model: Model | None) -> None:
        self._model = model

    @property
    def model(self) -> Model | None:
        return self._model

    def on_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None: ...

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None: ...

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None: ...

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None: ...

    def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None: ...

    def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None: ...

    def on_predict_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None: ...

    def on_predict_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None: ...

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None: ...

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None: ...

    def on_test_begin(self, logs: dict[str, Any] | None = None) -> None: ...

    def on_test_end(self, logs: dict[str, Any] | None = None) -> None: ...

    def on_predict_begin(self, logs: dict[str, Any] | None = None) -> None: ...

    def on_predict_end(self, logs: dict[str, Any] | None = None) -> None: ...
