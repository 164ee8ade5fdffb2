"""``keras.layers.Masking``: timesteps whose features all equal ``mask_value`` are zeroed and masked out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tpustrategy import _core
from tpustrategy.keras.layers.layer import Layer

if TYPE_CHECKING:
    from tpustrategy.ops._args import Tensor


class Masking(Layer):
    """Masks out timesteps whose features all equal `mask_value`: their values become 0 and the output mask
    (over every axis but the last) is False there.

    Args:
      mask_value: the value that marks padding.
    """

    supports_masking = True

    def __init__(self, mask_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mask_value = mask_value

    def _kept(self, inputs: Tensor, keepdims: bool) -> Tensor:
        value = _core.tensor.constant(self.mask_value, inputs.dtype)
        return _core.ops.reduce_any(_core.ops.not_equal(inputs, value), axis=[-1], keepdims=keepdims)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return self._kept(inputs, keepdims=False)

    def call(self, inputs: Any) -> Any:
        return inputs * _core.ops.cast(self._kept(inputs, keepdims=True), inputs.dtype)
