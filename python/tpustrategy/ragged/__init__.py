"""``tf.ragged``: build ragged tensors and apply element-wise ops to their values."""

from __future__ import annotations

from tpustrategy.ops.ragged.ragged_array_ops import boolean_mask, stack
from tpustrategy.ops.ragged.ragged_functional_ops import map_flat_values
from tpustrategy.ops.ragged.ragged_math_ops import range  # noqa: A004
from tpustrategy.ops.ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec, constant

__all__ = ["RaggedTensor", "RaggedTensorSpec", "boolean_mask", "constant", "map_flat_values", "range", "stack"]
