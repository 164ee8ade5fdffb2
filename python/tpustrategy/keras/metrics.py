"""``tf.keras.metrics`` (Keras 3 semantics): Mean, Sum and the accuracy metrics built on Mean.

State lives in float32 variables created ON_READ with SUM aggregation, so under a strategy each replica
updates its own component inside ``run`` and ``result()`` (cross-replica) reads the sum over replicas, as
Keras does with tf.distribute. ``result()`` divides without NaN (0 before any update).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tpustrategy import _core
from tpustrategy.keras.confusion_metrics import AUC, Precision, Recall
from tpustrategy.keras.masking import get_keras_mask
from tpustrategy.keras.metric import Metric, _tensor
from tpustrategy.keras.naming import snake_case
from tpustrategy.ops._args import TensorLike


class Sum(Metric):
    """The (weighted) sum of the values seen."""

    def __init__(self, name: str = "sum", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable("total")

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        """Adds the sum of `values` (each times `sample_weight`, broadcast, when given) to the total."""
        values = _tensor(values, self.dtype)
        if sample_weight is not None:
            values = values * _tensor(sample_weight, self.dtype)
        self.total.assign_add(_core.ops.reduce_sum(values))

    def result(self) -> Any:
        return _core.ops.identity(self.total.value())


def _same_rank(x1: _core.tensor.Tensor, x2: _core.tensor.Tensor) -> tuple[_core.tensor.Tensor, _core.tensor.Tensor]:
    """Keras 3's squeeze_or_expand_to_same_rank: ranks one apart meet by a trailing dimension of 1."""
    r1, r2 = len(x1._shape_tuple), len(x2._shape_tuple)
    if r1 == r2 + 1 and x1._shape_tuple[-1] == 1:
        return (x1, _core.ops.expand_dims(x2, -1)) if r2 == 1 else (_core.ops.squeeze(x1, [-1]), x2)
    if r2 == r1 + 1 and x2._shape_tuple[-1] == 1:
        return (_core.ops.expand_dims(x1, -1), x2) if r1 == 1 else (x1, _core.ops.squeeze(x2, [-1]))
    return x1, x2


def _samplewise(values: TensorLike, sample_weight: TensorLike,
                dtype: _core.tensor.DType) -> tuple[_core.tensor.Tensor, _core.tensor.Tensor | None]:
    """Keras 3's reduce_to_samplewise_values for Mean: one value (and weight) per sample, values weighted."""
    values = _tensor(values, dtype)
    if sample_weight is not None:
        weight, rank = _tensor(sample_weight, dtype), len(values._shape_tuple)
        values, weight = _same_rank(values, weight)
        weight_rank, rank = len(weight._shape_tuple), len(values._shape_tuple)
        if rank > weight_rank:
            values = _core.ops.reduce_mean(values, list(range(weight_rank, rank)), keepdims=False)
        weight = _core.ops.broadcast_to(weight, list(values._shape_tuple))
        values = values * weight
        if weight_rank > 1:
            weight = _core.ops.reduce_mean(weight, list(range(1, weight_rank)), keepdims=False)
        sample_weight = weight
    if len(values._shape_tuple) > 1:
        values = _core.ops.reduce_mean(values, list(range(1, len(values._shape_tuple))), keepdims=False)
    return values, sample_weight


class Mean(Metric):
    """The (weighted) mean of the values seen: total / count (count = samples, or the summed weights)."""

    def __init__(self, name: str = "mean", dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable("total")
        self.count = self.add_variable("count")

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        """Adds one batch's values to the running total and count.

        Values of rank > 1 are averaged to one value per sample (over the dimensions `sample_weight` lacks,
        when it is given); each is multiplied by its weight.

        Args:
            values: A tensor-like batch of values (a scalar counts as one sample).
            sample_weight: Optional weights broadcastable to the per-sample values; the count then grows by
                their sum instead of the number of samples.
        """
        values, weight = _samplewise(values, sample_weight, self.dtype)
        if weight is not None:
            count = _core.ops.reduce_sum(weight)
        else:
            count = _core.tensor.constant(float(values._shape_tuple[0]) if values._shape_tuple else 1.0, self.dtype)
        self.total.assign_add(_core.ops.reduce_sum(values))
        self.count.assign_add(count)

    def result(self) -> Any:
        """total / count, or 0 while the count is 0 (no NaN)."""
        total, count = self.total.value(), self.count.value()
        return _core.ops.where(count == 0, _core.ops.zeros([], self.dtype), total / count)


class MeanMetricWrapper(Mean):
    """A Mean over ``fn(y_true, y_pred)`` per sample."""

    def __init__(self, fn: Callable[..., Any], name: str, dtype: Any = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self._fn = fn

    # Keras' signature: a wrapper takes (y_true, y_pred) where Mean takes values
    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:  # type: ignore[override]
        """Updates the mean with ``fn(y_true, y_pred)``, one value per sample.

        If `y_pred` carries a Keras mask, masked entries get weight 0 (the mask times `sample_weight`, when given).
        """
        mask = get_keras_mask(y_pred)  # Keras 3: a masked output's padded entries weigh 0 in its metrics
        values = self._fn(y_true, y_pred)
        if mask is not None:
            mask = _core.ops.cast(mask, self.dtype)
            if sample_weight is not None:
                mask, weight = _same_rank(mask, _tensor(sample_weight, self.dtype))
                mask = mask * weight
            sample_weight = mask
        super().update_state(values, sample_weight)


def _matches(a: TensorLike, b: TensorLike) -> _core.tensor.Tensor:
    return _core.ops.cast(_core.ops.equal(a, b), _core.tensor.float32)


def _sparse_categorical_accuracy(y_true: TensorLike, y_pred: TensorLike) -> _core.tensor.Tensor:
    y_true, y_pred = _tensor(y_true), _tensor(y_pred)
    if y_true.ndim == y_pred.ndim and y_true._shape_tuple[-1:] == (1,):
        y_true = _core.ops.squeeze(y_true, [-1])
    predicted = _core.ops.argmax(y_pred, -1, output_type=_core.tensor.int64)
    return _matches(_core.ops.cast(y_true, _core.tensor.int64), predicted)


def _categorical_accuracy(y_true: TensorLike, y_pred: TensorLike) -> _core.tensor.Tensor:
    return _matches(_core.ops.argmax(_tensor(y_true), -1, output_type=_core.tensor.int64),
                    _core.ops.argmax(_tensor(y_pred), -1, output_type=_core.tensor.int64))


def _accuracy(y_true: TensorLike, y_pred: TensorLike) -> _core.tensor.Tensor:
    y_pred = _tensor(y_pred)
    return _matches(_tensor(y_true, y_pred.dtype), y_pred)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often the argmax of ``y_pred`` equals the integer label."""

    def __init__(self, name: str = "sparse_categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(_sparse_categorical_accuracy, name, dtype)


class CategoricalAccuracy(MeanMetricWrapper):
    """How often the argmax of ``y_pred`` equals the argmax of the one-hot ``y_true``."""

    def __init__(self, name: str = "categorical_accuracy", dtype: Any = None) -> None:
        super().__init__(_categorical_accuracy, name, dtype)


class Accuracy(MeanMetricWrapper):
    """How often ``y_pred`` equals ``y_true``."""

    def __init__(self, name: str = "accuracy", dtype: Any = None) -> None:
        super().__init__(_accuracy, name, dtype)


class BinaryAccuracy(MeanMetricWrapper):
    """How often ``y_pred > threshold`` equals the 0/1 ``y_true``."""

    def __init__(self, name: str = "binary_accuracy", dtype: Any = None, threshold: float = 0.5) -> None:
        def binary_accuracy(y_true: Any, y_pred: Any) -> Any:
            y_pred = _tensor(y_pred, _core.tensor.float32)
            predicted = _core.ops.cast(_core.ops.greater(y_pred, threshold), _core.tensor.float32)
            return _matches(_tensor(y_true, _core.tensor.float32), predicted)

        super().__init__(binary_accuracy, name, dtype)
        self.threshold = threshold


class MeanSquaredError(MeanMetricWrapper):
    """The mean over samples of mean((y_true - y_pred)^2, axis=-1)."""

    def __init__(self, name: str = "mean_squared_error", dtype: Any = None) -> None:
        def mse(y_true: Any, y_pred: Any) -> Any:
            y_pred = _tensor(y_pred, _core.tensor.float32)
            error = _core.ops.square(y_pred - _tensor(y_true, _core.tensor.float32))
            return _core.ops.reduce_mean(error, [-1], keepdims=False)

        super().__init__(mse, name, dtype)


class MeanAbsoluteError(MeanMetricWrapper):
    """The mean over samples of mean(|y_true - y_pred|, axis=-1)."""

    def __init__(self, name: str = "mean_absolute_error", dtype: Any = None) -> None:
        def mae(y_true: Any, y_pred: Any) -> Any:
            y_pred = _tensor(y_pred, _core.tensor.float32)
            error = _core.ops.abs(y_pred - _tensor(y_true, _core.tensor.float32))
            return _core.ops.reduce_mean(error, [-1], keepdims=False)

        super().__init__(mae, name, dtype)


def _accuracy_for(y_true_shape: tuple[int | None, ...],
                  y_pred_shape: tuple[int | None, ...]) -> Callable[[str], Metric]:
    """Keras 3's choice for "accuracy": binary for one output unit, sparse categorical when the labels
    have one dimension fewer (or a last dimension of 1), else categorical."""
    if y_pred_shape and y_pred_shape[-1] == 1:
        return lambda name: BinaryAccuracy(name=name)
    if len(y_true_shape) < len(y_pred_shape) or (y_true_shape and y_true_shape[-1] == 1 and
                                                 len(y_true_shape) == len(y_pred_shape)):
        return lambda name: SparseCategoricalAccuracy(name=name)
    return lambda name: CategoricalAccuracy(name=name)


_BY_NAME: dict[str, type[Metric]] = {
    "mse": MeanSquaredError, "mean_squared_error": MeanSquaredError, "mae": MeanAbsoluteError,
    "mean_absolute_error": MeanAbsoluteError, "sparse_categorical_accuracy": SparseCategoricalAccuracy,
    "categorical_accuracy": CategoricalAccuracy, "binary_accuracy": BinaryAccuracy, "auc": AUC,
    "precision": Precision, "recall": Recall,
}


def get(identifier: Any, y_true_shape: tuple[int | None, ...] = (),
        y_pred_shape: tuple[int | None, ...] = ()) -> Metric:
    """A Metric for a string (named as given: "mae" logs as ``mae``; "accuracy"/"acc" picked from the
    shapes as Keras 3), a Metric instance, or a function (a mean of its per-sample values)."""
    if isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, type) and issubclass(identifier, Metric):
        return identifier()
    if isinstance(identifier, str):
        if identifier in ("accuracy", "acc"):
            return _accuracy_for(tuple(y_true_shape), tuple(y_pred_shape))(identifier)
        cls = _BY_NAME.get(identifier) or _BY_NAME.get(snake_case(identifier))
        if cls is not None:
            return cls(name=identifier)
    elif callable(identifier):
        return MeanMetricWrapper(identifier, name=getattr(identifier, "__name__", "metric"))
    raise ValueError(f"Could not interpret metric identifier: {identifier!r}")


__all__ = ["AUC", "Accuracy", "BinaryAccuracy", "CategoricalAccuracy", "Mean", "MeanAbsoluteError",
           "MeanMetricWrapper", "MeanSquaredError", "Metric", "Precision", "Recall", "SparseCategoricalAccuracy",
           "Sum", "get"]
