"""Keras 3's ``compile_metrics``: the one entry of ``model.metrics`` that stands for every compiled metric.

``model.metrics`` is the loss tracker, this object (when ``compile`` got ``metrics`` or ``weighted_metrics``),
then, once the metrics are built at the first batch, the per-output loss trackers; so ``metrics_names`` reads
``['loss', 'compile_metrics', ...]``. Its ``metrics`` list the compiled metric objects once built (empty before,
as Keras').
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tpustrategy.keras.metric import Metric
    from tpustrategy.keras.models.trainer import Trainer


class CompileMetrics:
    """The compiled metrics of `model`, as one metric named ``compile_metrics``."""

    name = "compile_metrics"

    def __init__(self, model: Trainer) -> None:
        self._model = model

    @property
    def metrics(self) -> list[Metric]:
        model = self._model
        if model._compile_metrics is None:
            return []
        return list(model._compile_metrics) + list(model._weighted_metrics or [])

    @property
    def variables(self) -> list[Any]:
        return [v for m in self.metrics for v in m.variables]

    def reset_state(self) -> None:
        for metric in self.metrics:
            metric.reset_state()

    def result(self) -> dict[str, Any]:
        """{log name: result} of the compiled metrics (Keras' CompileMetrics.result)."""
        from tpustrategy.keras.models import metric_logs

        own = {id(m) for m in self.metrics}
        return {name: m.result() for name, m in metric_logs.log_entries(self._model) if id(m) in own}

    def __repr__(self) -> str:
        return f"<CompileMetrics name={self.name} metrics={[m.name for m in self.metrics]}>"


__all__ = ["CompileMetrics"]
