"""``keras.callbacks.ProgbarLogger``: Keras 3's "Epoch i/n" header and progress bar (verbose 1 or 2)."""

from __future__ import annotations

from typing import Any

from tpustrategy.keras.callbacks.callback import Callback
from tpustrategy.keras.utils.progbar import Progbar


class ProgbarLogger(Callback):
    """Prints the progress bar of ``fit``, ``evaluate`` and ``predict`` (``keras.callbacks.ProgbarLogger``).

    ``fit`` and friends add one unless ``verbose=0``. With ``verbose=1`` the bar updates after each batch hook,
    with ``verbose=2`` one line is printed at the end of each epoch (or of ``evaluate`` / ``predict``); ``fit``
    prints ``Epoch i/n`` first when there is more than one epoch. Inside ``fit`` the validation pass draws no bar.
    """

    def __init__(self) -> None:
        super().__init__()
        self.seen = 0
        self.progbar: Progbar | None = None
        self.target: int | None = None
        self.verbose = 1
        self.epochs = 1
        self._called_in_fit = False

    def set_params(self, params: dict[str, Any]) -> None:
        """Takes ``verbose`` (``"auto"`` meaning 1), ``epochs`` and ``steps`` (the bar's target) from `params`."""
        verbose = params.get("verbose", 1)
        self.verbose = 1 if verbose == "auto" else verbose
        self.epochs = params.get("epochs", 1)
        self.target = params.get("steps")

    def _reset(self) -> None:
        self.seen = 0
        self.progbar = None

    def _ensure(self) -> None:
        if self.progbar is None:
            self.progbar = Progbar(target=self.target, verbose=self.verbose, unit_name="step")

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._called_in_fit = True

    def on_test_begin(self, logs: dict[str, Any] | None = None) -> None:
        if not self._called_in_fit:
            self._reset()
            self._ensure()

    def on_predict_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._reset()
        self._ensure()

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._reset()
        self._ensure()
        if self.verbose and self.epochs > 1:
            print(f"Epoch {epoch + 1}/{self.epochs}")

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._update(batch, logs)

    def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        if not self._called_in_fit:
            self._update(batch, logs)

    def on_predict_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._update(batch, None)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._finalize(logs)

    def on_test_end(self, logs: dict[str, Any] | None = None) -> None:
        if not self._called_in_fit:
            self._finalize(logs)

    def on_predict_end(self, logs: dict[str, Any] | None = None) -> None:
        self._finalize(None)

    def _update(self, batch: int, logs: dict[str, Any] | None) -> None:
        self._ensure()
        assert self.progbar is not None  # _ensure made it
        self.seen = batch + 1
        if self.verbose == 1:
            self.progbar.update(self.seen, list((logs or {}).items()), finalize=False)

    def _finalize(self, logs: dict[str, Any] | None) -> None:
        self._ensure()
        assert self.progbar is not None  # _ensure made it
        if self.target is None:
            self.target = self.seen
            self.progbar.target = self.seen
        self.progbar.update(self.target, list((logs or {}).items()), finalize=True)
