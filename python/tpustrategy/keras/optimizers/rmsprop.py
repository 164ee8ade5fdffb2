"""``tf.keras.optimizers.RMSprop`` (Keras 3): v <- rho v + (1 - rho) g^2 (centered: minus the squared mean
gradient), increment = lr g / sqrt(v + eps); with momentum m <- momentum m + increment, w -= m; else w -= increment."""

from __future__ import annotations

from tpustrategy import _core
from tpustrategy.keras.optimizers.optimizer import Optimizer, as_dtype


class RMSprop(Optimizer):
    """RMSprop (optionally centered, with momentum)."""

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False, name="rmsprop",
                 **kwargs):
        super().__init__(learning_rate, name, **kwargs)
        self.rho, self.momentum, self.epsilon, self.centered = rho, momentum, epsilon, bool(centered)

    def build_slots(self, variable) -> dict:
        slots = {"velocity": self._zeros_like_variable(variable, "velocity")}
        if self.momentum > 0:
            slots["momentum"] = self._zeros_like_variable(variable, "momentum")
        if self.centered:
            slots["average_gradient"] = self._zeros_like_variable(variable, "average_gradient")
        return slots

    def _keras_slot_groups(self) -> list:  # Keras 3 builds each kind with its own call: not interleaved
        built = next(iter(self._slots.values()), {})
        return [[name] for name in ("velocity", "momentum", "average_gradient") if name in built]

    def update_step(self, gradient, variable, learning_rate) -> None:
        dtype = variable.dtype
        rho, eps = as_dtype(self.rho, dtype), as_dtype(self.epsilon, dtype)
        velocity = self._slot(variable, "velocity")
        velocity.assign(rho * velocity.value() + (1 - rho) * _core.ops.square(gradient))
        if self.centered:
            average = self._slot(variable, "average_gradient")
            average.assign(rho * average.value() + (1 - rho) * gradient)
            denominator = velocity.value() - _core.ops.square(average.value()) + eps
        else:
            denominator = velocity.value() + eps
        increment = learning_rate * gradient / _core.ops.sqrt(denominator)
        if self.momentum > 0:
            momentum = self._slot(variable, "momentum")
            momentum.assign(as_dtype(self.momentum, dtype) * momentum.value() + increment)
            variable.assign_sub(momentum.value())
        else:
            variable.assign_sub(increment)
