"""``keras.callbacks.LearningRateScheduler``: sets the optimizer's learning rate to ``schedule(epoch, lr)``
(or ``schedule(epoch)``) at the start of each epoch and logs it as ``learning_rate``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from tpustrategy.keras.callbacks.callback import Callback

if TYPE_CHECKING:
    from tpustrategy.keras.models.model import Model
    from tpustrategy.keras.optimizers.optimizer import Optimizer


def _current_lr(optimizer: Optimizer) -> float:
    lr = optimizer._learning_rate
    if callable(lr):
        lr = lr(optimizer.iterations)
    return float(lr.numpy()) if hasattr(lr, "numpy") else float(lr)


def _takes_two(fn: Callable[..., Any]) -> bool:
    import inspect

    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in params)


class LearningRateScheduler(Callback):
    """Sets the learning rate from `schedule` at each epoch start (``keras.callbacks.LearningRateScheduler``).

    The new rate is a plain float: it replaces a LearningRateSchedule the optimizer was built with. At each epoch
    end the current rate is added to the logs as ``learning_rate``.

    Args:
      schedule: ``schedule(epoch, lr) -> new lr`` (epoch 0-based, lr the current rate as a float), or
        ``schedule(epoch)`` when it takes a single positional parameter.
      verbose: 1 prints the rate set at each epoch.
    """

    def __init__(self, schedule: Callable[..., Any], verbose: int = 0) -> None:
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """Sets the optimizer's learning rate to `schedule`'s value for `epoch`.

        Raises:
          ValueError: The model has no optimizer with a learning rate, or `schedule` returned something other
            than a number (or a tensor holding one).
        """
        optimizer = cast("Model", self.model).optimizer
        if optimizer is None or not hasattr(optimizer, "_learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        lr = _current_lr(optimizer)
        lr = self.schedule(epoch, lr) if _takes_two(self.schedule) else self.schedule(epoch)  # both forms, as Keras
        lr = float(lr.numpy()) if hasattr(lr, "numpy") else lr
        if not isinstance(lr, float | int):
            raise ValueError(f"The output of the `schedule` function should be a float. Got: {lr}")
        optimizer._learning_rate = float(lr)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {lr}.")

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if logs is not None:
            # on_epoch_begin checked that the model has an optimizer
            logs["learning_rate"] = _current_lr(cast("Optimizer", cast("Model", self.model).optimizer))
