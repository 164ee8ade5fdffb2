"""``keras.layers.ReLU``: max(x, 0) with optional ``max_value``, ``negative_slope`` and ``threshold``."""

from __future__ import annotations

from typing import Any

from tpustrategy.keras import activations
from tpustrategy.keras.layers.layer import Layer


class ReLU(Layer):
    """The rectified linear activation as a layer: x above `threshold`, else negative_slope * (x - threshold),
    capped at `max_value`; the input's mask passes through.

    Args:
      max_value: the largest output (None: no cap).
      negative_slope: the slope at and below `threshold`.
      threshold: where the slope changes.

    Raises:
      ValueError: any of the three is negative (or the last two None).
    """

    supports_masking = True

    def __init__(self, max_value: float | None = None, negative_slope: float = 0.0, threshold: float = 0.0,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError(f"max_value of a ReLU layer cannot be a negative value. Received: {max_value}")
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(f"negative_slope of a ReLU layer cannot be a negative value. Received: {negative_slope}")
        if threshold is None or threshold < 0.0:
            raise ValueError(f"threshold of a ReLU layer cannot be a negative value. Received: {threshold}")
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, threshold

    def call(self, inputs: Any) -> Any:
        return activations.relu(inputs, negative_slope=self.negative_slope, max_value=self.max_value,
                                threshold=self.threshold)
