"""``runner.KerasTrainer`` (TF-GNN's trainers/keras_fit.py): ``model.fit`` over a strategy with the datasets of
``DatasetProvider`` objects distributed by ``strategy.distribute_datasets_from_function``.

As TF-GNN: ``steps_per_epoch`` (the training data repeats), ``validation_steps`` (the validation data repeats),
``validation_per_epoch`` (more, shorter Keras epochs), the latest weights saved every
``checkpoint_every_n_steps`` and the best (lowest ``val_loss``) every epoch under ``model_dir/ckpnt``,
TensorBoard summaries in ``model_dir`` every ``summarize_every_n_steps``, the best weights restored at the end.
Checkpoints are Keras 3 ``.weights.h5`` files (``latest.weights.h5``, ``best.weights.h5``). Not built:
``BackupAndRestore`` (``backup_and_restore=True`` only logs that training is not resumed from ``backup_dir``),
``KerasTrainerOptions.soft_device_placement`` / ``enable_check_numerics``.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from tpustrategy.runner.interfaces import Trainer

if TYPE_CHECKING:
    from tpustrategy.data.dataset_ops import Dataset
    from tpustrategy.distribute.distribute_lib import Strategy
    from tpustrategy.distribute.distribute_options import InputContext
    from tpustrategy.keras.models.model import Model
    from tpustrategy.runner.interfaces import DatasetProvider

_logger = logging.getLogger("tpustrategy")


@dataclasses.dataclass
class KerasTrainerOptions:
    """Options for ``KerasTrainer``, also passed to ``model_fn``.

    Attributes:
      policy: A Keras dtype policy (or its name) set as the global policy before the model is built; None
        leaves the policy as it is.
      soft_device_placement, enable_check_numerics: Accepted for TF-GNN's signature; not built (ignored).
    """

    policy: object = None  # a Keras dtype policy name or object, set globally before the model is built
    soft_device_placement: bool = False
    enable_check_numerics: bool = False


@dataclasses.dataclass
class KerasTrainerCheckpointOptions:
    """Where ``KerasTrainer`` writes its checkpoints.

    Attributes:
      checkpoint_dir: The directory; None means ``<model_dir>/ckpnt`` (``KerasTrainer`` fills it in).
      best_checkpoint: The file name stem of the best checkpoint (lowest ``val_loss``).
      latest_checkpoint: The file name stem of the latest checkpoint.
    """

    checkpoint_dir: str | None = None  # None: KerasTrainer sets model_dir/ckpnt before the paths are read
    best_checkpoint: str = "best"
    latest_checkpoint: str = "latest"

    def best_checkpoint_filepath(self) -> str:
        """``<checkpoint_dir>/<best_checkpoint>.weights.h5``."""
        return os.path.join(cast(str, self.checkpoint_dir), self.best_checkpoint + ".weights.h5")

    def latest_checkpoint_filepath(self) -> str:
        """``<checkpoint_dir>/<latest_checkpoint>.weights.h5``."""
        return os.path.join(cast(str, self.checkpoint_dir), self.latest_checkpoint + ".weights.h5")


def _frequency(value: int | str, what: str) -> int | str:
    if value in ("epoch", "never") or (isinstance(value, int) and not isinstance(value, bool) and value > 0):
        return value
    raise ValueError(f"`{what}` must be a positive number of steps, \"epoch\" or \"never\". Received: {value!r}")


class KerasTrainer(Trainer):
    """A runner ``Trainer`` that trains with ``model.fit`` on distributed datasets (TF-GNN's KerasTrainer).

    Args:
      strategy: The strategy to build and train under.
      model_dir: Where checkpoints (under ``checkpoint_options.checkpoint_dir``) and TensorBoard summaries go.
      checkpoint_options: Checkpoint locations; a default instance (``<model_dir>/ckpnt``) when None. Its
        ``checkpoint_dir`` is filled in when None.
      backup_dir: Only named in the warning that BackupAndRestore is not built; ``<model_dir>/backup`` by
        default.
      steps_per_epoch: Steps per epoch over the repeated training data; None runs each epoch to the data's end.
      validation_steps: Steps per validation over the repeated validation data; None runs it to the end.
      validation_per_epoch: Split each epoch into this many Keras epochs, validating after each (needs
        `steps_per_epoch`).
      summarize_every_n_steps: TensorBoard writes epoch scalars, plus batch scalars every that many steps;
        ``"epoch"`` for epoch scalars only, ``"never"`` for no TensorBoard callback.
      checkpoint_every_n_steps: Save the latest weights every that many steps, or ``"epoch"``, or ``"never"``
        (no checkpoints at all). The best weights are saved at each epoch end otherwise.
      backup_and_restore: True only logs a warning: BackupAndRestore is not built.
      callbacks: Keras callbacks to run before the trainer's own.
      restore_best_weights: Load the best checkpoint into the model after training (needs checkpoints and a
        validation dataset).
      options: Passed to ``model_fn``; its ``policy`` is applied first.

    Raises:
      ValueError: `restore_best_weights` with ``checkpoint_every_n_steps="never"``, or a frequency that is not a
        positive int, ``"epoch"`` or ``"never"``.
    """

    def __init__(self, strategy: Strategy, *, model_dir: str | os.PathLike[str],
                 checkpoint_options: KerasTrainerCheckpointOptions | None = None, backup_dir: str | None = None,
                 steps_per_epoch: int | None = None, validation_steps: int | None = None,
                 validation_per_epoch: int | None = None, summarize_every_n_steps: int | str = 500,
                 checkpoint_every_n_steps: int | str = "epoch", backup_and_restore: bool = True,
                 callbacks: list[Any] | None = None, restore_best_weights: bool = True,
                 options: KerasTrainerOptions | None = None) -> None:
        if restore_best_weights and checkpoint_every_n_steps == "never":
            raise ValueError("`restore_best_weights` requires a `checkpoint_every_n_steps` other than \"never\"")
        checkpoint_options = checkpoint_options or KerasTrainerCheckpointOptions()
        if checkpoint_options.checkpoint_dir is None:
            checkpoint_options.checkpoint_dir = os.path.join(model_dir, "ckpnt")
        self._strategy, self._model_dir = strategy, os.fspath(model_dir)
        self._checkpoint_options = checkpoint_options
        self._backup_dir = backup_dir if backup_dir is not None else os.path.join(model_dir, "backup")
        self._steps_per_epoch, self._validation_steps = steps_per_epoch, validation_steps
        self._validation_per_epoch = validation_per_epoch
        self._summarize_every_n_steps = _frequency(summarize_every_n_steps, "summarize_every_n_steps")
        self._checkpoint_every_n_steps = _frequency(checkpoint_every_n_steps, "checkpoint_every_n_steps")
        self._backup_and_restore, self._callbacks = backup_and_restore, callbacks
        self._restore_best_weights, self._options = restore_best_weights, options

    @property
    def model_dir(self) -> str:
        return self._model_dir

    @property
    def strategy(self) -> Strategy:
        return self._strategy

    def _schedule(self, epochs: int) -> tuple[int, int | None, int | str, int | str]:
        """(epochs, steps_per_epoch, summary frequency, checkpoint frequency): with ``validation_per_epoch`` the
        user's epoch is split into that many Keras epochs, "epoch" frequencies kept at the user's epoch."""
        summarize, checkpoint = self._summarize_every_n_steps, self._checkpoint_every_n_steps
        if self._validation_per_epoch is None:
            return epochs, self._steps_per_epoch, summarize, checkpoint
        if self._steps_per_epoch is None:
            raise ValueError("`validation_per_epoch` requires a `steps_per_epoch`")
        summarize = self._steps_per_epoch if summarize == "epoch" else summarize
        checkpoint = self._steps_per_epoch if checkpoint == "epoch" else checkpoint
        return (epochs * self._validation_per_epoch, self._steps_per_epoch // self._validation_per_epoch, summarize,
                checkpoint)

    def _callbacks_for(self, summarize: int | str, checkpoint: int | str) -> list[Any]:
        from tpustrategy import keras

        callbacks = list(self._callbacks or [])
        if self._backup_and_restore:
            _logger.warning("KerasTrainer: BackupAndRestore is not built; training is not resumed from %s",
                            self._backup_dir)
        if checkpoint != "never":
            os.makedirs(cast(str, self._checkpoint_options.checkpoint_dir), exist_ok=True)  # set in __init__
            callbacks += [
                keras.callbacks.ModelCheckpoint(self._checkpoint_options.latest_checkpoint_filepath(),
                                                save_weights_only=True, save_freq=checkpoint),
                keras.callbacks.ModelCheckpoint(self._checkpoint_options.best_checkpoint_filepath(),
                                                save_best_only=True, save_weights_only=True, save_freq="epoch")]
        if summarize != "never":
            callbacks.append(keras.callbacks.TensorBoard(log_dir=self._model_dir, update_freq=summarize))
        return callbacks

    def _distribute(self, provider: DatasetProvider, repeat: bool) -> Any:
        def dataset_fn(context: InputContext) -> Dataset:
            dataset = provider.get_dataset(context)
            return dataset.repeat() if repeat else dataset

        return self._strategy.distribute_datasets_from_function(dataset_fn)

    def train(self, model_fn: Callable[..., Model], train_ds_provider: DatasetProvider, *, epochs: int = 1,
              valid_ds_provider: DatasetProvider | None = None) -> Model:
        """Builds ``model_fn(options)`` in the strategy's scope and fits it; returns the trained model.

        Raises:
          ValueError: `validation_steps` or `restore_best_weights` without `valid_ds_provider`, or
            `validation_per_epoch` without `steps_per_epoch`.
        """
        epochs, steps_per_epoch, summarize, checkpoint = self._schedule(epochs)
        if self._validation_steps is not None and valid_ds_provider is None:
            raise ValueError("`validation_steps` requires a `valid_ds_fn`")
        if self._restore_best_weights and valid_ds_provider is None:
            raise ValueError("`restore_best_weights` requires a validation dataset")
        if self._options is not None and self._options.policy:
            from tpustrategy.keras import mixed_precision

            mixed_precision.set_global_policy(self._options.policy)
        train_ds = self._distribute(train_ds_provider, repeat=steps_per_epoch is not None)
        valid_ds = None
        if valid_ds_provider is not None:
            valid_ds = self._distribute(valid_ds_provider, repeat=self._validation_steps is not None)
        callbacks = self._callbacks_for(summarize, checkpoint)
        with self._strategy.scope():
            model = model_fn(self._options)
        model.fit(train_ds, epochs=epochs, steps_per_epoch=steps_per_epoch, validation_data=valid_ds,
                  validation_steps=self._validation_steps, callbacks=callbacks)
        if self._restore_best_weights:
            model.load_weights(self._checkpoint_options.best_checkpoint_filepath())
        return model


__all__ = ["KerasTrainer", "KerasTrainerCheckpointOptions", "KerasTrainerOptions"]
