"""``tf.keras.metrics`` Precision, Recall and AUC (Keras 3 formulas), on SyncOnRead SUM counters so
``result()`` under a strategy aggregates every replica's counts.

A prediction is positive at a threshold when ``y_pred > threshold``; labels are cast to bool.
AUC keeps TP/FP/TN/FN per threshold (``num_thresholds`` evenly spaced in [0, 1], the ends nudged by
epsilon to include 0 and 1) and integrates ROC with the trapezoid rule or PR with the
interpolation of Davis & Goadrich (Keras' ``summation_method="interpolation"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from tpustrategy import _core
from tpustrategy.keras.metric import Metric, _tensor
from tpustrategy.ops._args import TensorLike
from tpustrategy.variables import Variable

_EPS = 1e-7
_MAX_THRESHOLDS = 1 << 24
_NEG_INF = -1e10


def _select(y_true: TensorLike, y_pred: TensorLike, top_k: int | None,
            class_id: int | None) -> tuple[_core.tensor.Tensor, _core.tensor.Tensor]:
    """Keras 3's ``top_k`` (predictions outside each row's k largest become -1e10, never positive; the default
    threshold is then -1e10, so every kept prediction is positive) then
    ``class_id`` (one column of labels and predictions)."""
    y_true, y_pred = _tensor(y_true), _tensor(y_pred, _core.tensor.float32)
    if top_k is not None:
        values = np.asarray(y_pred.numpy(), np.float32)
        order = np.argsort(-values, axis=-1, kind="stable")[..., :top_k]  # ties: the first index, as top_k
        keep = np.zeros(values.shape, bool)
        np.put_along_axis(keep, order, True, axis=-1)
        y_pred = _core.tensor.convert_to_tensor(np.where(keep, values, np.float32(_NEG_INF)).astype(np.float32))
    if class_id is not None:
        y_true = _core.ops.gather(y_true, [int(class_id)], axis=-1)
        y_pred = _core.ops.gather(y_pred, [int(class_id)], axis=-1)
    return y_true, y_pred


def _counts(y_true: TensorLike, y_pred: TensorLike, thresholds: Sequence[float], sample_weight: TensorLike,
            num_labels: int | None = None,
            label_weights: np.ndarray[Any, Any] | None = None) -> tuple[_core.tensor.Tensor, ...]:
    """TP, FP, TN, FN per threshold (float32 vectors of len(thresholds)); with `num_labels`, per threshold and
    label (len(thresholds) x num_labels), the last axis of the inputs being the labels."""
    ops = _core.ops
    labels_last = num_labels if num_labels is not None else 1
    y_pred = ops.reshape(_tensor(y_pred, _core.tensor.float32), [-1, 1, labels_last])
    labels = ops.reshape(ops.cast(ops.cast(_tensor(y_true), _core.tensor.bool), _core.tensor.float32),
                         [-1, 1, labels_last])
    thr = _core.tensor.convert_to_tensor(np.asarray(thresholds, np.float32).reshape(1, -1, 1))
    predicted = ops.cast(ops.greater(y_pred, thr), _core.tensor.float32)
    size = int(np.prod(_tensor(y_true)._shape_tuple))
    weight = ops.ones([1, 1, 1], _core.tensor.float32)
    if sample_weight is not None:
        sw = _tensor(sample_weight, _core.tensor.float32)
        if len(sw._shape_tuple) < len(_tensor(y_true)._shape_tuple):  # per example: broadcast over the last axis
            missing = len(_tensor(y_true)._shape_tuple) - len(sw._shape_tuple)
            sw = ops.reshape(sw, list(sw._shape_tuple) + [1] * missing)
        weight = ops.reshape(ops.broadcast_to(sw, list(_tensor(y_true)._shape_tuple)), [-1, 1, labels_last])
    if label_weights is not None:
        per_label = np.asarray(label_weights, np.float32)
        full = np.broadcast_to(per_label, (size // per_label.size, per_label.size)).reshape(-1, 1, labels_last)
        weight = weight * _core.tensor.convert_to_tensor(np.ascontiguousarray(full))
    one = ops.ones([], _core.tensor.float32)
    counts = [ops.reduce_sum(a * b * weight, [0]) for a, b in (
        (predicted, labels), (predicted, one - labels), (one - predicted, one - labels), (one - predicted, labels))]
    if num_labels is None:
        counts = [ops.reshape(c, [-1]) for c in counts]
    return tuple(counts)


def _divide_no_nan(a: TensorLike, b: TensorLike) -> _core.tensor.Tensor:
    zero = _core.ops.zeros([], _core.tensor.float32)
    safe = _core.ops.where(b == zero, _core.ops.ones([], _core.tensor.float32), b)
    return _core.ops.where(b == zero, zero, a / safe)


class _Thresholded(Metric):
    def __init__(self, thresholds: float | list[float] | None, name: str | None, dtype: Any) -> None:
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = [0.5] if thresholds is None else list(np.atleast_1d(thresholds))
        self.true_positives = self.add_variable("true_positives", (len(self.thresholds),))

    def _result(self, value: _core.tensor.Tensor) -> _core.tensor.Tensor:
        return value if len(self.thresholds) > 1 else _core.ops.reshape(value, [])


class Precision(_Thresholded):
    """TP / (TP + FP) at ``thresholds`` (default 0.5)."""

    def __init__(self, thresholds: float | list[float] | None = None, top_k: int | None = None,
                 class_id: int | None = None, name: str | None = "precision", dtype: Any = None) -> None:
        if top_k is not None and (not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 1):
            raise ValueError(f"Argument `top_k` must be a positive integer. Received: top_k={top_k!r}")
        self.top_k, self.class_id = top_k, class_id
        super().__init__(thresholds if thresholds is not None or top_k is None else [_NEG_INF], name, dtype)
        self.false_positives = self.add_variable("false_positives", (len(self.thresholds),))

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds a batch's true and false positives at each threshold.

        Args:
            y_true: Labels, cast to bool (nonzero is positive).
            y_pred: Predictions; positive where ``y_pred > threshold`` (after ``top_k`` and ``class_id`` selection).
            sample_weight: Optional weights, per example or per entry, that scale each count.
        """
        y_true, y_pred = _select(y_true, y_pred, self.top_k, self.class_id)
        tp, fp, _, _ = _counts(y_true, y_pred, self.thresholds, sample_weight)
        self.true_positives.assign_add(tp)
        self.false_positives.assign_add(fp)

    def result(self) -> Any:
        """TP / (TP + FP) per threshold (0 where nothing was predicted positive); a scalar for one threshold."""
        tp = self.true_positives.value()
        return self._result(_divide_no_nan(tp, tp + self.false_positives.value()))


class Recall(_Thresholded):
    """TP / (TP + FN) at ``thresholds`` (default 0.5)."""

    def __init__(self, thresholds: float | list[float] | None = None, top_k: int | None = None,
                 class_id: int | None = None, name: str | None = "recall", dtype: Any = None) -> None:
        if top_k is not None and (not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 1):
            raise ValueError(f"Argument `top_k` must be a positive integer. Received: top_k={top_k!r}")
        self.top_k, self.class_id = top_k, class_id
        super().__init__(thresholds if thresholds is not None or top_k is None else [_NEG_INF], name, dtype)
        self.false_negatives = self.add_variable("false_negatives", (len(self.thresholds),))

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds a batch's true positives and false negatives at each threshold.

        Args:
            y_true: Labels, cast to bool (nonzero is positive).
            y_pred: Predictions; positive where ``y_pred > threshold`` (after ``top_k`` and ``class_id`` selection).
            sample_weight: Optional weights, per example or per entry, that scale each count.
        """
        y_true, y_pred = _select(y_true, y_pred, self.top_k, self.class_id)
        tp, _, _, fn = _counts(y_true, y_pred, self.thresholds, sample_weight)
        self.true_positives.assign_add(tp)
        self.false_negatives.assign_add(fn)

    def result(self) -> Any:
        """TP / (TP + FN) per threshold (0 where no label was positive); a scalar for one threshold."""
        tp = self.true_positives.value()
        return self._result(_divide_no_nan(tp, tp + self.false_negatives.value()))


class AUC(Metric):
    """Area under the ROC (default) or PR curve from per-threshold confusion counts."""

    def __init__(self, num_thresholds: int = 200, curve: str = "ROC", summation_method: str = "interpolation",
                 name: str | None = "auc", dtype: Any = None, thresholds: list[float] | None = None,
                 multi_label: bool = False, num_labels: int | None = None, label_weights: Any = None,
                 from_logits: bool = False) -> None:
        super().__init__(name=name, dtype=dtype)
        if not isinstance(curve, str) or curve.upper() not in ("ROC", "PR"):
            raise ValueError(f'Invalid AUC curve value: "{curve}". Expected values are ["ROC", "PR"]')
        if summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError(f'Invalid AUC summation method value: "{summation_method}". Expected values are '
                             '["interpolation", "majoring", "minoring"]')
        self.multi_label, self.num_labels = bool(multi_label), num_labels
        self.label_weights = None if label_weights is None else np.asarray(label_weights, np.float32).reshape(-1)
        if self.label_weights is not None and (self.label_weights < 0).any():
            raise ValueError(f"All values of `label_weights` must be non-negative. Received: {label_weights}")
        if thresholds is not None:
            self.thresholds = [0.0 - _EPS] + sorted(float(t) for t in thresholds) + [1.0 + _EPS]
        else:
            if not isinstance(num_thresholds, int) or isinstance(num_thresholds, bool) or num_thresholds <= 1:
                raise ValueError(f"Argument `num_thresholds` must be an integer > 1. Received: "
                                 f"num_thresholds={num_thresholds}")
            if num_thresholds > _MAX_THRESHOLDS:  # four counters of this length on every replica
                raise ValueError(f"Argument `num_thresholds` is too large: {num_thresholds} (at most "
                                 f"{_MAX_THRESHOLDS})")
            inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self.thresholds = [0.0 - _EPS] + inner + [1.0 + _EPS]
        self.num_thresholds = len(self.thresholds)
        self.curve, self.summation_method, self.from_logits = curve.upper(), summation_method, from_logits
        self.true_positives: Variable | None = None
        if not self.multi_label or num_labels is not None:
            # multi_label here implies num_labels is given
            self._build((self.num_thresholds,) if not self.multi_label else
                        (self.num_thresholds, int(cast(int, num_labels))))

    def _build(self, shape: tuple[int, ...]) -> None:
        """The four counters: per threshold, and per label with ``multi_label`` (built on the first update
        when ``num_labels`` is not given, as Keras)."""
        self.true_positives = self.add_variable("true_positives", shape)
        self.false_positives = self.add_variable("false_positives", shape)
        self.true_negatives = self.add_variable("true_negatives", shape)
        self.false_negatives = self.add_variable("false_negatives", shape)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Adds a batch's TP/FP/TN/FN at every threshold (per label with ``multi_label``).

        Args:
            y_true: Labels, cast to bool.
            y_pred: Scores in [0, 1], or logits when the metric was built with ``from_logits=True``.
            sample_weight: Optional weights, per example or per entry.

        Raises:
            ValueError: With ``multi_label``, if `y_pred`'s last dimension differs from the number of labels.
        """
        if self.from_logits:
            y_pred = _core.ops.sigmoid(_tensor(y_pred, _core.tensor.float32))
        labels = None
        if self.multi_label:
            labels = int(_tensor(y_pred)._shape_tuple[-1])
            if self.true_positives is None:
                self.num_labels = labels
                self._build((self.num_thresholds, labels))
            elif labels != self.num_labels:
                raise ValueError(f"AUC(multi_label=True) was built for {self.num_labels} labels; y_pred has {labels}")
        label_weights = self.label_weights if not self.multi_label else None  # multi-label: weights the average
        tp, fp, tn, fn = _counts(y_true, y_pred, self.thresholds, sample_weight, labels, label_weights)
        assert self.true_positives is not None  # built in __init__, or just above for multi_label
        self.true_positives.assign_add(tp)
        self.false_positives.assign_add(fp)
        self.true_negatives.assign_add(tn)
        self.false_negatives.assign_add(fn)

    def result(self) -> Any:
        """The area under the curve as a float32 scalar, computed host-side in float64 from the counters.

        With ``multi_label`` it is the mean of the per-label areas (weighted by ``label_weights`` when given),
        and 0 before the first update.
        """
        if self.true_positives is None:
            return _core.tensor.constant(0.0, _core.tensor.float32)
        per_label = self._areas()
        if not self.multi_label:
            return _core.tensor.constant(float(per_label), _core.tensor.float32)
        if self.label_weights is None:
            return _core.tensor.constant(float(np.mean(per_label)), _core.tensor.float32)
        weights = np.asarray(self.label_weights, np.float64)
        return _core.tensor.constant(float(np.sum(per_label * weights) / np.sum(weights)), _core.tensor.float32)

    def _areas(self) -> Any:  # np.sum: a float64, or one per label with multi_label
        """The area (per label with ``multi_label``): sums over the threshold axis 0."""
        assert self.true_positives is not None  # result() calls this once the counters are built
        tp, fp, tn, fn = (np.asarray(v.value(), np.float64) for v in (
            self.true_positives, self.false_positives, self.true_negatives, self.false_negatives))
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.curve == "PR" and self.summation_method == "interpolation":
                dtp = tp[:-1] - tp[1:]
                p = tp + fp
                dp = np.maximum(p[:-1] - p[1:], 0)
                slope = np.where(dp > 0, dtp / np.where(dp > 0, dp, 1), 0.0)
                intercept = tp[1:] - slope * p[1:]
                both = (p[:-1] > 0) & (p[1:] > 0)
                ratio = np.where(both, p[:-1] / np.where(both, p[1:], 1), 1.0)
                denom = np.maximum(tp[1:] + fn[1:], 0)
                safe_denom = np.where(denom > 0, denom, 1)
                increment = np.where(denom > 0, slope * (dtp + intercept * np.log(ratio)) / safe_denom, 0.0)
                return np.sum(increment, axis=0)
            recall = np.where(tp + fn > 0, tp / np.where(tp + fn > 0, tp + fn, 1), 0.0)
            if self.curve == "ROC":
                x = np.where(fp + tn > 0, fp / np.where(fp + tn > 0, fp + tn, 1), 0.0)
                y = recall
            else:
                x = recall
                y = np.where(tp + fp > 0, tp / np.where(tp + fp > 0, tp + fp, 1), 0.0)
            if self.summation_method == "interpolation":
                heights = (y[:-1] + y[1:]) / 2.0
            elif self.summation_method == "minoring":
                heights = np.minimum(y[:-1], y[1:])
            else:
                heights = np.maximum(y[:-1], y[1:])
            return np.sum((x[:-1] - x[1:]) * heights, axis=0)
