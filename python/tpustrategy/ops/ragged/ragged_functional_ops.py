"""``tf.ragged.map_flat_values``: an element-wise op applied to the flat values of ragged arguments."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tpustrategy import errors
from tpustrategy.ops.ragged.ragged_tensor import RaggedTensor


def map_flat_values(op: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Calls ``op`` with every RaggedTensor argument replaced by its flat values; the result keeps the row
    partition. All RaggedTensor arguments must share it (InvalidArgumentError otherwise, as TF)."""
    partition = []

    def unwrap(value: Any) -> Any:
        if isinstance(value, RaggedTensor):
            partition.append(value)
            return value.flat_values
        if isinstance(value, (list, tuple)):
            return type(value)(unwrap(v) for v in value)
        if isinstance(value, dict):
            return {k: unwrap(v) for k, v in value.items()}
        return value

    new_args = unwrap(list(args))
    new_kwargs = unwrap(kwargs)
    if not partition:
        return op(*new_args, **new_kwargs)
    first = [np.asarray(s.numpy()) for s in partition[0].nested_row_splits]
    for other in partition[1:]:
        splits = [np.asarray(s.numpy()) for s in other.nested_row_splits]
        if len(splits) != len(first) or not all(np.array_equal(a, b) for a, b in zip(splits, first, strict=True)):
            raise errors.InvalidArgumentError(None, None, "map_flat_values: the RaggedTensor arguments have "
                                              "different row partitions")
    result = op(*new_args, **new_kwargs)
    rows = partition[0].flat_values.shape[0]
    if result.shape.rank is None or result.shape.rank == 0 or result.shape[0] != rows:
        raise ValueError(f"map_flat_values: op returned a value with {result.shape} but {rows} rows were expected")
    return partition[0].with_flat_values(result)
