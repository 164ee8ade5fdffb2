"""``keras.layers.Add``: the elementwise sum of a list of same-shaped inputs."""

from __future__ import annotations

from typing import Any

from tpustrategy import _core
from tpustrategy.keras.layers.layer import Layer


def check_merge_inputs(layer: Layer, inputs: Any) -> list[Any]:
    if not isinstance(inputs, list | tuple) or len(inputs) < 1:
        raise ValueError(f"A merge layer should be called on a list of inputs. Received: inputs={inputs!r} "
                         "(not a list of tensors)")
    return list(inputs)


def merge_masks(masks: Any) -> Any:
    """Keras 3's merge layers: the OR (any) of the inputs' masks (inputs without one do not count)."""
    if not isinstance(masks, list | tuple):
        return None
    present = [m for m in masks if m is not None]
    if not present:
        return None
    out = present[0]
    for m in present[1:]:
        out = _core.ops.logical_or(out, m)
    return out


class Add(Layer):
    """Sums a list of inputs elementwise (broadcasting as ``+`` does); the output mask is the OR of theirs.

    Raises:
      ValueError: the layer is built or called with something other than a non-empty list of inputs.
    """

    supports_masking = True

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return merge_masks(mask)

    def build(self, input_shape: Any) -> None:
        if not isinstance(input_shape, list | tuple) or not input_shape or not isinstance(input_shape[0], tuple | list):
            raise ValueError(f"A merge layer should be called on a list of inputs. Received: input_shape={input_shape}"
                             " (not a list of shapes)")
        self.built = True

    def call(self, inputs: Any) -> Any:
        inputs = check_merge_inputs(self, inputs)
        total = inputs[0]
        for x in inputs[1:]:
            total = total + x
        return total
