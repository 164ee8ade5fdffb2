"""``keras.callbacks.TensorBoard``: writes each epoch's training logs to ``<log_dir>/train`` and the ``val_``
logs to ``<log_dir>/validation`` as ``epoch_<name>`` scalars at step = epoch (plus ``epoch_learning_rate``),
through ``tf.summary`` file writers, as Keras 3 does; ``update_freq`` as an int also writes ``batch_<name>``
every that many batches; ``histogram_freq`` = n writes every layer weight as a histogram tagged
``<weight path>/histogram`` every n epochs (epoch % n == 0), to the train writer, as Keras 3.15's
``_log_weights``. Weight images, graphs, embeddings and profiling are not built.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from tpustrategy.keras.callbacks.callback import Callback

if TYPE_CHECKING:
    from tpustrategy.keras.models.model import Model


def _summary() -> ModuleType:
    import importlib

    try:
        summary = importlib.import_module("tpustrategy.summary")
    except ModuleNotFoundError:
        summary = None
    if summary is None or not hasattr(summary, "create_file_writer"):
        raise NotImplementedError("keras.callbacks.TensorBoard needs tf.summary (create_file_writer, scalar), which "
                                  "this build does not have")
    return summary


class TensorBoard(Callback):
    """Writes the training logs as TensorBoard event files (``keras.callbacks.TensorBoard``); scalars and
    weight histograms only.

    Args:
      log_dir: The directory; the train and validation writers use its ``train`` and ``validation``
        subdirectories.
      histogram_freq: Every how many epochs to write each layer weight as a histogram; 0 for never.
      update_freq: ``"epoch"``, or an int: also write ``batch_<name>`` scalars every that many
        ``on_train_batch_end`` calls, counted across epochs (the count is the step).
      write_graph, write_images, write_steps_per_second, profile_batch, embeddings_freq, embeddings_metadata:
        Accepted for Keras' signature and ignored (not built).

    Raises:
      ValueError: `update_freq` is neither ``"epoch"`` nor an int, or `histogram_freq` is not a non-negative
        int.
      NotImplementedError: ``tf.summary`` is not available in this build.
    """

    def __init__(self, log_dir: str | os.PathLike[str] = "logs", histogram_freq: int = 0, write_graph: bool = True,
                 write_images: bool = False, write_steps_per_second: bool = False, update_freq: str | int = "epoch",
                 profile_batch: int | tuple[int, int] | str = 0, embeddings_freq: int = 0,
                 embeddings_metadata: Any = None) -> None:
        super().__init__()
        self._summary = _summary()
        self.log_dir = os.fspath(log_dir)
        if update_freq != "epoch" and not isinstance(update_freq, int):
            raise ValueError(f"Unrecognized update_freq: {update_freq!r}")
        self.update_freq = update_freq
        if not isinstance(histogram_freq, int) or isinstance(histogram_freq, bool) or histogram_freq < 0:
            raise ValueError(f"`histogram_freq` must be a non-negative integer. Received: {histogram_freq!r}")
        self.histogram_freq = histogram_freq
        self._writers: dict[str, Any] = {}  # "train" / "validation" -> tf.summary file writer
        self._global_batch = 0

    def _writer(self, name: str) -> Any:
        if name not in self._writers:
            self._writers[name] = self._summary.create_file_writer(os.path.join(self.log_dir, name))
        return self._writers[name]

    def _write(self, writer_name: str, prefix: str, logs: Mapping[str, Any], step: int) -> None:
        writer = self._writer(writer_name)
        with writer.as_default():
            for key, value in logs.items():
                self._summary.scalar(prefix + key, float(value), step=step)
        writer.flush()

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._global_batch += 1
        if isinstance(self.update_freq, int) and self._global_batch % self.update_freq == 0:
            self._write("train", "batch_", dict(logs or {}), self._global_batch)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = dict(logs or {})
        train = {k: v for k, v in logs.items() if not k.startswith("val_")}
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None:  # Keras 3 also logs the optimizer's current learning rate
            train["learning_rate"] = float(np.asarray(optimizer.learning_rate))
        val = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        self._write("train", "epoch_", train, epoch)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)
        if val:
            self._write("validation", "epoch_", val, epoch)

    def _log_weights(self, epoch: int) -> None:
        writer = self._writer("train")
        with writer.as_default():
            for layer in cast("Model", self.model).layers:
                for weight in layer.weights:
                    name = (getattr(weight, "path", None) or weight.name).replace(":", "_")
                    self._summary.histogram(f"{name}/histogram", np.asarray(weight.numpy()), step=epoch)
        writer.flush()

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        """Closes the file writers (a later ``fit`` opens new ones)."""
        for writer in self._writers.values():
            writer.close()
        self._writers.clear()
