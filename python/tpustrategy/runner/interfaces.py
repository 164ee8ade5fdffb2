"""The interfaces of ``tensorflow_gnn.runner`` (interfaces.py there), on plain tensors instead of GraphTensors:
``DatasetProvider``, ``Task``, ``Trainer``, ``ModelExporter`` and ``RunResult``."""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tpustrategy.data.dataset_ops import Dataset
    from tpustrategy.distribute.distribute_lib import Strategy
    from tpustrategy.distribute.distribute_options import InputContext
    from tpustrategy.keras.models.model import Model


@dataclasses.dataclass
class RunResult:
    """What ``run`` returns: ``preprocess_model`` (None here: preprocessing runs as a dataset map, not as a Keras
    model), ``base_model`` (as ``model_fn`` built it) and ``trained_model`` (base model plus the task's head)."""

    preprocess_model: object
    base_model: object
    trained_model: object


class DatasetProvider(abc.ABC):
    """The source of one input pipeline's examples; ``run`` and ``KerasTrainer`` call it once per pipeline."""

    @abc.abstractmethod
    def get_dataset(self, context: InputContext) -> Dataset:
        """The ``tf.data.Dataset`` of one input pipeline for `context` (a ``tf.distribute.InputContext``): unbatched
        examples, which ``run`` batches to the per-replica batch size."""
        raise NotImplementedError()


class Task(abc.ABC):
    """A learning objective around a base model: ``preprocess`` splits a batch of examples into model inputs and
    labels, ``predict`` maps the base model's output to predictions, ``losses`` / ``metrics`` go to ``compile``."""

    @abc.abstractmethod
    def preprocess(self, inputs: Any) -> tuple[Any, Any]:
        """(model inputs, labels) from one batch of examples (runs in the dataset map)."""
        raise NotImplementedError()

    @abc.abstractmethod
    def predict(self, *args: Any) -> Any:
        """The task's predictions from the base model's output (a symbolic Keras tensor)."""
        raise NotImplementedError()

    @abc.abstractmethod
    def losses(self) -> Any:
        """The ``loss`` argument ``run`` passes to ``Model.compile`` (a loss, its name, or a structure of them)."""
        raise NotImplementedError()

    @abc.abstractmethod
    def metrics(self) -> Any:
        """The ``metrics`` argument ``run`` passes to ``Model.compile`` (a list of metrics or names)."""
        raise NotImplementedError()


class Trainer(abc.ABC):
    """Trains and validates a Keras model on a strategy."""

    @property
    @abc.abstractmethod
    def model_dir(self) -> str:
        """The directory for checkpoints, summaries and (by default) exports."""
        raise NotImplementedError()

    @property
    @abc.abstractmethod
    def strategy(self) -> Strategy:
        """The ``tf.distribute`` strategy the model is built and trained under."""
        raise NotImplementedError()

    @abc.abstractmethod
    def train(self, model_fn: Callable[..., Model], train_ds_provider: DatasetProvider, *, epochs: int = 1,
              valid_ds_provider: DatasetProvider | None = None) -> Model:
        """Builds the model with `model_fn` under ``strategy`` and trains it on `train_ds_provider`'s data.

        Args:
          model_fn: Called (in the strategy's scope) to build and compile the model.
          train_ds_provider: The training data (from ``run``: per-replica batches of (inputs, labels)).
          epochs: How many epochs to train.
          valid_ds_provider: Validation examples, or None for no validation.

        Returns:
          The trained model.
        """
        raise NotImplementedError()


class ModelExporter(abc.ABC):
    """Saves what ``run`` trained; ``run`` calls each of its ``model_exporters`` once per export directory."""

    @abc.abstractmethod
    def save(self, run_result: RunResult, export_dir: str) -> None:
        """Saves (part of) `run_result` under `export_dir`."""
        raise NotImplementedError()


__all__ = ["DatasetProvider", "ModelExporter", "RunResult", "Task", "Trainer"]
