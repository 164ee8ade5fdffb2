"""``tf.keras.losses`` (Keras 3 semantics): MSE, MAE, Huber and the binary / categorical / sparse cross entropies.

As Keras 3, inputs are converted to the loss's dtype (float32 unless ``dtype=`` says otherwise).
A loss object computes per-sample values (the mean over the last axis for MSE, the cross entropy
over the class axis), multiplies them by ``sample_weight`` when given, and reduces them:
``"sum_over_batch_size"`` (default) sums and divides by the number of values, ``"sum"`` sums,
``"none"`` / None returns the values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tpustrategy import _core
from tpustrategy.keras.naming import lookup
from tpustrategy.ops._args import TensorLike
from tpustrategy.ops.nn_ops import sigmoid_cross_entropy_with_logits

_REDUCTIONS = ("sum", "sum_over_batch_size", "mean", "mean_with_sample_weight", "none", None)
_EPSILON = 1e-7  # keras.backend.epsilon()


def _tensor(value: TensorLike, dtype: _core.tensor.DType | None = None) -> _core.tensor.Tensor:
    if hasattr(value, "_as_tensor") and not isinstance(value, _core.tensor.Tensor):
        value = value._as_tensor()
    if not isinstance(value, _core.tensor.Tensor):
        value = _core.tensor.convert_to_tensor(value)
    converted: _core.tensor.Tensor = value if dtype is None or value.dtype == dtype else _core.ops.cast(value, dtype)
    return converted


class Loss:
    """Base class: subclasses define ``call(y_true, y_pred)`` returning per-sample values."""

    def __init__(self, name: str | None = None, reduction: str = "sum_over_batch_size", dtype: Any = None) -> None:
        if reduction not in _REDUCTIONS:
            raise ValueError(f"Invalid value for argument `reduction`. Expected one of {_REDUCTIONS}. "
                             f"Received: reduction={reduction!r}")
        self.name = name
        self.reduction = reduction
        self.dtype = _core.tensor.DType(dtype) if dtype is not None else _core.tensor.float32

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Computes the reduced loss of a batch.

        `y_pred` is cast to the loss's dtype, ``call`` gives per-sample values, and those are multiplied by
        `sample_weight` (when given) and reduced by ``reduction``. A mean reduction ("sum_over_batch_size",
        "mean", "mean_with_sample_weight") divides by the number of values (by the summed weights for
        "mean_with_sample_weight" with weights; 0 for an empty batch), then by the current strategy's number
        of replicas, as Keras 3 on TensorFlow does so summed replica gradients match the global mean.

        Args:
            y_true: The targets, tensor-like.
            y_pred: The predictions, tensor-like.
            sample_weight: Optional weights broadcastable to the per-sample values.

        Returns:
            A scalar tensor, or the per-sample values for reduction "none" / None.
        """
        y_pred = _tensor(y_pred, self.dtype)
        values = self.call(y_true, y_pred)
        weight = None
        if sample_weight is not None:
            weight = _tensor(sample_weight, values.dtype)
            values = values * weight
        if self.reduction in ("none", None):
            return values
        total = _core.ops.reduce_sum(values)
        if self.reduction == "sum":
            return total
        if self.reduction == "mean_with_sample_weight" and weight is not None:
            divisor = _core.ops.reduce_sum(_core.ops.broadcast_to(weight, values._shape_tuple))
        else:
            divisor = _core.tensor.constant(float(values._num_elements()), values.dtype)
        # divide_no_nan: an empty batch (or zero total weight) gives 0
        loss = _core.ops.where(divisor == 0, _core.ops.zeros([], values.dtype), total / divisor)
        return scale_loss_for_distribution(loss)

    def call(self, y_true: Any, y_pred: Any) -> Any:
        """The per-sample loss values for `y_true` and `y_pred` (already cast to the loss's dtype).

        Raises:
            NotImplementedError: In the base class.
        """
        raise NotImplementedError

    def get_config(self) -> dict[str, Any]:
        """Keras 3's config: ``name``, ``reduction``, then the subclass's own arguments (``from_logits`` ...)."""
        import inspect

        config = {"name": self.name, "reduction": self.reduction}
        for key in inspect.signature(type(self).__init__).parameters:
            if key not in ("self", "name", "reduction", "dtype", "fn", "kwargs") and hasattr(self, key):
                config[key] = getattr(self, key)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Loss:
        """Builds the loss from a ``get_config`` dict."""
        return cls(**config)


def scale_loss_for_distribution(value: Any) -> Any:
    """Keras 3 (TF backend): a per-replica mean loss divided by the number of replicas of the current
    strategy, so that summing the replicas' gradients gives the gradient of the global mean."""
    from tpustrategy.distribute import distribution_strategy_context as ds_context

    replicas = ds_context.get_strategy().num_replicas_in_sync
    return value * _core.tensor.constant(1.0 / replicas, value.dtype) if replicas > 1 else value


def unscale_loss_for_distribution(value: Any) -> Any:
    """The inverse of ``scale_loss_for_distribution`` (what Keras' loss tracker records)."""
    from tpustrategy.distribute import distribution_strategy_context as ds_context

    replicas = ds_context.get_strategy().num_replicas_in_sync
    return value * _core.tensor.constant(float(replicas), value.dtype) if replicas > 1 else value


class LossFunctionWrapper(Loss):
    """A Loss from a function ``fn(y_true, y_pred) -> per-sample values`` (what compile wraps functions in)."""

    def __init__(self, fn: Callable[..., Any], reduction: str = "sum_over_batch_size", name: str | None = None,
                 dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(name=name or getattr(fn, "__name__", "loss"), reduction=reduction, dtype=dtype)
        self.fn, self._fn_kwargs = fn, kwargs

    def call(self, y_true: Any, y_pred: Any) -> Any:
        return _tensor(self.fn(y_true, y_pred, **self._fn_kwargs), self.dtype)


class MeanSquaredError(Loss):
    """mean((y_true - y_pred)^2, axis=-1) per sample."""

    def __init__(self, reduction: str = "sum_over_batch_size", name: str | None = "mean_squared_error",
                 dtype: Any = None) -> None:
        super().__init__(name=name, reduction=reduction, dtype=dtype)

    def call(self, y_true: Any, y_pred: Any) -> Any:
        y_true = _tensor(y_true, self.dtype)
        return _core.ops.reduce_mean(_core.ops.square(y_pred - y_true), [-1], keepdims=False)


class SparseCategoricalCrossentropy(Loss):
    """Cross entropy of integer labels against class scores (probabilities, or logits with from_logits)."""

    def __init__(self, from_logits: bool = False, ignore_class: int | None = None,
                 reduction: str = "sum_over_batch_size", name: str | None = "sparse_categorical_crossentropy",
                 dtype: Any = None) -> None:
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        if ignore_class is not None:
            raise NotImplementedError("SparseCategoricalCrossentropy(ignore_class=...) is not implemented")
        self.from_logits = bool(from_logits)
        self.ignore_class = None

    def call(self, y_true: Any, y_pred: Any) -> Any:
        ops = _core.ops
        labels = _tensor(y_true)
        if labels.dtype.is_floating:
            labels = ops.cast(labels, _core.tensor.int64)
        if labels.ndim == y_pred.ndim and labels._shape_tuple[-1:] == (1,):
            labels = ops.squeeze(labels, [-1])
        classes = y_pred._shape_tuple[-1]
        if self.from_logits:
            log_probs = ops.log_softmax(y_pred, -1)
        else:
            probs = y_pred / ops.reduce_sum(y_pred, [-1], keepdims=True)
            eps = _core.tensor.constant(_EPSILON, y_pred.dtype)
            probs = ops.minimum(ops.maximum(probs, eps), _core.tensor.constant(1 - _EPSILON, y_pred.dtype))
            log_probs = ops.log(probs)
        onehot = ops.one_hot(labels, classes, on_value=None, off_value=None, axis=-1, dtype=y_pred.dtype)
        return ops.negative(ops.reduce_sum(onehot * log_probs, [-1], keepdims=False))


class MeanAbsoluteError(Loss):
    """mean(|y_true - y_pred|, axis=-1) per sample."""

    def __init__(self, reduction: str = "sum_over_batch_size", name: str | None = "mean_absolute_error",
                 dtype: Any = None) -> None:
        super().__init__(name=name, reduction=reduction, dtype=dtype)

    def call(self, y_true: Any, y_pred: Any) -> Any:
        return _core.ops.reduce_mean(_core.ops.abs(y_pred - _tensor(y_true, self.dtype)), [-1], keepdims=False)


class Huber(Loss):
    """mean over the last axis of 0.5 e^2 where |e| <= delta, else delta (|e| - 0.5 delta)."""

    def __init__(self, delta: float = 1.0, reduction: str = "sum_over_batch_size", name: str | None = "huber_loss",
                 dtype: Any = None) -> None:
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.delta = float(delta)

    def call(self, y_true: Any, y_pred: Any) -> Any:
        ops = _core.ops
        error = y_pred - _tensor(y_true, self.dtype)
        abs_error = ops.abs(error)
        delta = _core.tensor.constant(self.delta, self.dtype)
        quadratic = _core.tensor.constant(0.5, self.dtype) * error * error
        linear = delta * abs_error - _core.tensor.constant(0.5 * self.delta * self.delta, self.dtype)
        return ops.reduce_mean(ops.where(ops.less_equal(abs_error, delta), quadratic, linear), [-1], keepdims=False)


class BinaryCrossentropy(Loss):
    """Mean over the last axis of -(t log p + (1 - t) log(1 - p)); p clipped to [eps, 1 - eps], or from logits."""

    def __init__(self, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1,
                 reduction: str = "sum_over_batch_size", name: str | None = "binary_crossentropy",
                 dtype: Any = None) -> None:
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.from_logits, self.label_smoothing, self.axis = bool(from_logits), float(label_smoothing), axis

    def call(self, y_true: Any, y_pred: Any) -> Any:
        ops = _core.ops
        target = _tensor(y_true, self.dtype)
        if self.label_smoothing:
            target = target * (1.0 - self.label_smoothing) + 0.5 * self.label_smoothing
        if self.from_logits:
            values = sigmoid_cross_entropy_with_logits(labels=target, logits=y_pred)
        else:
            p = ops.minimum(ops.maximum(y_pred, _core.tensor.constant(_EPSILON, self.dtype)),
                            _core.tensor.constant(1 - _EPSILON, self.dtype))
            values = ops.negative(target * ops.log(p) + (1.0 - target) * ops.log(1.0 - p))
        return ops.reduce_mean(values, [self.axis], keepdims=False)


class CategoricalCrossentropy(Loss):
    """-sum(t log p) over the class axis; p normalised and clipped to [eps, 1 - eps], or from logits."""

    def __init__(self, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1,
                 reduction: str = "sum_over_batch_size", name: str | None = "categorical_crossentropy",
                 dtype: Any = None) -> None:
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.from_logits, self.label_smoothing, self.axis = bool(from_logits), float(label_smoothing), axis

    def call(self, y_true: Any, y_pred: Any) -> Any:
        ops = _core.ops
        target = _tensor(y_true, self.dtype)
        if self.label_smoothing:
            classes = y_pred._shape_tuple[self.axis]
            target = target * (1.0 - self.label_smoothing) + self.label_smoothing / classes
        if self.from_logits:
            log_p = ops.log_softmax(y_pred, self.axis)
        else:
            p = y_pred / ops.reduce_sum(y_pred, [self.axis], keepdims=True)
            log_p = ops.log(ops.minimum(ops.maximum(p, _core.tensor.constant(_EPSILON, self.dtype)),
                                        _core.tensor.constant(1 - _EPSILON, self.dtype)))
        return ops.negative(ops.reduce_sum(target * log_p, [self.axis], keepdims=False))


class Reduction:
    """The reduction names of ``tf.keras.losses.Reduction`` (tf.keras 2 spellings of Keras 3's strings)."""

    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"


def sparse_categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                                    ignore_class: int | None = None, axis: int = -1) -> Any:
    """Per-example cross entropy of integer labels (``tf.keras.losses.sparse_categorical_crossentropy``)."""
    if axis != -1:
        raise NotImplementedError(f"sparse_categorical_crossentropy with axis={axis!r} (only -1)")
    loss = SparseCategoricalCrossentropy(from_logits=from_logits, ignore_class=ignore_class, reduction="none",
                                         dtype=_tensor(y_pred).dtype)
    return loss(y_true, y_pred)


def _per_sample(loss_class: type[Loss]) -> Callable[..., Any]:
    def fn(y_true: Any, y_pred: Any, **kwargs: Any) -> Any:
        return loss_class(reduction="none", **kwargs)(y_true, y_pred)

    fn.__doc__ = (f"Per-sample values of {loss_class.__name__} (reduction \"none\"); keyword arguments go to its "
                  "constructor (from_logits for the cross entropies, delta for huber).")
    return fn


mean_squared_error = _per_sample(MeanSquaredError)
mean_absolute_error = _per_sample(MeanAbsoluteError)
binary_crossentropy = _per_sample(BinaryCrossentropy)
categorical_crossentropy = _per_sample(CategoricalCrossentropy)
huber = _per_sample(Huber)
for _fn, _name in ((mean_squared_error, "mean_squared_error"), (mean_absolute_error, "mean_absolute_error"),
                   (binary_crossentropy, "binary_crossentropy"), (categorical_crossentropy, "categorical_crossentropy"),
                   (huber, "huber")):
    _fn.__name__ = _name

_BY_NAME = {
    "mean_squared_error": MeanSquaredError, "mse": MeanSquaredError, "mean_absolute_error": MeanAbsoluteError,
    "mae": MeanAbsoluteError, "binary_crossentropy": BinaryCrossentropy, "categorical_crossentropy":
    CategoricalCrossentropy, "sparse_categorical_crossentropy": SparseCategoricalCrossentropy, "huber": Huber,
    "huber_loss": Huber,
}


def get(identifier: Any) -> Callable[..., Any] | None:
    """A Loss object for a name ("mse", "sparse_categorical_crossentropy", class names too), a Loss, or a
    function of (y_true, y_pred) (wrapped with the default reduction)."""
    return lookup(identifier, Loss, _BY_NAME, "loss", wrap_callable=LossFunctionWrapper)


__all__ = ["BinaryCrossentropy", "CategoricalCrossentropy", "Huber", "Loss", "LossFunctionWrapper",
           "MeanAbsoluteError", "MeanSquaredError", "Reduction", "SparseCategoricalCrossentropy",
           "binary_crossentropy", "categorical_crossentropy", "get", "huber", "mean_absolute_error",
           "mean_squared_error", "scale_loss_for_distribution", "sparse_categorical_crossentropy",
           "unscale_loss_for_distribution"]
