"""``compile`` / ``fit`` / ``evaluate`` / ``predict`` and the ``*_on_batch`` methods (Keras 3, TF backend).

One training step, per replica (``strategy.run`` when the model belongs to a strategy):
  y_pred = model(x, training=True); loss = compiled loss (its "sum_over_batch_size" divides by the local
  batch and by the number of replicas) + sum(model.losses) / replicas; the loss tracker records the
  unscaled loss weighted by the local batch size; gradients go to ``optimizer.apply_gradients``, which
  sums them across replicas; compiled metrics update their per-replica (SyncOnRead) state.
Logs are the metrics' ``result()`` read in cross-replica context, i.e. aggregated over replicas.
"""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from tpustrategy import _core, nest
from tpustrategy.distribute import distribution_strategy_context as ds_context
from tpustrategy.eager.backprop import GradientTape
from tpustrategy.keras import losses as losses_module
from tpustrategy.keras import masking
from tpustrategy.keras import metrics as metrics_module
from tpustrategy.keras import optimizers as optimizers_module
from tpustrategy.keras._tensors import shape_of, tensor
from tpustrategy.keras.callbacks.callback_list import CallbackList
from tpustrategy.keras.models import metric_logs
from tpustrategy.keras.models.compile_metrics import CompileMetrics
from tpustrategy.keras.models.data_adapter import DataHandler, unpack_x_y_sample_weight
from tpustrategy.keras.models.output_losses import OutputLosses, output_metrics

if TYPE_CHECKING:
    from tpustrategy.keras.callbacks.callback import Callback
    from tpustrategy.keras.callbacks.history import History
    from tpustrategy.keras.layers.layer import Layer as _TrainerBase
    from tpustrategy.keras.metric import Metric
    from tpustrategy.keras.models.model import Model
    from tpustrategy.keras.optimizers.optimizer import Optimizer
else:
    _TrainerBase = object  # the checker sees the Layer that Model mixes Trainer with

_MetricSpecs = list[Any] | tuple[Any, ...] | dict[str, Any]

_logger = logging.getLogger("tpustrategy")
_END = object()
_OPTIMIZERS = {"sgd": "SGD", "adam": "Adam", "adamw": "AdamW", "rmsprop": "RMSprop", "adagrad": "Adagrad"}


def _get_optimizer(identifier: Any) -> Optimizer:
    if isinstance(identifier, optimizers_module.Optimizer):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _OPTIMIZERS:
        return cast("Optimizer", getattr(optimizers_module, _OPTIMIZERS[identifier.lower()])())
    raise ValueError(f"Could not interpret optimizer identifier: {identifier!r}")


def _to_python(value: Any) -> float | np.ndarray:
    array = np.asarray(value)
    return float(array) if array.ndim == 0 else array


def _split_arrays(arrays: Any, validation_split: float) -> tuple[Any, Any]:
    """Keras' ``train_validation_split``: the first floor(n (1 - split)) rows train, the rest validate."""
    flat = [np.asarray(a) if not isinstance(a, np.ndarray) else a for a in nest.flatten(arrays)]
    n = flat[0].shape[0]
    split_at = int(np.floor(n * (1.0 - validation_split)))
    if split_at == 0 or split_at == n:
        raise ValueError(f"Training data contains {n} samples, which is not sufficient to split it into a validation "
                         f"and training set as specified by `validation_split={validation_split}`. Either provide more "
                         "data, or a different value for the `validation_split` argument.")
    first = nest.pack_sequence_as(arrays, [a[:split_at] for a in flat])
    second = nest.pack_sequence_as(arrays, [a[split_at:] for a in flat])
    return first, second


class Trainer(_TrainerBase):
    """The training half of ``Model`` (mixed in before Layer)."""

    def __init__(self) -> None:
        self.compiled = False
        self.optimizer: Optimizer | None = None
        self.loss: Any = None
        self._compile_loss: Callable[..., Any] | None = None  # a Loss, or any callable losses.get accepts
        self._metric_specs: _MetricSpecs = []
        self._weighted_metric_specs: _MetricSpecs = []
        self._compile_metrics: list[Metric] | None = None
        self._weighted_metrics: list[Metric] | None = None
        self._compile_metrics_entry: CompileMetrics | None = None
        self._loss_tracker: metrics_module.Mean | None = None
        self._output_losses: OutputLosses | None = None
        self._pending_losses: tuple[Any, Any, Any, Any] | None = None  # (loss, loss_weights, metrics, weighted_metrics)
        self._metric_outputs: list[tuple[int, Metric]] = []
        self._weighted_metric_outputs: list[tuple[int, Metric]] = []
        self.steps_per_execution = 1
        self.stop_training = False
        self.history: History | None = None

    # ---- compile ----
    def compile(self, optimizer: Any = "rmsprop", loss: Any = None, loss_weights: Any = None, metrics: Any = None,
                weighted_metrics: Any = None, run_eagerly: bool = False, steps_per_execution: int = 1,
                jit_compile: bool | str = "auto", auto_scale_loss: bool = True) -> None:
        """Configures training (Keras 3 signature). A functional model with several outputs takes one loss, a
        list or a dict of losses, ``loss_weights`` and per-output metrics (see output_losses.py)."""
        output_names = self._output_names()
        per_output = len(output_names) > 1 or isinstance(loss, list | tuple | dict) or loss_weights is not None
        if not isinstance(steps_per_execution, int) or steps_per_execution < 1:
            raise ValueError(f"`steps_per_execution` must be a positive integer. Received: {steps_per_execution!r}")
        # A subclassed model has no output names: its losses follow the structure `call` returns, known at the
        # first batch (Keras 3 builds its CompileLoss there too); see _build_subclassed_losses.
        self._pending_losses = (loss, loss_weights, metrics, weighted_metrics) if not output_names else None
        per_output = per_output and bool(output_names)
        with self._strategy_scope():
            self.optimizer = _get_optimizer(optimizer)
            if auto_scale_loss and self.dtype_policy.name == "mixed_float16" and \
                    not isinstance(self.optimizer, optimizers_module.LossScaleOptimizer):
                self.optimizer = optimizers_module.LossScaleOptimizer(self.optimizer, name="loss_scale_optimizer")
            self._loss_tracker = metrics_module.Mean(name="loss")
            self._output_losses = OutputLosses(loss, loss_weights, output_names) if per_output else None
        self.loss = loss
        nested_loss = isinstance(loss, list | tuple | dict)
        self._compile_loss = losses_module.get(loss) if not per_output and not nested_loss else None
        nested_metrics = not output_names and isinstance(metrics, dict)
        self._metric_specs = _as_list(metrics, "metrics", per_output or nested_metrics)
        self._weighted_metric_specs = _as_list(weighted_metrics, "weighted_metrics",
                                               per_output or (not output_names and isinstance(weighted_metrics, dict)))
        self._compile_metrics = None
        self._weighted_metrics = None
        has_metrics = metrics is not None or weighted_metrics is not None
        self._compile_metrics_entry = CompileMetrics(self) if has_metrics else None
        self.steps_per_execution = steps_per_execution
        self.compiled = True

    def _output_names(self) -> list[str]:
        graph = getattr(self, "_graph", None)
        return [t._node.layer.name for t in graph.flat_outputs] if graph is not None else []

    def _assert_compiled(self) -> None:
        if not self.compiled:
            raise ValueError("You must call `compile()` before using the model.")

    def _strategy_scope(self) -> contextlib.AbstractContextManager[object]:
        strategy = self._distribute_strategy
        if strategy is None or ds_context.get_strategy() is strategy:
            return contextlib.nullcontext()
        return strategy.scope()

    @property
    def _distributed(self) -> bool:
        return self._distribute_strategy is not None

    @property
    def metrics(self) -> list[Metric | CompileMetrics]:
        """Keras 3's order: the loss tracker, ``compile_metrics`` (if compile got metrics), then the per-output
        loss trackers once built (at the first batch)."""
        out: list[Metric | CompileMetrics] = [self._loss_tracker] if self._loss_tracker is not None else []
        if self._compile_metrics_entry is not None:
            out.append(self._compile_metrics_entry)
        if self._output_losses is not None and self._compile_metrics is not None:
            out += self._output_losses.metrics
        return out

    @property
    def metrics_names(self) -> list[str]:
        """The names of ``metrics``, in that order (the order of ``evaluate``'s list)."""
        return [m.name for m in self.metrics]

    def _metric_objects(self) -> list[Metric]:
        """Every metric the trainer updates: the loss trackers and the compiled metrics, built or not."""
        out: list[Metric] = [self._loss_tracker] if self._loss_tracker is not None else []
        out += self._output_losses.metrics if self._output_losses is not None else []
        return out + list(self._compile_metrics or []) + list(self._weighted_metrics or [])

    def reset_metrics(self) -> None:
        """Resets the state of every loss tracker and compiled metric (in the model's strategy scope)."""
        with self._strategy_scope():
            for metric in self._metric_objects():
                metric.reset_state()

    def _build_subclassed_losses(self, y_pred: Any) -> None:
        """Matches a subclassed model's compiled losses and metrics to the structure its ``call`` returned."""
        assert self._pending_losses is not None  # _build_metrics calls this only then
        loss, loss_weights, metrics, weighted_metrics = self._pending_losses
        if isinstance(y_pred, list | tuple | dict):
            with self._strategy_scope():
                self._output_losses = OutputLosses.for_subclassed(loss, loss_weights, y_pred)
            self._compile_loss = None
            self._metric_specs = _as_list(metrics, "metrics", True)
            self._weighted_metric_specs = _as_list(weighted_metrics, "weighted_metrics", True)
        elif isinstance(loss, list | tuple | dict):
            if not (isinstance(loss, list | tuple) and len(loss) == 1):
                raise ValueError(f"The model returns a single output but `loss` has a structure: loss={loss!r}. Pass "
                                 "one loss, or return a list / dict of outputs from `call`.")
            self._compile_loss = losses_module.get(loss[0])

    def _build_metrics(self, y: Any, y_pred: Any) -> None:
        if self._compile_metrics is not None:
            return
        if self._output_losses is None and self._pending_losses is not None:
            self._build_subclassed_losses(y_pred)
        if self._output_losses is not None:
            names = self._output_losses.names
            targets = self._output_losses.targets(y) if y is not None else [None] * len(names)
            y_shapes = [shape_of(t) if t is not None else () for t in targets]
            p_shapes = [shape_of(p) for p in nest.flatten(y_pred)]
            prefixes = self._output_losses.metric_prefixes
            with self._strategy_scope():
                self._metric_outputs = output_metrics(self._metric_specs, names, y_shapes, p_shapes, prefixes)
                self._weighted_metric_outputs = output_metrics(self._weighted_metric_specs, names, y_shapes, p_shapes,
                                                               prefixes)
            self._compile_metrics = [m for _, m in self._metric_outputs]
            self._weighted_metrics = [m for _, m in self._weighted_metric_outputs]
            return
        y_shape = shape_of(y) if y is not None else ()
        p_shape = shape_of(nest.flatten(y_pred)[0])
        with self._strategy_scope():
            self._compile_metrics = [metrics_module.get(m, y_shape, p_shape) for m in self._metric_specs]
            self._weighted_metrics = [metrics_module.get(m, y_shape, p_shape) for m in self._weighted_metric_specs]

    def _symbolic_build(self, sample: tuple[Any, Any, Any]) -> None:
        """Builds the model's and the metrics' variables in the strategy's scope from one example."""
        x, y, _ = sample
        if self.built and self._compile_metrics is not None:
            return
        with self._strategy_scope():
            y_pred = self(nest.map_structure(tensor, x), training=False)
            self._clear_losses()
        self._build_metrics(y, y_pred)

    # ---- the steps (run per replica) ----
    def compute_loss(self, x: Any = None, y: Any = None, y_pred: Any = None, sample_weight: Any = None,
                     training: bool = True) -> Any:
        """The total loss of one step: the compiled loss(es) plus the model's ``losses`` (each summed and scaled
        for the number of replicas).

        Args:
          x: Unused (Keras' signature).
          y: The targets.
          y_pred: The model's outputs for the batch.
          sample_weight: Per-example weights for the compiled loss, or None.
          training: Unused (Keras' signature).

        Returns:
          A scalar tensor.

        Raises:
          ValueError: No loss was compiled and the model added none.
        """
        values = []
        if self._output_losses is not None:
            values.append(self._output_losses(y, nest.flatten(y_pred), sample_weight))
        elif self._compile_loss is not None:
            mask = masking.get_keras_mask(y_pred)  # Keras 3: the output's mask weights the loss
            if mask is not None:
                sample_weight = masking.apply_mask(sample_weight, mask)
            values.append(self._compile_loss(y, y_pred, sample_weight))
        for extra in self.losses:
            values.append(losses_module.scale_loss_for_distribution(_core.ops.reduce_sum(tensor(extra, "float32"))))
        if not values:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        total = values[0]
        for value in values[1:]:
            total = total + value
        return total

    def _batch_rows(self, x: Any) -> float:
        return float(shape_of(nest.flatten(x)[0])[0])

    def _update_metrics(self, y: Any, y_pred: Any, sample_weight: Any) -> None:
        if self._output_losses is not None:
            targets, preds = self._output_losses.targets(y), nest.flatten(y_pred)
            for index, metric in self._metric_outputs:
                metric.update_state(targets[index], preds[index])
            for index, metric in self._weighted_metric_outputs:
                metric.update_state(targets[index], preds[index], sample_weight=sample_weight)
            return
        for metric in self._compile_metrics or []:
            metric.update_state(y, y_pred)
        for metric in self._weighted_metrics or []:
            metric.update_state(y, y_pred, sample_weight=sample_weight)

    def train_step(self, data: Any) -> Any:
        """One training step on a batch, run eagerly (per replica under the model's strategy; not traced).

        Computes the loss under a GradientTape, applies the gradients with the optimizer (warning when the model
        has no trainable weights) and updates the loss tracker and compiled metrics. Override it to customize
        ``fit``.

        Args:
          data: A batch: ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``.

        Returns:
          None here (Keras returns the logs); ``fit`` reads the logs from the metrics.
        """
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True) if self._call_has_training_arg else self(x)
            loss = self.compute_loss(x, y, y_pred, sample_weight, training=True)
            # LossScaleOptimizer / loss_scale_factor (Keras 3)
            scaled_loss = cast("Optimizer", self.optimizer).scale_loss(loss)
        cast("metrics_module.Mean", self._loss_tracker).update_state(
            losses_module.unscale_loss_for_distribution(loss), sample_weight=self._batch_rows(x))
        if self._output_losses is not None:
            self._output_losses.update_trackers(self._batch_rows(x))
        trainable = self.trainable_weights
        if trainable:
            gradients = tape.gradient(scaled_loss, trainable)
            cast("Optimizer", self.optimizer).apply_gradients(list(zip(gradients, trainable, strict=True)))
        else:
            warnings.warn("The model does not have any trainable weights.", stacklevel=2)
        self._update_metrics(y, y_pred, sample_weight)

    def test_step(self, data: Any) -> Any:
        """One evaluation step on a batch (as ``train_step`` without the update); returns None, like it.

        Args:
          data: A batch: ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``.
        """
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False) if self._call_has_training_arg else self(x)
        loss = self.compute_loss(x, y, y_pred, sample_weight, training=False)
        cast("metrics_module.Mean", self._loss_tracker).update_state(
            losses_module.unscale_loss_for_distribution(loss), sample_weight=self._batch_rows(x))
        if self._output_losses is not None:
            self._output_losses.update_trackers(self._batch_rows(x))
        self._update_metrics(y, y_pred, sample_weight)

    def predict_step(self, data: Any) -> Any:
        """The model's outputs for a batch's ``x`` (called with ``training=False``), run eagerly per replica."""
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False) if self._call_has_training_arg else self(x)

    def _run(self, step_fn: Callable[[Any], Any], batch: Any) -> Any:
        if self._distributed:
            assert self._distribute_strategy is not None  # what _distributed checks
            return self._distribute_strategy.run(step_fn, args=(batch,))
        return step_fn(batch)

    def _logs(self) -> dict[str, Any]:
        """The metrics' results by log name, keys sorted: Keras' TF backend returns the step's logs from a
        tf.function, whose nest flattening sorts dict keys (history, evaluate's dict, callbacks' logs)."""
        with self._strategy_scope():
            if self._compile_metrics is None:
                logs = {m.name: _to_python(m.result()) for m in self._metric_objects()}
            else:
                logs = {name: _to_python(m.result()) for name, m in metric_logs.log_entries(self)}
        return dict(sorted(logs.items()))

    def _loop(self, handler: DataHandler, step_fn: Callable[[Any], Any], on_begin: Callable[[int], None],
              on_end: Callable[[int, dict[str, Any]], None],
              stop_check: Callable[[], bool] = lambda: False) -> tuple[dict[str, Any] | None, int]:
        """Runs one epoch in chunks of ``steps_per_execution`` steps; batch hooks once per chunk."""
        iterator = handler.epoch_batches()
        step = 0
        logs: dict[str, Any] | None = None
        while True:
            on_begin(step)
            done = 0
            for _ in range(self.steps_per_execution):
                batch = next(iterator, _END)
                if batch is _END:
                    break
                step_fn(batch)
                done += 1
            if not done:
                break
            step += done
            logs = self._logs()
            on_end(step - 1, logs)
            if stop_check():
                break
        return logs, step

    # ---- fit / evaluate / predict ----
    def fit(self, x: Any = None, y: Any = None, batch_size: int | None = None, epochs: int = 1,
            verbose: int | str = "auto", callbacks: list[Callback] | None = None, validation_split: float = 0.0,
            validation_data: Any = None, shuffle: bool = True, class_weight: dict[int, float] | None = None,
            sample_weight: Any = None, initial_epoch: int = 0, steps_per_epoch: int | None = None,
            validation_steps: int | None = None, validation_batch_size: int | None = None,
            validation_freq: int = 1) -> History | None:
        """Trains for ``epochs`` epochs; returns the History callback."""
        self._assert_compiled()
        from tpustrategy.data.dataset_ops import Dataset

        if validation_split and validation_data is None:
            if isinstance(x, Dataset):
                raise ValueError("`validation_split` is only supported for Tensors or NumPy arrays, found following "
                                 f"types in the input: {[type(x)]}")
            (x, y, sample_weight), validation_data = _split_arrays_with_weights(x, y, sample_weight, validation_split)
        handler = DataHandler(x, y, sample_weight, batch_size, steps_per_epoch, shuffle, class_weight,
                              self._distribute_strategy, self._distributed)
        val_handler = None
        if validation_data is not None:
            val_x, val_y, val_sw = unpack_x_y_sample_weight(validation_data) if not isinstance(
                validation_data, Dataset) else (validation_data, None, None)
            val_handler = DataHandler(val_x, val_y, val_sw, validation_batch_size or batch_size, validation_steps,
                                      False, None, self._distribute_strategy, self._distributed)
        self._symbolic_build(handler.sample())
        verbose = 1 if verbose == "auto" else verbose
        callback_list = callbacks if isinstance(callbacks, CallbackList) else CallbackList(
            callbacks, add_history=True, add_progbar=verbose != 0, model=cast("Model", self), verbose=verbose,
            epochs=epochs, steps=handler.steps)
        self.stop_training = False
        callback_list.on_train_begin()
        training_logs = None
        with self._strategy_scope():
            for epoch in range(initial_epoch, epochs):
                self.reset_metrics()
                callback_list.on_epoch_begin(epoch)
                logs, _ = self._loop(handler, lambda b: self._run(self.train_step, b),
                                     callback_list.on_train_batch_begin, callback_list.on_train_batch_end,
                                     lambda: self.stop_training)
                epoch_logs = dict(logs if logs is not None else self._logs())
                if val_handler is not None and (epoch + 1) % validation_freq == 0:
                    val_logs = self._evaluate(val_handler, callback_list)
                    epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
                callback_list.on_epoch_end(epoch, epoch_logs)
                training_logs = epoch_logs
                if self.stop_training:
                    break
        callback_list.on_train_end(logs=training_logs)
        return self.history

    def _evaluate(self, handler: DataHandler, callback_list: CallbackList) -> dict[str, Any]:
        self.reset_metrics()
        callback_list.on_test_begin()
        logs, _ = self._loop(handler, lambda b: self._run(self.test_step, b), callback_list.on_test_batch_begin,
                             callback_list.on_test_batch_end)
        logs = logs if logs is not None else self._logs()
        callback_list.on_test_end(logs)
        return logs

    def evaluate(self, x: Any = None, y: Any = None, batch_size: int | None = None, verbose: int | str = "auto",
                 sample_weight: Any = None, steps: int | None = None, callbacks: list[Callback] | None = None,
                 return_dict: bool = False, **kwargs: Any) -> Any:
        """The loss and metrics over the data: a scalar (loss only), a list in ``metrics_names`` order, or a dict."""
        self._assert_compiled()
        handler = DataHandler(x, y, sample_weight, batch_size, steps, False, None, self._distribute_strategy,
                              self._distributed)
        self._symbolic_build(handler.sample())
        verbose = 1 if verbose == "auto" else verbose
        callback_list = callbacks if isinstance(callbacks, CallbackList) else CallbackList(
            callbacks, add_progbar=verbose != 0, model=cast("Model", self), verbose=verbose, epochs=1,
            steps=handler.steps)
        with self._strategy_scope():
            logs = self._evaluate(handler, callback_list)
        if return_dict:
            return logs
        values = self._flatten_logs_in_order(logs)
        return values[0] if len(values) == 1 else values

    def predict(self, x: Any, batch_size: int | None = None, verbose: int | str = "auto", steps: int | None = None,
                callbacks: list[Callback] | None = None) -> Any:
        """Model outputs for every example, as numpy arrays (replicas' pieces concatenated in order)."""
        handler = DataHandler(x, None, None, batch_size, steps, False, None, self._distribute_strategy,
                              self._distributed)
        sample_x, _, _ = handler.sample()
        if not self.built:
            with self._strategy_scope():
                self(nest.map_structure(tensor, sample_x), training=False)
        verbose = 1 if verbose == "auto" else verbose
        callback_list = callbacks if isinstance(callbacks, CallbackList) else CallbackList(
            callbacks, add_progbar=verbose != 0, model=cast("Model", self), verbose=verbose, epochs=1,
            steps=handler.steps)
        outputs = []

        def run(batch: Any) -> Any:
            result = self._run(self.predict_step, batch)
            if self._distributed:
                assert self._distribute_strategy is not None  # what _distributed checks
                local = self._distribute_strategy.experimental_local_results(result)
                pieces = [nest.map_structure(lambda t: np.asarray(t.numpy()), r) for r in local]
                result = nest.map_structure(lambda *p: np.concatenate(p, axis=0), *pieces)
            else:
                result = nest.map_structure(lambda t: np.asarray(t.numpy()), result)
            outputs.append(result)

        callback_list.on_predict_begin()
        with self._strategy_scope():
            iterator = handler.epoch_batches()
            step = 0
            for batch in iterator:
                callback_list.on_predict_batch_begin(step)
                run(batch)
                callback_list.on_predict_batch_end(step, {"outputs": outputs[-1]})
                step += 1
        callback_list.on_predict_end()
        if not outputs:
            raise ValueError("Unexpected result of `predict_function` (Empty batch_outputs). Please use "
                             "`Model.compile(..., run_eagerly=True)`, or `tf.config.run_functions_eagerly(True)` for "
                             "more information of where went wrong, or file a issue/bug to `keras`.")
        return nest.map_structure(lambda *p: np.concatenate(p, axis=0), *outputs)

    # ---- single batches ----
    def _one_batch_handler(self, x: Any, y: Any, sample_weight: Any,
                           class_weight: dict[int, float] | None = None) -> DataHandler:
        rows = int(np.shape(nest.flatten(x)[0])[0]) if not hasattr(nest.flatten(x)[0], "_shape_tuple") else \
            nest.flatten(x)[0]._shape_tuple[0]
        return DataHandler(x, y, sample_weight, max(1, rows), None, False, class_weight, self._distribute_strategy,
                           self._distributed)

    def train_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                       class_weight: dict[int, float] | None = None, return_dict: bool = False) -> Any:
        """One training step on this batch; the metrics are reset first (Keras 3.15), so the result is this
        batch's."""
        self._assert_compiled()
        handler = self._one_batch_handler(x, y, sample_weight, class_weight)
        self._symbolic_build(handler.sample())
        self.reset_metrics()
        with self._strategy_scope():
            for batch in handler.epoch_batches():
                self._run(self.train_step, batch)
        return self._batch_result(return_dict)

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None, return_dict: bool = False) -> Any:
        """Evaluates this one batch after resetting the metrics: the loss and metrics as ``evaluate`` returns them.

        Raises:
          ValueError: The model is not compiled.
        """
        self._assert_compiled()
        handler = self._one_batch_handler(x, y, sample_weight)
        self._symbolic_build(handler.sample())
        self.reset_metrics()
        with self._strategy_scope():
            for batch in handler.epoch_batches():
                self._run(self.test_step, batch)
        return self._batch_result(return_dict)

    def predict_on_batch(self, x: Any) -> Any:
        """The model's outputs for this one batch, as numpy arrays (``predict`` with the whole batch, silent)."""
        rows = int(np.shape(nest.flatten(x)[0])[0]) if not hasattr(nest.flatten(x)[0], "_shape_tuple") else \
            nest.flatten(x)[0]._shape_tuple[0]
        return self.predict(x, batch_size=max(1, rows), verbose=0)

    def _batch_result(self, return_dict: bool) -> Any:
        logs = self._logs()
        if return_dict:
            return logs
        values = self._flatten_logs_in_order(logs)
        return values[0] if len(values) == 1 else values

    def _flatten_logs_in_order(self, logs: dict[str, Any]) -> list[Any]:
        return metric_logs.flatten_logs_in_order(self, logs)


def _as_list(value: Any, what: str, per_output: bool = False) -> _MetricSpecs:
    if value is None:
        return []
    if per_output and isinstance(value, dict | list | tuple):
        return value  # resolved per output by output_metrics once the outputs' shapes are known
    if isinstance(value, dict):
        raise ValueError(f"compile({what}=dict) needs a model with several named outputs")
    return list(value) if isinstance(value, list | tuple) else [value]


def _split_arrays_with_weights(x: Any, y: Any, sample_weight: Any,
                               validation_split: float) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    if not 0 < validation_split < 1:
        raise ValueError(f"`validation_split` must be in [0, 1). Received: validation_split={validation_split}")
    arrays = tuple(a for a in (x, y, sample_weight) if a is not None)
    train, val = _split_arrays(arrays, validation_split)
    train = list(train) + [None] * (3 - len(train))
    if y is None:
        train = [train[0], None, None]
    return tuple(train), tuple(val)
