"""``keras.layers.Concatenate``: inputs joined along ``axis`` (shapes equal on every other axis)."""

from __future__ import annotations

from typing import Any

from tpustrategy import _core
from tpustrategy.keras.layers.add import check_merge_inputs
from tpustrategy.keras.layers.layer import Layer


class Concatenate(Layer):
    """Joins a list of inputs along `axis`; their shapes must agree on every other axis.

    Args:
      axis: the axis to join along (negative counts from the end).

    Raises:
      ValueError: the layer is built on something other than a non-empty list of shapes, or on shapes of
        different ranks or differing off `axis`; or it is called with something other than a list.
    """

    supports_masking = True

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """Keras 3: each input's mask (all True where it has none) broadcast to the input, joined along
        ``axis``, then any() over the last axis."""
        if not isinstance(mask, list | tuple) or all(m is None for m in mask):
            return None
        ops, full = _core.ops, []
        for x, m in zip(inputs, mask, strict=True):
            shape = list(x._shape_tuple)
            if m is None:
                full.append(ops.cast(ops.ones(shape, _core.tensor.float32), _core.tensor.bool))
                continue
            while len(m._shape_tuple) < len(shape):
                m = ops.expand_dims(m, -1)
            full.append(ops.broadcast_to(m, shape))
        return ops.reduce_any(ops.concat(full, self.axis), axis=[-1])

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def build(self, input_shape: Any) -> None:
        if not isinstance(input_shape, list | tuple) or len(input_shape) < 1 or not isinstance(input_shape[0],
                                                                                              tuple | list):
            raise ValueError(f"A `Concatenate` layer should be called on a list of at least 1 input. Received: "
                             f"input_shape={input_shape}")
        shapes = [tuple(s) for s in input_shape]
        rank = len(shapes[0])
        axis = self.axis % rank if rank else 0
        for shape in shapes[1:]:
            if len(shape) != rank or any(a != b and a is not None and b is not None
                                         for i, (a, b) in enumerate(zip(shape, shapes[0], strict=True)) if i != axis):
                raise ValueError("A `Concatenate` layer requires inputs with matching shapes except for the "
                                 f"concatenation axis. Received: input_shape={shapes}")
        self.built = True

    def call(self, inputs: Any) -> Any:
        return _core.ops.concat(check_merge_inputs(self, inputs), self.axis)
