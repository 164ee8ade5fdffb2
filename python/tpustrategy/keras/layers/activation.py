"""``keras.layers.Activation``: applies an activation function (a name or a callable)."""

from __future__ import annotations

from tpustrategy.keras import activations
from tpustrategy.keras.layers.layer import Layer


class Activation(Layer):
    supports_masking = True

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)
