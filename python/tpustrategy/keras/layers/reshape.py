"""``keras.layers.Reshape``: the non-batch axes reshaped to ``target_shape`` (one entry may be -1)."""

from __future__ import annotations

import math
from typing import Any

from tpustrategy import _core
from tpustrategy.keras._tensors import shape_of
from tpustrategy.keras.layers.layer import Layer


class Reshape(Layer):
    """Reshapes each example to `target_shape`, keeping the batch axis.

    Args:
      target_shape: the new shape without the batch axis; one entry may be -1, inferred from the size.

    Raises:
      ValueError: more than one -1 (at construction), or a size the input's does not match (at call).
    """

    def __init__(self, target_shape: tuple[int, ...] | list[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)
        if sum(1 for d in self.target_shape if d == -1) > 1:
            raise ValueError(f"There can only be one unknown dimension (-1) in `target_shape`. Received: "
                             f"target_shape={self.target_shape}")

    def call(self, inputs: Any) -> Any:
        shape = shape_of(inputs)
        size = math.prod(shape[1:])
        known = math.prod(d for d in self.target_shape if d != -1)
        if (-1 not in self.target_shape and known != size) or (-1 in self.target_shape and
                                                                (known == 0 or size % known)):
            raise ValueError(f"The total size of the target shape {self.target_shape} must be unchanged from the input "
                             f"shape {(None,) + tuple(shape[1:])}")
        return _core.ops.reshape(inputs, [shape[0]] + list(self.target_shape))
