"""The optimizer's state in a legacy ``.h5`` model file, as Keras 3 writes and reads it.

Keras 3 writes group ``optimizer_weights`` when saving with ``include_optimizer=True`` (the default): attribute
``weight_names`` lists the paths of ``optimizer.variables`` (``adam/iteration``, ``adam/learning_rate``, then the
slots, ``adam/sequential_dense_kernel_momentum`` ...), each stored as a dataset under its path (the iteration
an int64 scalar, the learning rate a float32 scalar; a schedule has no learning-rate variable). Loading with
``compile=True`` builds the optimizer's slots on the model's trainable variables and sets the values in order;
a count that does not match keeps the fresh optimizer with Keras' warning.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeGuard

import numpy as np

if TYPE_CHECKING:
    import h5py

    from tpustrategy.keras.models.model import Model
    from tpustrategy.keras.optimizers.optimizer import Optimizer

_logger = logging.getLogger("tpustrategy")


def _entries(optimizer: Optimizer) -> list[tuple[str, Callable[[], Any], Callable[[Any], Any]]]:
    """(path, value getter, value setter) for each of ``optimizer.variables`` (Keras' order)."""
    return [(v.path, v.numpy, v.assign) for v in optimizer.variables]


def _plain_optimizer(optimizer: object) -> TypeGuard[Optimizer]:
    from tpustrategy.keras.optimizers.loss_scale_optimizer import LossScaleOptimizer
    from tpustrategy.keras.optimizers.optimizer import Optimizer

    return isinstance(optimizer, Optimizer) and not isinstance(optimizer, LossScaleOptimizer)


def write_optimizer_weights(f: h5py.File, optimizer: object) -> None:
    """Writes ``optimizer_weights`` into the open h5py file `f` (not for a LossScaleOptimizer, whose state is
    left out with a warning: not built here)."""
    if not _plain_optimizer(optimizer):
        _logger.warning("The state of %s is not written to legacy .h5 files here; the file holds the model and its "
                        "compile arguments only.", type(optimizer).__name__)
        return
    entries = _entries(optimizer)
    group = f.create_group("optimizer_weights")
    group.attrs["weight_names"] = [path.encode("utf8") for path, _, _ in entries]
    for path, get, _ in entries:
        group.create_dataset(path, data=np.asarray(get()))


def read_optimizer_weights(f: h5py.File) -> list[np.ndarray] | None:
    """The stored values in ``weight_names`` order, or None when the file has no optimizer state."""
    if "optimizer_weights" not in f:
        return None
    group = f["optimizer_weights"]
    names = [n.decode("utf8") if isinstance(n, bytes) else str(n) for n in group.attrs["weight_names"]]
    return [np.asarray(group[name]) for name in names]


def set_optimizer_weights(model: Model, values: list[np.ndarray]) -> None:
    """Builds the optimizer's slots for the model's trainable variables and sets `values` in order (Keras'
    ``optimizer.build`` then ``set_weights``); a mismatch leaves a fresh optimizer, with Keras' warning."""
    optimizer = model.optimizer
    if not _plain_optimizer(optimizer):
        _logger.warning("Error when creating the weights of optimizer %s, making it impossible to restore the saved "
                        "optimizer state. As a result, your model is starting with a freshly initialized "
                        "optimizer.", type(optimizer).__name__)
        return
    optimizer.build(model.trainable_variables)
    entries = _entries(optimizer)
    shapes_match = len(entries) == len(values) and all(
        np.shape(get()) == np.shape(value) for (_, get, _), value in zip(entries, values, strict=True))
    if not shapes_match:
        _logger.warning("Error in loading the saved optimizer state. As a result, your model is starting with a "
                        "freshly initialized optimizer.")
        return
    for (_, _, assign), value in zip(entries, values, strict=True):
        assign(value)


__all__ = ["read_optimizer_weights", "set_optimizer_weights", "write_optimizer_weights"]
