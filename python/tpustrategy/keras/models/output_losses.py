"""Losses and metrics of a model with several outputs (Keras 3's CompileLoss / CompileMetrics, the parts built).

``compile(loss=...)`` takes one loss (applied to every output), a list (one per output, in the order of the
model's outputs; None for an output without a loss) or a dict keyed by output name (outputs not named get no
loss). ``loss_weights`` is a list or a dict of the same kind (missing names weigh 1). The total loss is
sum_i w_i * loss_i(y_i, y_pred_i, sample_weight); each output's unweighted loss is also logged as
``<output name>_loss``. Metrics for several outputs are a list of lists or a dict, logged as
``<output name>_<metric name>``. Targets are a list/tuple in output order or a dict keyed by output name.
Output names are the names of the layers producing a functional model's outputs.

A subclassed model has no output names: the losses are matched to the structure of what ``call`` returns
(Keras 3's CompileLoss), resolved at the first batch by ``for_subclassed``. For a list of outputs each
per-output loss logs as ``<loss name>_loss`` (the string given, or the Loss's ``name``) and metrics keep their
own names; for a dict the keys name the outputs (losses in the loss dict's order, metrics prefixed by key).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

import greenlet

from tpustrategy.keras import losses as losses_module
from tpustrategy.keras import masking
from tpustrategy.keras import metrics as metrics_module

if TYPE_CHECKING:
    from tpustrategy.keras.metric import Metric

_T = TypeVar("_T")


def _per_output(value: Any, names: Sequence[str], what: str, default: _T, convert: Callable[[Any], _T]) -> list[_T]:
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

    def __init__(self, loss: Any, loss_weights: Any, names: Sequence[str], tracker_names: Sequence[str] | None = None,
                 order: Sequence[int] | None = None, metric_prefixes: Sequence[str | None] | None = None) -> None:
        self.names = list(names)
        self.losses: list[Callable[..., Any] | None] = _per_output(loss, self.names, "loss", None, losses_module.get)
        if all(fn is None for fn in self.losses):
            raise ValueError(f"No loss for any of the outputs {self.names}: received loss={loss!r}")
        self.weights = _per_output(loss_weights, self.names, "loss_weights", 1.0, float)
        tracker_names = tracker_names or self.names
        several = sum(fn is not None for fn in self.losses) > 1  # Keras 3 logs per-output losses only then
        self.trackers = [metrics_module.Mean(name=f"{name}_loss") if fn is not None and several else None
                         for name, fn in zip(tracker_names, self.losses, strict=True)]
        self.order = list(order) if order is not None else list(range(len(self.names)))  # the trackers' log order
        self.metric_prefixes: Sequence[str | None] = (
            list(metric_prefixes) if metric_prefixes is not None else self.names)
        self._last: dict[Any, list[Any]] = {}  # greenlet -> this call's per-output losses (replicas run as greenlets)

    @classmethod
    def for_subclassed(cls, loss: Any, loss_weights: Any, y_pred: Any) -> OutputLosses:
        """The losses of a subclassed model whose ``call`` returned the list / tuple / dict `y_pred`."""
        if isinstance(y_pred, dict):
            names = sorted(y_pred)  # the flat order of a dict (nest sorts its keys)
            if isinstance(loss, list | tuple):
                raise ValueError(f"The model returns a dict with keys {names}: `loss` must be one loss or a dict keyed "
                                 f"by those keys. Received: loss={loss!r}")
            keys = list(loss) if isinstance(loss, dict) else list(y_pred)
            order = [names.index(k) for k in keys if k in names]
            return cls(loss, loss_weights, names, order=order)
        count = len(y_pred)
        placeholders = [str(i) for i in range(count)]
        if isinstance(loss, dict):
            raise ValueError(f"The model returns a list of {count} outputs without names: `loss` must be one loss or a "
                             f"list of {count}. Received: loss={loss!r}")
        per_output = _per_output(loss, placeholders, "loss", None, lambda v: v)
        tracker_names = [_loss_name(v) if v is not None else n for v, n in zip(per_output, placeholders, strict=True)]
        return cls(loss, loss_weights, placeholders, tracker_names=tracker_names, metric_prefixes=[None] * count)

    def targets(self, y: Any) -> list[Any]:
        if isinstance(y, dict):
            missing = [n for n, fn in zip(self.names, self.losses, strict=True) if fn is not None and n not in y]
            if missing:
                raise ValueError(f"The targets dict has no entry for the outputs {missing} (keys: {sorted(y)}).")
            return [y.get(name) for name in self.names]
        if isinstance(y, list | tuple) and len(y) == len(self.names):
            return list(y)
        raise ValueError(f"The model has {len(self.names)} outputs {self.names}: the targets must be a list of "
                         f"{len(self.names)} arrays or a dict keyed by output name; received {type(y).__name__}.")

    def __call__(self, y: Any, y_pred: Sequence[Any], sample_weight: Any) -> Any:
        per_output: list[Any]  # each output's loss, None where it has none
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
    def metrics(self) -> list[Metric]:
        return cast("list[Metric]", [self.trackers[i] for i in self.order if self.trackers[i] is not None])


def _loss_name(identifier: Any) -> str:
    """Keras 3's name of a loss: the string given, a Loss's ``name``, else the function's name."""
    if isinstance(identifier, str):
        return identifier
    name = getattr(identifier, "name", None)
    return name if isinstance(name, str) else getattr(identifier, "__name__", type(identifier).__name__)


def output_metrics(specs: Any, names: Sequence[str], y_shapes: Sequence[tuple[int | None, ...]],
                   pred_shapes: Sequence[tuple[int | None, ...]],
                   prefixes: Sequence[str | None] | None = None) -> list[tuple[int, Metric]]:
    """(output index, metric) pairs, each metric named ``<output>_<name>`` as Keras 3 logs them (no prefix
    where `prefixes` has None: a subclassed model's list outputs)."""
    if specs is None or specs == []:
        return []
    if not isinstance(specs, dict) and not (isinstance(specs, list | tuple) and len(specs) == len(names) and
                                            all(isinstance(s, list | tuple | type(None)) for s in specs)):
        raise ValueError(f"For a model with outputs {names}, `metrics` must be a dict keyed by output name or a "
                         f"list with one list of metrics per output. Received: metrics={specs}")
    per_output: list[list[Any]] = _per_output(specs, names, "metrics", [],
                                              lambda s: list(s) if isinstance(s, list | tuple) else [s])
    out: list[tuple[int, Metric]] = []
    prefixes = names if prefixes is None else prefixes
    for index, (prefix, items) in enumerate(zip(prefixes, per_output, strict=True)):
        for item in items:
            metric = metrics_module.get(item, y_shapes[index], pred_shapes[index])
            if prefix is not None:
                metric.name = f"{prefix}_{metric.name}"
            out.append((index, metric))
    return out


__all__ = ["OutputLosses", "output_metrics"]
