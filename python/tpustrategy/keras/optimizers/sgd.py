"""``tf.keras.optimizers.SGD`` (Keras 3): with momentum m <- momentum * m - lr * g, then
w <- w + m (or, with nesterov, w <- w + momentum * m - lr * g using the new m); without: w <- w - lr * g."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tpustrategy.keras.optimizers import sparse_math as sm
from tpustrategy.keras.optimizers.optimizer import Optimizer, as_dtype
from tpustrategy.variables import Variable


class SGD(Optimizer):
    """Gradient descent with optional (Nesterov) momentum.

    Raises:
      ValueError: ``momentum`` outside [0, 1].
    """

    def __init__(self, learning_rate: float | Callable[[Any], Any] = 0.01, momentum: float = 0.0,
                 nesterov: bool = False, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(learning_rate, name, **kwargs)
        if not isinstance(momentum, float | int) or momentum < 0 or momentum > 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        self.momentum = float(momentum)
        self.nesterov = bool(nesterov)

    _KERAS_SLOT_ATTRIBUTES = {**Optimizer._KERAS_SLOT_ATTRIBUTES, "momentum": "momentums"}  # Keras 3's name

    def build_slots(self, variable: Any) -> dict[str, Variable]:
        return {"momentum": self._zeros_like_variable(variable, "momentum")} if self.momentum != 0 else {}

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        if self.momentum == 0:
            # A dense gradient on a plain variable (not a subclass with its own assign_sub) takes TF's fused kernel.
            if sm.is_sparse(gradient) or type(variable).assign_sub is not Variable.assign_sub or \
                    not variable._assign_gradient_descent(gradient, learning_rate):
                sm.assign_sub(variable, sm.multiply(gradient, learning_rate))
            return
        m = self._slot(variable, "momentum")
        momentum = as_dtype(self.momentum, variable.dtype)
        sm.assign(m, sm.subtract(sm.multiply(m.value(), momentum), sm.multiply(gradient, learning_rate)))
        if self.nesterov:
            sm.assign_add(variable, sm.subtract(sm.multiply(m.value(), momentum), sm.multiply(gradient, learning_rate)))
        else:
            sm.assign_add(variable, m.value())
