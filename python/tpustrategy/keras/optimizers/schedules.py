"""``tf.keras.optimizers.schedules``: learning rates as functions of the step (Keras 3 formulas).

A schedule is called with the optimizer's ``iterations`` (steps applied so far) and returns a float32 scalar.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tpustrategy import _core


def _step(step: Any) -> float:
    if hasattr(step, "numpy"):
        step = step.numpy()
    return float(step)


class LearningRateSchedule:
    """Base class: ``__call__(step)`` gives the learning rate."""

    def __call__(self, step: Any) -> _core.tensor.Tensor:
        """The learning rate at `step`, a float32 scalar tensor.

        Computed host-side in Python floats from the step's value (not traced).

        Args:
            step: The number of steps applied so far (an int, tensor or variable such as ``iterations``).
        """
        rate: _core.tensor.Tensor = _core.tensor.constant(self._value(_step(step)), _core.tensor.float32)
        return rate

    def _value(self, step: float) -> float:
        raise NotImplementedError

    def get_config(self) -> dict[str, Any]:
        """The constructor's arguments, read back from the attributes of the same name (Keras 3's config)."""
        import inspect

        return {name: getattr(self, name) for name in list(inspect.signature(type(self).__init__).parameters)[1:]
                if hasattr(self, name)}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> LearningRateSchedule:
        """Builds the schedule from a ``get_config`` dict."""
        return cls(**config)


class ExponentialDecay(LearningRateSchedule):
    """initial_learning_rate * decay_rate ** (step / decay_steps) (the exponent floored with staircase)."""

    def __init__(self, initial_learning_rate: float, decay_steps: int, decay_rate: float, staircase: bool = False,
                 name: str = "ExponentialDecay") -> None:
        if decay_steps <= 0:
            raise ValueError(f"Argument `decay_steps` must be > 0. Received: decay_steps={decay_steps}")
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.decay_rate, self.staircase, self.name = decay_rate, staircase, name

    def _value(self, step: float) -> float:
        p = step / self.decay_steps
        return self.initial_learning_rate * self.decay_rate ** (math.floor(p) if self.staircase else p)


class PiecewiseConstantDecay(LearningRateSchedule):
    """values[0] up to boundaries[0], values[i] on (boundaries[i-1], boundaries[i]], values[-1] after."""

    def __init__(self, boundaries: Sequence[float], values: Sequence[float], name: str = "PiecewiseConstant") -> None:
        if len(boundaries) != len(values) - 1:
            raise ValueError("The length of boundaries should be 1 less than the length of values. Received: "
                             f"boundaries={boundaries} of length {len(boundaries)}, and values={values} of length "
                             f"{len(values)}.")
        self.boundaries, self.values, self.name = list(boundaries), list(values), name

    def _value(self, step: float) -> float:
        for boundary, value in zip(self.boundaries, self.values, strict=False):
            if step <= boundary:
                return value
        return self.values[-1]


class CosineDecay(LearningRateSchedule):
    """Cosine decay from the initial rate (or, after a linear warmup, from warmup_target) down to alpha times it."""

    def __init__(self, initial_learning_rate: float, decay_steps: int, alpha: float = 0.0, name: str = "CosineDecay",
                 warmup_target: float | None = None, warmup_steps: int = 0) -> None:
        if decay_steps <= 0:
            raise ValueError(f"Argument `decay_steps` must be > 0. Received: decay_steps={decay_steps}")
        self.initial_learning_rate, self.decay_steps, self.alpha = initial_learning_rate, decay_steps, alpha
        self.warmup_target, self.warmup_steps, self.name = warmup_target, warmup_steps, name

    def _decay(self, step: float, start: float) -> float:
        cosine = 0.5 * (1.0 + math.cos(math.pi * step / self.decay_steps))
        return ((1 - self.alpha) * cosine + self.alpha) * start

    def _value(self, step: float) -> float:
        if self.warmup_target is None:
            return self._decay(min(step, self.decay_steps), self.initial_learning_rate)
        step = min(step, self.decay_steps + self.warmup_steps)
        if step < self.warmup_steps:
            fraction = step / self.warmup_steps
            return (self.warmup_target - self.initial_learning_rate) * fraction + self.initial_learning_rate
        return self._decay(step - self.warmup_steps, self.warmup_target)


__all__ = ["CosineDecay", "ExponentialDecay", "LearningRateSchedule", "PiecewiseConstantDecay"]
