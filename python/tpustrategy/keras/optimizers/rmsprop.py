"""``tf.keras.optimizers.RMSprop`` (Keras 3): v <- rho v + (1 - rho) g^2 (centered: minus the squared mean
gradient), increment = lr g / sqrt(v + eps); with momentum m <- momentum m + increment, w -= m; else w -= increment."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tpustrategy.keras.optimizers import sparse_math as sm
from tpustrategy.keras.optimizers.optimizer import Optimizer
from tpustrategy.variables import Variable


class RMSprop(Optimizer):
    """RMSprop (optionally centered, with momentum)."""

    def __init__(self, learning_rate: float | Callable[[Any], Any] = 0.001, rho: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-7, centered: bool = False, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(learning_rate, name, **kwargs)
        self.rho, self.momentum, self.epsilon, self.centered = rho, momentum, epsilon, bool(centered)

    def build_slots(self, variable: Any) -> dict[str, Variable]:
        slots = {"velocity": self._zeros_like_variable(variable, "velocity")}
        if self.momentum > 0:
            slots["momentum"] = self._zeros_like_variable(variable, "momentum")
        if self.centered:
            slots["average_gradient"] = self._zeros_like_variable(variable, "average_gradient")
        return slots

    def _keras_slot_groups(self) -> list[list[str]]:  # Keras 3 builds each kind with its own call: not interleaved
        built = next(iter(self._slots.values()), {})
        return [[name] for name in ("velocity", "momentum", "average_gradient") if name in built]

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        rho = self.rho  # Keras' Python constants (1 - rho taken in Python), made tensors per operation
        velocity = self._slot(variable, "velocity")
        sm.assign(velocity, sm.add(sm.multiply(rho, velocity.value()), sm.multiply(1 - rho, sm.square(gradient))))
        if self.centered:
            average = self._slot(variable, "average_gradient")
            sm.assign(average, sm.add(sm.multiply(rho, average.value()), sm.multiply(1 - rho, gradient)))
            denominator = sm.add(sm.subtract(velocity.value(), sm.square(average.value())), self.epsilon)
        else:
            denominator = sm.add(velocity.value(), self.epsilon)
        increment = sm.divide(sm.multiply(learning_rate, gradient), sm.sqrt(denominator))
        if self.momentum > 0:
            momentum = self._slot(variable, "momentum")
            sm.assign(momentum, sm.add(sm.multiply(self.momentum, momentum.value()), increment))
            sm.assign_sub(variable, momentum.value())
        else:
            sm.assign_sub(variable, increment)
