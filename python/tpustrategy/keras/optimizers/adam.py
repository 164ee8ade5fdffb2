"""``tf.keras.optimizers.Adam`` (Keras 3): m += (g - m)(1 - b1); v += (g^2 - v)(1 - b2);
w -= m * alpha / (sqrt(v) + eps) with alpha = lr * sqrt(1 - b2^t) / (1 - b1^t), t = iterations + 1."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tpustrategy import _core
from tpustrategy.keras.optimizers import sparse_math as sm
from tpustrategy.keras.optimizers.optimizer import Optimizer, as_dtype
from tpustrategy.variables import Variable


class Adam(Optimizer):
    """Adam (optionally AMSGrad)."""

    def __init__(self, learning_rate: float | Callable[[Any], Any] = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, amsgrad: bool = False, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(learning_rate, name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon, self.amsgrad = beta_1, beta_2, epsilon, bool(amsgrad)

    def build_slots(self, variable: Any) -> dict[str, Variable]:
        slots = {"momentum": self._zeros_like_variable(variable, "momentum"),
                 "velocity": self._zeros_like_variable(variable, "velocity")}
        if self.amsgrad:
            slots["velocity_hat"] = self._zeros_like_variable(variable, "velocity_hat")
        return slots

    def _keras_slot_groups(self) -> list[list[str]]:  # Keras 3: momentum and velocity together, then velocity_hat
        return [["momentum", "velocity"]] + ([["velocity_hat"]] if self.amsgrad and self._slots else [])

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        ops, dtype = _core.ops, variable.dtype
        step = ops.cast(self.iterations.value() + 1, dtype)
        beta_1_power = ops.pow(as_dtype(self.beta_1, dtype), step)
        beta_2_power = ops.pow(as_dtype(self.beta_2, dtype), step)
        alpha = learning_rate * ops.sqrt(1 - beta_2_power) / (1 - beta_1_power)
        m, v = self._slot(variable, "momentum"), self._slot(variable, "velocity")
        # Keras' order of operations; 1 - beta is taken in Python, then made a tensor.
        sm.assign_add(m, sm.multiply(sm.subtract(gradient, m.value()), 1 - self.beta_1))
        sm.assign_add(v, sm.multiply(sm.subtract(sm.square(gradient), v.value()), 1 - self.beta_2))
        v_used = v.value()
        if self.amsgrad:
            v_hat = self._slot(variable, "velocity_hat")
            sm.assign(v_hat, sm.maximum(v_hat.value(), v.value()))
            v_used = v_hat.value()
        sm.assign_sub(variable, sm.divide(sm.multiply(m.value(), alpha), sm.add(sm.sqrt(v_used), self.epsilon)))
