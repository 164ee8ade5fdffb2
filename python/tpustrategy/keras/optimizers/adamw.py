"""``tf.keras.optimizers.AdamW`` (Keras 3): decoupled weight decay w -= w * weight_decay * lr, then the Adam step."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tpustrategy.keras.optimizers.adam import Adam
from tpustrategy.keras.optimizers.optimizer import as_dtype


class AdamW(Adam):
    """Adam with decoupled weight decay (default 0.004, as Keras)."""

    def __init__(self, learning_rate: float | Callable[[Any], Any] = 0.001, weight_decay: float | None = 0.004,
                 beta_1: float = 0.9, beta_2: float = 0.999, epsilon: float = 1e-7, amsgrad: bool = False,
                 name: str | None = None, **kwargs: Any) -> None:
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon, amsgrad=amsgrad,
                         name=name, **kwargs)
        if weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: weight_decay=None")
        self.weight_decay = weight_decay

    def update_step(self, gradient: Any, variable: Any, learning_rate: Any) -> None:
        # Keras decays every variable densely before the step, also under IndexedSlices gradients.
        variable.assign_sub(variable.value() * as_dtype(self.weight_decay, variable.dtype) * learning_rate)
        super().update_step(gradient, variable, learning_rate)
