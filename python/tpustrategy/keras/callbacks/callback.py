"""``keras.callbacks.Callback``: hooks fit / evaluate / predict call, with ``self.model`` and ``self.params``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tpustrategy.keras.models.model import Model


class Callback:
    """Base of the hooks ``Model.fit``, ``evaluate`` and ``predict`` call (``keras.callbacks.Callback``).

    Every hook does nothing here, except that ``on_train_batch_begin`` / ``_end`` call the legacy
    ``on_batch_begin`` / ``_end``; a subclass overrides the hooks it needs. The training loop calls them on the
    host, between steps (never inside a replica's step function). The train and test batch hooks run once per
    ``steps_per_execution`` chunk of steps, with the index of the chunk's first step for ``*_begin`` and of its
    last step for ``*_end``.

    Attributes:
      params: What the loop passed to ``set_params`` (``verbose``, ``epochs``, ``steps``); empty until then.
    """

    def __init__(self) -> None:
        self.params: dict[str, Any] = {}
        self._model: Model | None = None

    def set_params(self, params: dict[str, Any]) -> None:
        """Stores the loop's parameters (``verbose``, ``epochs``, ``steps``) as ``self.params``."""
        self.params = params

    def set_model(self, model: Model | None) -> None:
        """Attaches the model being trained, evaluated or predicted with (``self.model``)."""
        self._model = model

    @property
    def model(self) -> Model | None:
        """The model this callback is attached to, None before ``set_model``."""
        return self._model

    def on_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Legacy hook: the base class's ``on_train_batch_begin`` calls it, with the same arguments."""

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Legacy hook: the base class's ``on_train_batch_end`` calls it, with the same arguments."""

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """Called by ``fit`` at the start of epoch `epoch` (0-based), after the metrics are reset.

        Args:
          epoch: The epoch index, counting from ``initial_epoch``.
          logs: Unused; ``fit`` passes none.
        """

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """Called by ``fit`` at the end of epoch `epoch`, after validation.

        Args:
          epoch: The epoch index (0-based).
          logs: The epoch's metric results by name, with the validation results as ``val_<name>`` when
            validation ran this epoch. A callback may add entries (History records them after it).
        """

    def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called by ``fit`` before each chunk of training steps.

        Args:
          batch: The index, within the epoch, of the chunk's first step.
          logs: Unused; ``fit`` passes none.
        """
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called by ``fit`` after each chunk of training steps.

        Args:
          batch: The index, within the epoch, of the chunk's last step.
          logs: The metric results accumulated so far in the epoch, by name.
        """
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called by ``evaluate`` (and ``fit``'s validation) before each chunk of test steps."""

    def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called by ``evaluate`` (and ``fit``'s validation) after each chunk of test steps, with the metric
        results so far as `logs`."""

    def on_predict_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called by ``predict`` before each batch."""

    def on_predict_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called by ``predict`` after each batch, with ``{"outputs": <the batch's outputs as numpy>}`` as `logs`.
       """

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        """Called once when ``fit`` starts, before the first epoch."""

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        """Called once when ``fit`` ends, with the last epoch's logs (None if no epoch ran)."""

    def on_test_begin(self, logs: dict[str, Any] | None = None) -> None:
        """Called when ``evaluate`` (or a validation pass of ``fit``) starts."""

    def on_test_end(self, logs: dict[str, Any] | None = None) -> None:
        """Called when ``evaluate`` (or a validation pass) ends, with its metric results."""

    def on_predict_begin(self, logs: dict[str, Any] | None = None) -> None:
        """Called when ``predict`` starts."""

    def on_predict_end(self, logs: dict[str, Any] | None = None) -> None:
        """Called when ``predict`` ends."""
