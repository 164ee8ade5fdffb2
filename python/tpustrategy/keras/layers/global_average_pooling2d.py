"""``keras.layers.GlobalAveragePooling2D``: the mean over the spatial axes (``keepdims`` keeps them as 1)."""

from __future__ import annotations

from typing import Any

from tpustrategy import _core
from tpustrategy.keras.layers.conv_utils import normalize_data_format
from tpustrategy.keras.layers.layer import Layer


class GlobalAveragePooling2D(Layer):
    """Averages a 4-D input over its two spatial axes.

    Args:
      data_format: "channels_last" (default; [batch, height, width, channels]) or "channels_first".
      keepdims: keep the spatial axes, with size 1.

    Raises:
      ValueError: `data_format` is neither of the two.
    """

    def __init__(self, data_format: str | None = None, keepdims: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format)
        self.keepdims = bool(keepdims)

    def call(self, inputs: Any) -> Any:
        axes = [1, 2] if self.data_format == "channels_last" else [2, 3]
        return _core.ops.reduce_mean(inputs, axes, keepdims=self.keepdims)
