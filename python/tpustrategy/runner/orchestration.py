"""``runner.run`` (TF-GNN's orchestration.py) on plain tensors: a single ``Task``, no GraphTensor.

Each input pipeline's dataset (``train_ds_provider.get_dataset(context)``) is batched to the per-replica batch
size of ``global_batch_size``, then mapped by the ``feature_processors`` and ``task.preprocess`` into
(inputs, labels). The trained model is ``task.predict(base_model(inputs))`` as a functional Keras model, with
``base_model = model_fn(spec)`` (spec: the ``tf.TensorSpec`` nest of the per-replica inputs, batch dimension
included), compiled with ``optimizer_fn()``, ``task.losses()`` and ``task.metrics()``, and trained by
``trainer.train``. ``model_exporters`` then save the ``RunResult`` under each of ``export_dirs`` (default
``<model_dir>/export``). Not built: a mapping of several tasks, ``gtspec`` / padding / tf.data service
arguments (accepted only as None), and TF-GNN's default SavedModel exporter (without ``model_exporters``
nothing is exported).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tpustrategy import nest
from tpustrategy.runner.interfaces import RunResult, Task

if TYPE_CHECKING:
    from tpustrategy.data.dataset_ops import Dataset
    from tpustrategy.distribute.distribute_options import InputContext
    from tpustrategy.keras.layers.keras_tensor import KerasTensor
    from tpustrategy.keras.models.model import Model
    from tpustrategy.runner.interfaces import DatasetProvider, ModelExporter, Trainer

_UNSUPPORTED = ("gtspec", "train_padding", "valid_padding", "tf_data_service_config")


def _preprocessed(provider: DatasetProvider, global_batch_size: int, drop_remainder: bool,
                  processors: Sequence[Callable[[Any], Any]], task: Task) -> DatasetProvider:
    """A DatasetProvider of (inputs, labels) batches from one of raw examples."""
    from tpustrategy.runner.interfaces import DatasetProvider

    def preprocess(batch: Any) -> tuple[Any, Any]:
        for processor in processors:
            batch = processor(batch)
        return task.preprocess(batch)

    class Preprocessed(DatasetProvider):
        def get_dataset(self, context: InputContext) -> Dataset:
            batch_size = context.get_per_replica_batch_size(global_batch_size)
            return provider.get_dataset(context).batch(batch_size, drop_remainder=drop_remainder).map(preprocess)

    return Preprocessed()


def _keras_input(spec: Any) -> KerasTensor:
    from tpustrategy import keras

    return keras.Input(batch_shape=tuple(spec.shape), dtype=spec.dtype.name)


def run(*, train_ds_provider: DatasetProvider, model_fn: Callable[..., Model], optimizer_fn: Callable[[], Any],
        trainer: Trainer, task: Task, global_batch_size: int, loss_weights: Any = None, epochs: int = 1,
        drop_remainder: bool = False, export_dirs: Sequence[str] | None = None,
        model_exporters: Sequence[ModelExporter] | None = None,
        feature_processors: Sequence[Callable[[Any], Any]] | None = None,
        valid_ds_provider: DatasetProvider | None = None, steps_per_execution: int | None = None,
        run_eagerly: bool = False, **kwargs: Any) -> RunResult:
    """Trains (and validates) ``task.predict(model_fn(spec)(inputs))`` with `trainer`; see the module docstring."""
    for name in _UNSUPPORTED:
        if kwargs.pop(name, None) is not None:
            raise NotImplementedError(f"runner.run({name}=...) is for GraphTensor inputs, which are not built here")
    if kwargs:
        raise TypeError(f"run() got unexpected keyword arguments: {sorted(kwargs)}")
    if not isinstance(task, Task):
        raise NotImplementedError(f"runner.run takes one Task here (a mapping of tasks is not built); received "
                                  f"{type(task).__name__}")
    if not isinstance(global_batch_size, int) or global_batch_size <= 0:
        raise ValueError(f"`global_batch_size` must be a positive integer. Received: {global_batch_size!r}")
    if loss_weights is not None:
        raise ValueError("`loss_weights` weigh the losses of several tasks; with one task pass loss_weights=None")
    processors = list(feature_processors or [])
    train = _preprocessed(train_ds_provider, global_batch_size, drop_remainder, processors, task)
    valid = _preprocessed(valid_ds_provider, global_batch_size, drop_remainder, processors, task) \
        if valid_ds_provider is not None else None
    built = {}

    def model_fn_in_scope(options: Any = None) -> Model:
        from tpustrategy import keras
        from tpustrategy.distribute.distribute_options import InputContext

        strategy = trainer.strategy
        context = InputContext(1, 0, strategy.num_replicas_in_sync)
        inputs_spec = train.get_dataset(context).element_spec[0]
        base_model = model_fn(inputs_spec)
        inputs = nest.map_structure(_keras_input, inputs_spec)
        model = keras.Model(inputs, task.predict(base_model(inputs)))
        model.compile(optimizer_fn(), loss=task.losses(), metrics=task.metrics(),
                      steps_per_execution=steps_per_execution or 1, run_eagerly=run_eagerly)
        built["base_model"] = base_model
        return model

    trained = trainer.train(model_fn_in_scope, train, epochs=epochs, valid_ds_provider=valid)
    result = RunResult(preprocess_model=None, base_model=built["base_model"], trained_model=trained)
    export_dirs = export_dirs or [os.path.join(trainer.model_dir, "export")]
    for exporter in model_exporters or []:
        for export_dir in export_dirs:
            exporter.save(result, export_dir)
    return result


__all__ = ["run"]
