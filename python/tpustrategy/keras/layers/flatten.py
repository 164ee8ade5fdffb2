"""``keras.layers.Flatten``: every axis after the batch axis collapsed into one."""

from __future__ import annotations

import math
from typing import Any

from tpustrategy import _core
from tpustrategy.keras._tensors import shape_of
from tpustrategy.keras.layers.layer import Layer


class Flatten(Layer):
    """Reshapes each example into one axis, keeping the batch axis.

    Args:
      data_format: "channels_first" moves the channels axis last before flattening, so the order of the
        values matches a channels_last input's; default "channels_last".
    """

    def __init__(self, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = data_format or "channels_last"

    def call(self, inputs: Any) -> Any:
        shape = shape_of(inputs)
        if self.data_format == "channels_first" and len(shape) > 2:
            inputs = _core.ops.transpose(inputs, [0] + list(range(2, len(shape))) + [1])
        return _core.ops.reshape(inputs, [shape[0], math.prod(shape[1:])] if shape else [1])
