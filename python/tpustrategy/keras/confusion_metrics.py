"""``tf.keras.metrics`` Precision, Recall and AUC (Keras 3 formulas), on SyncOnRead SUM counters so
``result()`` under a strategy aggregates every replica's counts.

A prediction is positive at a threshold when ``y_pred > threshold``; labels are cast to bool.
AUC keeps TP/FP/TN/FN per threshold (``num_thresholds`` evenly spaced in [0, 1], the ends nudged by
epsilon to include 0 and 1) and integrates ROC with the trapezoid rule or PR with the
interpolation of Davis & Goadrich (Keras' ``summation_method="interpolation"``).
"""

from __future__ import annotations

import numpy as np

from tpustrategy import _core
from tpustrategy.keras.metric import Metric, _tensor

_EPS = 1e-7
_MAX_THRESHOLDS = 1 << 24


def _counts(y_true, y_pred, thresholds, sample_weight):
    """TP, FP, TN, FN per threshold (float32 vectors of len(thresholds))."""
    ops = _core.ops
    y_pred = ops.reshape(_tensor(y_pred, _core.tensor.float32), [-1, 1])
    labels = ops.reshape(ops.cast(ops.cast(_tensor(y_true), _core.tensor.bool), _core.tensor.float32), [-1, 1])
    thr = _core.tensor.convert_to_tensor(np.asarray(thresholds, np.float32).reshape(1, -1))
    predicted = ops.cast(ops.greater(y_pred, thr), _core.tensor.float32)
    weight = ops.ones([1, 1], _core.tensor.float32) if sample_weight is None else ops.reshape(
        ops.broadcast_to(_tensor(sample_weight, _core.tensor.float32), [int(np.prod(_tensor(y_true)._shape_tuple))]),
        [-1, 1])
    one = ops.ones([], _core.tensor.float32)
    tp = ops.reduce_sum(predicted * labels * weight, [0])
    fp = ops.reduce_sum(predicted * (one - labels) * weight, [0])
    fn = ops.reduce_sum((one - predicted) * labels * weight, [0])
    tn = ops.reduce_sum((one - predicted) * (one - labels) * weight, [0])
    return tp, fp, tn, fn


def _divide_no_nan(a, b):
    zero = _core.ops.zeros([], _core.tensor.float32)
    safe = _core.ops.where(b == zero, _core.ops.ones([], _core.tensor.float32), b)
    return _core.ops.where(b == zero, zero, a / safe)


class _Thresholded(Metric):
    def __init__(self, thresholds, name, dtype):
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = [0.5] if thresholds is None else list(np.atleast_1d(thresholds))
        self.true_positives = self.add_variable("true_positives", (len(self.thresholds),))

    def _result(self, value):
        return value if len(self.thresholds) > 1 else _core.ops.reshape(value, [])


class Precision(_Thresholded):
    """TP / (TP + FP) at ``thresholds`` (default 0.5)."""

    def __init__(self, thresholds=None, top_k=None, class_id=None, name="precision", dtype=None):
        if top_k is not None or class_id is not None:
            raise NotImplementedError("Precision(top_k=..., class_id=...) is not implemented")
        super().__init__(thresholds, name, dtype)
        self.false_positives = self.add_variable("false_positives", (len(self.thresholds),))

    def update_state(self, y_true, y_pred, sample_weight=None):
        tp, fp, _, _ = _counts(y_true, y_pred, self.thresholds, sample_weight)
        self.true_positives.assign_add(tp)
        self.false_positives.assign_add(fp)

    def result(self):
        tp = self.true_positives.value()
        return self._result(_divide_no_nan(tp, tp + self.false_positives.value()))


class Recall(_Thresholded):
    """TP / (TP + FN) at ``thresholds`` (default 0.5)."""

    def __init__(self, thresholds=None, top_k=None, class_id=None, name="recall", dtype=None):
        if top_k is not None or class_id is not None:
            raise NotImplementedError("Recall(top_k=..., class_id=...) is not implemented")
        super().__init__(thresholds, name, dtype)
        self.false_negatives = self.add_variable("false_negatives", (len(self.thresholds),))

    def update_state(self, y_true, y_pred, sample_weight=None):
        tp, _, _, fn = _counts(y_true, y_pred, self.thresholds, sample_weight)
        self.true_positives.assign_add(tp)
        self.false_negatives.assign_add(fn)

    def result(self):
        tp = self.true_positives.value()
        return self._result(_divide_no_nan(tp, tp + self.false_negatives.value()))


class AUC(Metric):
    """Area under the ROC (default) or PR curve from per-threshold confusion counts."""

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation", name="auc", dtype=None,
                 thresholds=None, multi_label=False, num_labels=None, label_weights=None, from_logits=False):
        super().__init__(name=name, dtype=dtype)
        if not isinstance(curve, str) or curve.upper() not in ("ROC", "PR"):
            raise ValueError(f'Invalid AUC curve value: "{curve}". Expected values are ["ROC", "PR"]')
        if summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError(f'Invalid AUC summation method value: "{summation_method}". Expected values are '
                             '["interpolation", "majoring", "minoring"]')
        if multi_label or label_weights is not None:
            raise NotImplementedError("AUC(multi_label=True / label_weights) is not implemented")
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
        n = (self.num_thresholds,)
        self.true_positives = self.add_variable("true_positives", n)
        self.false_positives = self.add_variable("false_positives", n)
        self.true_negatives = self.add_variable("true_negatives", n)
        self.false_negatives = self.add_variable("false_negatives", n)

    def update_state(self, y_true, y_pred, sample_weight=None):
        if self.from_logits:
            y_pred = _core.ops.sigmoid(_tensor(y_pred, _core.tensor.float32))
        tp, fp, tn, fn = _counts(y_true, y_pred, self.thresholds, sample_weight)
        self.true_positives.assign_add(tp)
        self.false_positives.assign_add(fp)
        self.true_negatives.assign_add(tn)
        self.false_negatives.assign_add(fn)

    def result(self):
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
                return _core.tensor.constant(float(np.sum(increment)), _core.tensor.float32)
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
            return _core.tensor.constant(float(np.sum((x[:-1] - x[1:]) * heights)), _core.tensor.float32)
