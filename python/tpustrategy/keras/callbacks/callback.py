"""``keras.callbacks.Callback``: hooks fit / evaluate / predict call, with ``self.model`` and ``self.params``."""

from __future__ import annotations


class Callback:
    def __init__(self):
        self.params: dict = {}
        self._model = None

    def set_params(self, params) -> None:
        self.params = params

    def set_model(self, model) -> None:
        self._model = model

    @property
    def model(self):
        return self._model

    def on_batch_begin(self, batch, logs=None): ...

    def on_batch_end(self, batch, logs=None): ...

    def on_epoch_begin(self, epoch, logs=None): ...

    def on_epoch_end(self, epoch, logs=None): ...

    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch, logs=None): ...

    def on_test_batch_end(self, batch, logs=None): ...

    def on_predict_batch_begin(self, batch, logs=None): ...

    def on_predict_batch_end(self, batch, logs=None): ...

    def on_train_begin(self, logs=None): ...

    def on_train_end(self, logs=None): ...

    def on_test_begin(self, logs=None): ...

    def on_test_end(self, logs=None): ...

    def on_predict_begin(self, logs=None): ...

    def on_predict_end(self, logs=None): ...
