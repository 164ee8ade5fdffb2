"""Keras masks: a boolean tensor riding along with a layer's output (Keras 3's ``_keras_mask``).

Tensors here do not take new attributes, so the mask is kept in a side table keyed by the tensor's id and
checked against a weak reference to it (an entry dies with its tensor). ``Layer.__call__`` reads the mask
of its inputs, passes it as ``mask=`` to a ``call`` that takes one, and attaches ``compute_mask``'s result
to the outputs; losses weight their per-sample values by the output's mask as Keras 3's ``apply_mask``.
"""

from __future__ import annotations

import weakref
from typing import Any

from tpustrategy import _core, nest

_MASKS: dict = {}  # id(tensor) -> (weakref to the tensor, mask)


def set_keras_mask(tensor, mask) -> None:
    if mask is None or not isinstance(tensor, _core.tensor.Tensor):
        return
    key = id(tensor)
    _MASKS[key] = (weakref.ref(tensor, lambda _ref, key=key: _MASKS.pop(key, None)), mask)


def get_keras_mask(tensor: Any) -> Any:
    entry = _MASKS.get(id(tensor))
    if entry is None or entry[0]() is not tensor:
        return None
    return entry[1]


def input_masks(inputs: Any) -> Any:
    """The mask of a single input, or the list of masks of a list of inputs (None where there is none)."""
    if isinstance(inputs, list | tuple):
        masks = [get_keras_mask(x) for x in inputs]
        return masks if any(m is not None for m in masks) else None
    return get_keras_mask(inputs)


def attach(outputs, mask) -> None:
    if mask is None:
        return
    flat = nest.flatten(outputs)
    masks = nest.flatten(mask) if isinstance(mask, list | tuple) and len(flat) > 1 else [mask] * len(flat)
    for tensor, m in zip(flat, masks, strict=False):
        set_keras_mask(tensor, m)


def apply_mask(sample_weight: Any, mask: Any) -> Any:
    """Keras 3's ``apply_mask`` for the default reduction: masked entries weigh 0, the others
    total / valid, so the mean over every entry is the mean over the valid ones; times `sample_weight`."""
    ops = _core.ops
    mask = ops.cast(mask, _core.tensor.float32)
    total = float(max(1, int(_size(mask))))
    valid = ops.reduce_sum(mask)
    f32 = _core.tensor.float32
    mask = mask * (_core.tensor.constant(total, f32) / (valid + _core.tensor.constant(1e-7, f32)))
    if sample_weight is None:
        return mask
    sample_weight = ops.cast(_core.tensor.convert_to_tensor(sample_weight), _core.tensor.float32)
    extra = len(mask._shape_tuple) - len(sample_weight._shape_tuple)
    if extra > 0:
        sample_weight = ops.reshape(sample_weight, list(sample_weight._shape_tuple) + [1] * extra)
    return mask * sample_weight


def _size(t) -> int:
    size = 1
    for d in t._shape_tuple:
        size *= int(d)
    return size


__all__ = ["apply_mask", "attach", "get_keras_mask", "input_masks", "set_keras_mask"]
