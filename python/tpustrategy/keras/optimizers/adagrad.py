"""``tf.keras.optimizers.Adagrad`` (Keras 3): a <- a + g^2 (a starts at initial_accumulator_value),
w -= lr g / sqrt(a + eps)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tpustrategy.keras.optimizers import sparse_math as sm
from tpustrategy.keras.optimizers.optimizer import Optimizer, as_dtype
from tpustrategy.variables import Variable


class Adagrad(Optimizer):
    """Adagrad."""

    def __init__(self, learning_rate: float | Callable[[Any], Any] = 0.001, initial_accumulator_value: float = 0.1,
                 epsilon: float = 1e-7, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(learning_rate, name, **kwargs)
        self.initial_accumulator_value, self.epsilon = initial_accumulator_value, epsilon

    def build_slots(self, variable: Any) -> dict[str, Variable]:
        accumulator = self._zeros_like_variable(variable, "accumulator")
        accumulator.assign(accumulator.value() + as_dtype(self.initial_accumulator_value, variable.dtype))
        return {"accumulator": accumulator}

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        accumulator = self._slot(variable, "accumulator")
        sm.assign_add(accumulator, sm.square(gradient))
        sm.assign_sub(variable, sm.divide(sm.multiply(learning_rate, gradient),
                                          sm.sqrt(sm.add(accumulator.value(), self.epsilon))))
