"""``keras.layers.Activation``: applies an activation function (a name or a callable)."""

from __future__ import annotations

from typing import Any

from tpustrategy.keras import activations
from tpustrategy.keras.layers.layer import Layer


class Activation(Layer):
    """Applies an activation function to its input; the input's mask passes through.

    Args:
      activation: a callable, or the name of a ``keras.activations`` function ("relu", "softmax"...).

    Raises:
      ValueError: `activation` names no activation function.
    """

    supports_masking = True

    def __init__(self, activation: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs: Any) -> Any:
        return self.activation(inputs)
