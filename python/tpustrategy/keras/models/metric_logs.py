"""The names a compiled model's metrics log under, and the order of ``evaluate``'s result list (Keras 3).

Logs hold the loss, then the compiled metrics (Keras' CompileMetrics.result naming: ``<output>_<name>`` where
outputs have names; a repeated name gets ``_1``, ``_2``...; a weighted metric that repeats a name becomes
``weighted_<name>``), then the per-output losses. A result list is Keras' ``_flatten_metrics_in_order``: the
loss, the compiled metrics under their own unprefixed names, the per-output losses, then every other log
sorted by name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tpustrategy.keras.metric import Metric
    from tpustrategy.keras.models.trainer import Trainer


def _entries(model: Trainer) -> list[tuple[str | None, str, Metric, bool]]:
    """(prefix or None, unprefixed name, metric, weighted) for each compiled metric, in Keras' order."""
    if model._output_losses is None:
        return [(None, m.name, m, weighted) for weighted, group in ((False, model._compile_metrics),
                                                                    (True, model._weighted_metrics))
                for m in group or []]
    prefixes = model._output_losses.metric_prefixes
    out: list[tuple[str | None, str, Metric, bool]] = []
    for weighted, group in ((False, model._metric_outputs), (True, model._weighted_metric_outputs)):
        for index, metric in group:
            prefix = prefixes[index]
            raw = metric.name[len(prefix) + 1:] if prefix is not None else metric.name
            out.append((prefix, raw, metric, weighted))
    return out


def _prefixed(prefix: str | None, name: str) -> str:
    return f"{prefix}_{name}" if prefix is not None else name


def log_entries(model: Trainer) -> list[tuple[str, Metric]]:
    """(log name, metric) pairs: the loss tracker, the compiled metrics, the per-output loss trackers."""
    out: list[tuple[str, Metric]] = (
        [(model._loss_tracker.name, model._loss_tracker)] if model._loss_tracker is not None else [])
    counters: dict[str, int] = {}
    for prefix, raw, metric, weighted in _entries(model):
        name = _prefixed(prefix, raw)
        if name in counters and weighted:
            name = _prefixed(prefix, f"weighted_{raw}")
        if name in counters:
            counters[name] += 1
            name = f"{name}_{counters[name] - 1}"
        else:
            counters[name] = 1
        out.append((name, metric))
    if model._output_losses is not None:
        out += [(m.name, m) for m in model._output_losses.metrics]
    return out


def flatten_logs_in_order(model: Trainer, logs: dict[str, Any]) -> list[Any]:
    assert model._loss_tracker is not None  # evaluate / *_on_batch run on a compiled model
    names = [model._loss_tracker.name]
    names += [raw for prefix, raw, _, _ in _entries(model) if prefix is None]
    if model._output_losses is not None:
        names += [m.name for m in model._output_losses.metrics]
    values = [logs[name] for name in names if name in logs]
    return values + [logs[key] for key in sorted(logs) if key not in names]


__all__ = ["flatten_logs_in_order", "log_entries"]
