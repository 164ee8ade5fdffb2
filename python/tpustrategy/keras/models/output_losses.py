"""Losses and metrics of a model with several outputs (Keras 3's CompileLoss / CompileMetrics, the parts built).

``compile(loss=...)`` takes one loss (applied to every output), a list (one per output, in the order of the
model's outputs; None for an output without a loss) or a dict keyed by output name (outputs not named get no
loss). ``loss_weights`` is a list or a dict of the same kind (missing names weigh 1). The total loss is
sum_i w_i * loss_i(y_i, y_pred_i, sample_weight); each output's unweighted loss is also logged as
``<output name>_loss``. Metrics for several outputs are a list of lists or a dict, logged as
``<output name>_<metric name>``. Targets are a list/tuple in output order or a dict keyed by output name.
Output names are the names of the layers producing a functional model's outputs.
"""

from __future__ import annotations

import greenlet

from tpustrategy.keras import losses as losses_module
from tpustrategy.keras import masking
from tpustrategy.keras import metrics as metrics_module


def _per_output(value, names, what, default, convert):
    """A list with one entry per output from a single value, a list or a dict keyed by output name."""
    if isinstance(value, dict):
        unknown = sorted(set(value) - set(names))
        if unknown:
            raise ValueError(f"In the dict argument `{what}`, keys {unknown} do not correspond to any model output. "
                             f"Received: {what}={value}; the model's outputs are {names}.")
        return [convert(value[name]) if name in value else default for name in names]
    if isinstance(value, list | tuple):
        if len(value) != len(names):
            raise ValueError(f"`{what}` must have one entry per model output ({len(names)}: {names}). Received: "
                             f"{what}={value}")
        return [convert(v) if v is not None else default for v in value]
    return [convert(value)] * len(names) if value is not None else [default] * len(names)


class OutputLosses:
    """The per-output losses, weights and loss trackers of one compiled multi-output model."""

    def __init__(self, loss, loss_weights, names):
        self.names = list(names)
        self.losses = _per_output(loss, self.names, "loss", None, losses_module.get)
        if all(fn is None for fn in self.losses):
            raise ValueError(f"No loss for any of the outputs {self.names}: received loss={loss!r}")
        self.weights = _per_output(loss_weights, self.names, "loss_weights", 1.0, float)
        self.trackers = [metrics_module.Mean(name=f"{name}_loss") if fn is not None else None
                         for name, fn in zip(self.names, self.losses, strict=True)]
        self._last: dict = {}  # greenlet -> this call's per-output losses (replicas run as greenlets)

    def targets(self, y) -> list:
        if isinstance(y, dict):
            missing = [n for n, fn in zip(self.names, self.losses, strict=True) if fn is not None and n not in y]
            if missing:
                raise ValueError(f"The targets dict has no entry for the outputs {missing} (keys: {sorted(y)}).")
            return [y.get(name) for name in self.names]
        if isinstance(y, list | tuple) and len(y) == len(self.names):
            return list(y)
        raise ValueError(f"The model has {len(self.names)} outputs {self.names}: the targets must be a list of "
                         f"{len(self.names)} arrays or a dict keyed by output name; received {type(y).__name__}.")

    def __call__(self, y, y_pred, sample_weight):
        targets, total, per_output = self.targets(y), None, []
        for fn, weight, target, pred in zip(self.losses, self.weights, targets, y_pred, strict=True):
            if fn is None:
                per_output.append(None)
                continue
            mask = masking.get_keras_mask(pred)
            value = fn(target, pred, masking.apply_mask(sample_weight, mask) if mask is not None else sample_weight)
            per_output.append(value)
            term = value * weight if weight != 1.0 else value
            total = term if total is None else total + term
        self._last[greenlet.getcurrent()] = per_output
        return total

    def update_trackers(self, rows: float) -> None:
        for tracker, value in zip(self.trackers, self._last.pop(greenlet.getcurrent(), []), strict=False):
            if tracker is not None and value is not None:
                tracker.update_state(losses_module.unscale_loss_for_distribution(value), sample_weight=rows)

    @property
    def metrics(self) -> list:
        return [t for t in self.trackers if t is not None]


def output_metrics(specs, names, y_shapes, pred_shapes) -> list:
    """(output index, metric) pairs, each metric named ``<output>_<name>`` as Keras 3 logs them."""
    if specs is None or specs == []:
        return []
    if not isinstance(specs, dict) and not (isinstance(specs, list | tuple) and len(specs) == len(names) and
                                            all(isinstance(s, list | tuple | type(None)) for s in specs)):
        raise ValueError(f"For a model with outputs {names}, `metrics` must be a dict keyed by output name or a "
                         f"list with one list of metrics per output. Received: metrics={specs}")
    per_output = _per_output(specs, names, "metrics", [], lambda s: list(s) if isinstance(s, list | tuple) else [s])
    out = []
    for index, (name, items) in enumerate(zip(names, per_output, strict=True)):
        for item in items:
            metric = metrics_module.get(item, y_shapes[index], pred_shapes[index])
            metric.name = f"{name}_{metric.name}"
            out.append((index, metric))
    return out


__all__ = ["OutputLosses", "output_metrics"]
