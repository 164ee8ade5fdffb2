"""``keras.callbacks.LearningRateScheduler``: sets the optimizer's learning rate to ``schedule(epoch, lr)``
at the start of each epoch and logs it as ``learning_rate``."""

from __future__ import annotations

from tpustrategy.keras.callbacks.callback import Callback


def _current_lr(optimizer) -> float:
    lr = optimizer._learning_rate
    if callable(lr):
        lr = lr(optimizer.iterations)
    return float(lr.numpy()) if hasattr(lr, "numpy") else float(lr)


class LearningRateScheduler(Callback):
    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch, logs=None):
        optimizer = self.model.optimizer
        if optimizer is None or not hasattr(optimizer, "_learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        lr = self.schedule(epoch, _current_lr(optimizer))
        lr = float(lr.numpy()) if hasattr(lr, "numpy") else lr
        if not isinstance(lr, float | int):
            raise ValueError(f"The output of the `schedule` function should be a float. Got: {lr}")
        optimizer._learning_rate = float(lr)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {lr}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = _current_lr(self.model.optimizer)
