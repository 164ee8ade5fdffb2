"""``tf.reduce_sum`` / ``mean`` / ``max`` / ``min`` / ``prod`` of a RaggedTensor, as TF dispatches them.

Reducing a ragged axis removes one ragged dimension (the rows of a ragged_rank-1 tensor reduce to a dense
result); an empty row reduces to the op's identity (0, 1, the dtype's lowest / highest), and a mean divides the
sum by the count (TF's truediv: float64 for int32 values, nan for an empty row). A dense inner axis reduces in
the flat values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

from tpustrategy import _core
from tpustrategy.ops._args import axis_list
from tpustrategy.ops.ragged import ragged_array_ops, ragged_tensor
from tpustrategy.ops.ragged.ragged_tensor import RaggedTensor

_Kernel = Callable[..., Any]


def _reduce_axis(rt: Any, axis: int, kernel: _Kernel) -> Any:
    """`rt` (ragged or dense) reduced along one non-negative `axis` with `kernel` (a dense _core.ops reduction)."""
    if not isinstance(rt, RaggedTensor):
        return kernel(rt, [axis], keepdims=False)
    if axis > rt.ragged_rank:  # a dense dimension of the flat values
        return rt.with_flat_values(kernel(rt.flat_values, [axis - rt.ragged_rank], keepdims=False))
    if axis == 0:
        return _reduce_rows_across(rt, kernel)
    pieces = [_reduce_axis(rt[i], axis - 1, kernel) for i in range(rt.nrows_int())]
    if rt.ragged_rank == 1 and axis == 1:  # the only ragged dimension goes: a dense result
        empty = kernel(rt.values[0:0], [0], keepdims=False)
        return _core.ops.stack(pieces, 0) if pieces else _core.ops.reshape(empty, [0, *empty._shape_tuple])
    return ragged_array_ops._assemble(pieces, rt.values[0:0])


def _reduce_rows_across(rt: RaggedTensor, kernel: _Kernel) -> Any:
    """Axis 0 of a RaggedTensor: entry j reduces entry j of the rows that reach it (recursively, for rows that
    are ragged themselves)."""
    lengths = np.diff(rt._row_splits)
    columns = []
    for j in range(int(lengths.max(initial=0))):
        rows = [i for i in range(rt.nrows_int()) if lengths[i] > j]
        if rt.ragged_rank == 1:
            at = _core.tensor.constant(np.asarray([rt._row_splits[i] + j for i in rows], np.int64),
                                       _core.tensor.int64)
            columns.append(kernel(_core.ops.gather(rt.values, at, 0), [0], keepdims=False))
        else:
            column = ragged_tensor.stack([rt[i][j] for i in rows])  # ragged: rows of a ragged_rank > 1 tensor
            columns.append(_reduce_rows_across(cast(RaggedTensor, column), kernel))
    if rt.ragged_rank > 1:
        return ragged_array_ops._assemble(columns, rt.flat_values[0:0])
    if columns:
        return _core.ops.stack(columns, 0)
    empty = kernel(rt.values[0:0], [0], keepdims=False)
    return _core.ops.reshape(empty, [0, *empty._shape_tuple])


def reduce(kernel: _Kernel, rt: RaggedTensor, axis: Any = None, keepdims: bool = False) -> Any:
    """`rt` reduced with `kernel` over `axis` (an int, a list, or None: every axis), ``keepdims`` for a dense
    result.

    Raises:
      ValueError: an axis is outside [-rank, rank).
      NotImplementedError: keepdims with a ragged result.
    """
    if kernel is _core.ops.reduce_mean:
        total = reduce(_core.ops.reduce_sum, rt, axis, keepdims)
        ones = _core.ops.ones(list(rt.flat_values._shape_tuple), rt.dtype)
        count = reduce(_core.ops.reduce_sum, rt.with_flat_values(ones), axis, keepdims)
        return total / count
    rank = len(rt.shape)
    given = list(range(rank)) if axis is None else axis_list(axis) or []
    axes = [ragged_tensor.positive_axis(a, rank) for a in given]
    result: Any = rt
    for ax in sorted(set(axes), reverse=True):  # the innermost first: the outer axes keep their numbers
        result = _reduce_axis(result, ax, kernel)
    if keepdims:
        if isinstance(result, RaggedTensor):
            raise NotImplementedError("keepdims=True with a ragged result is not built")
        for ax in sorted(set(axes)):
            result = _core.ops.expand_dims(result, ax)
    return result
