"""``keras.layers.Softmax``: softmax over ``axis``; masked positions (mask False) get probability 0."""

from __future__ import annotations

from typing import Any

from tpustrategy import _core
from tpustrategy.keras._tensors import tensor
from tpustrategy.keras.layers.layer import Layer


class Softmax(Layer):
    """Softmax over `axis` (an int or a tuple of axes); where the mask is False the probability is
    (practically) 0.

    Args:
      axis: the axis or axes the probabilities sum to 1 over.
    """

    supports_masking = True

    def __init__(self, axis: int | tuple[int, ...] = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs: Any, mask: Any = None) -> Any:
        if mask is not None:
            # Keras 3: a large negative number added where the mask is False.
            mask = _core.ops.cast(tensor(mask), inputs.dtype)
            large_negative = -3e4 if inputs.dtype == _core.tensor.float16 else -1e9  # float16 tops out at 65504
            inputs = inputs + (_core.ops.ones([], inputs.dtype) - mask) * _core.tensor.constant(large_negative,
                                                                                            inputs.dtype)
        axes = self.axis if isinstance(self.axis, tuple | list) else (self.axis,)
        if len(axes) == 1:
            return _core.ops.softmax(inputs, axes[0])
        shifted = inputs - _core.ops.stop_gradient(_core.ops.reduce_max(inputs, list(axes), keepdims=True))
        exp = _core.ops.exp(shifted)
        return exp / _core.ops.reduce_sum(exp, list(axes), keepdims=True)
