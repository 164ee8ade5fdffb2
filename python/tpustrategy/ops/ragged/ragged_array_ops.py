"""The layout ops TF dispatches to RaggedTensors (``tf.concat``, ``tf.gather``, ``tf.expand_dims``) and the
``tf.ragged`` ones built on them (``stack``, ``boolean_mask``), on the host as the rest of RaggedTensor.

An op along an inner axis works row by row (row i of the result is the op on row i of each input, one axis
lower), as TF's definitions read; results keep TF's ragged ranks and static shapes (a stacked or gathered
outer dimension is ragged, never uniform).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.framework import static_shape
from tpustrategy.framework.string_tensor import StringTensor
from tpustrategy.ops._args import TensorLike, mentions_ragged
from tpustrategy.ops.ragged import ragged_tensor
from tpustrategy.ops.ragged.ragged_tensor import RaggedTensor, positive_axis

_Tensor = _core.tensor.Tensor


def _rank(value: Any) -> int:
    return len(value.shape)


def _incompatible(first: Any, other: Any, index: int) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, f"Input tensors at index 0 (=x) and {index} (=y) have "
                                       f"incompatible shapes: {_rows_of(first)} and {_rows_of(other)} rows")


def _rows_of(value: Any) -> int:
    return value.nrows_int() if isinstance(value, RaggedTensor) else int(value._shape_tuple[0])


def _as_operand(value: Any) -> Any:
    return value if isinstance(value, (RaggedTensor, _Tensor, StringTensor)) else ragged_tensor._as_values(value)


def _assemble(pieces: list[Any], like: Any) -> RaggedTensor:
    """The RaggedTensor whose row i is pieces[i] (`like`: a tensor of no rows, for an empty list)."""
    values = ragged_tensor._concat_values(pieces) if pieces else like
    return RaggedTensor.from_row_lengths(values, np.asarray([_rows_of(p) for p in pieces], np.int64), validate=False)


def _row_wise(values: list[Any], op: Any) -> RaggedTensor:
    """Row i is ``op([v[i] for v in values])``; every input needs the first's row count."""
    for index, value in enumerate(values[1:], start=1):
        if _rows_of(value) != _rows_of(values[0]):
            raise _incompatible(values[0], value, index)
    pieces = [op([v[i] for v in values]) for i in range(_rows_of(values[0]))]
    return _assemble(pieces, ragged_tensor._rows(values[0].values if isinstance(values[0], RaggedTensor)
                                                 else values[0], 0, 0))


def concat(values: Any, axis: Any, name: str = "concat") -> Any:
    """``tf.concat`` with a RaggedTensor among `values`: rows one after another (axis 0), or row i of each input
    joined (an inner axis). Dense inputs join as ragged ones.

    Raises:
      ValueError: `axis` is outside [-rank, rank).
      InvalidArgumentError: for an inner axis, the inputs' row counts differ.
    """
    parts = [_as_operand(v) for v in values]
    ax = positive_axis(axis, _rank(parts[0]))
    if ax == 0:
        ragged_rank = max(p.ragged_rank for p in parts if isinstance(p, RaggedTensor))
        rows = [p if isinstance(p, RaggedTensor) else RaggedTensor.from_tensor(p, ragged_rank=ragged_rank)
                for p in parts]
        result = ragged_tensor._concat_values(rows)
        return _outer_ragged(result) if isinstance(result, RaggedTensor) else result
    return _row_wise(parts, lambda rows: _concat_rows(rows, ax - 1))


def _concat_rows(rows: list[Any], axis: int) -> Any:
    if mentions_ragged(rows):
        return concat(rows, axis)
    if any(isinstance(r, StringTensor) for r in rows):
        return StringTensor(np.concatenate([r._array for r in rows], axis))
    return _core.ops.concat(rows, axis)


def _outer_ragged(result: RaggedTensor) -> RaggedTensor:
    """`result` with its outer partition ragged (TF's stacked / joined rows never form a uniform dimension)."""
    return RaggedTensor(result.values, result._row_splits, None, internal=True)


def stack(values: Any, axis: int = 0, name: str | None = None) -> Any:
    """``tf.ragged.stack``: the inputs (ragged or dense, of one rank) stacked along a new `axis`; the new
    dimension and, at axis 0, the stacked rows are ragged. Dense inputs stacked past axis 0 give a dense tensor.

    Raises:
      ValueError: `axis` is outside [-(rank + 1), rank + 1) or `values` is empty.
      InvalidArgumentError: for axis > 0, the inputs' row counts differ; the dtypes differ.
    """
    parts = [_as_operand(v) for v in values]
    if not parts:
        raise ValueError("tf.ragged.stack needs at least one value")
    ax = positive_axis(axis, _rank(parts[0]) + 1)
    if ax == 0:
        result = ragged_tensor.stack(parts)
        return _outer_ragged(result) if isinstance(result, RaggedTensor) else result
    if not mentions_ragged(parts):
        return _core.ops.stack(parts, ax) if not isinstance(parts[0], StringTensor) else StringTensor(
            np.stack([p._array for p in parts], ax))
    return _row_wise(parts, lambda rows: stack(rows, ax - 1))


def gather(params: Any, indices: TensorLike, validate_indices: Any = None, axis: Any = None, batch_dims: int = 0,
           name: str | None = None) -> Any:
    """``tf.gather`` of a RaggedTensor's rows: the rows at `indices` (any rank: each index level adds a ragged
    dimension). The gathered dimension's static size is unknown, as TF's.

    Raises:
      InvalidArgumentError: an index is outside [0, nrows).
      NotImplementedError: `axis` other than 0 or `batch_dims` other than 0 (not built for ragged params).
    """
    if (axis not in (None, 0)) or batch_dims != 0:
        raise NotImplementedError(f"tf.gather of a RaggedTensor: only axis=0 and batch_dims=0 are built, got "
                                  f"axis={axis}, batch_dims={batch_dims}")
    index = np.asarray(indices.numpy() if isinstance(indices, _Tensor) else indices).astype(np.int64)
    if index.ndim == 0:
        return params[int(index)]
    nrows = params.nrows_int()
    bad = np.flatnonzero((index < 0) | (index >= nrows))
    if bad.size:
        raise errors.InvalidArgumentError(None, None, f"indices[{int(bad[0])}] = {int(index.flat[bad[0]])} is not in "
                                          f"[0, {nrows}) [Op:RaggedGather]")
    result: RaggedTensor = _outer_ragged(params._gather_rows([int(i) for i in index.reshape(-1)]))
    for size in reversed(index.shape[1:]):  # each further index dimension groups the rows gathered so far
        count = result.nrows_int() // size if size else 0
        result = RaggedTensor.from_row_lengths(result, np.full(count, size, np.int64), validate=False)
    static_shape.note_shape(result, [None, *result.shape.as_list()[1:]])
    return result


def expand_dims(input: Any, axis: Any, name: str | None = None) -> RaggedTensor:  # noqa: A002
    """``tf.expand_dims`` of a RaggedTensor: a size-1 dimension at `axis` (uniform when it partitions rows, a
    dense one when it is inside the flat values).

    Raises:
      ValueError: `axis` is outside [-(rank + 1), rank + 1).
    """
    ax = positive_axis(axis, _rank(input) + 1)
    return cast(RaggedTensor, ragged_tensor._insert_unit_axis(input, ax))  # ragged in, ragged out


def boolean_mask(data: Any, mask: Any, name: str | None = None) -> Any:
    """``tf.ragged.boolean_mask``: the entries of `data` where `mask` (a bool tensor or RaggedTensor whose shape
    is a prefix of data's) is True. A 1-D mask keeps rows (a dense `data` stays dense); a deeper mask applies
    row by row, so the result is ragged.

    Raises:
      ValueError: `mask` is a scalar, or not bool (TF's conversion error).
      InvalidArgumentError: a row of `mask` is not as long as the matching row of `data`.
    """
    mask = _as_operand(mask)
    data = _as_operand(data)
    if mask.dtype != _core.tensor.bool:
        raise ValueError(f"Tensor conversion requested dtype bool for {type(mask).__name__} with dtype "
                         f"{mask.dtype.name}: {mask!r}.")
    if _rank(mask) == 0:
        raise ValueError("mask cannot be scalar.")
    if _rank(mask) == 1:
        keep = np.asarray(mask.numpy()).astype(bool)
        if keep.size != _rows_of(data):
            raise errors.InvalidArgumentError(None, None, f"Inputs must have identical ragged splits: mask has "
                                              f"{keep.size} rows, data {_rows_of(data)}")
        picked = [int(i) for i in np.flatnonzero(keep)]
        if isinstance(data, RaggedTensor):
            kept: Any = _outer_ragged(data._gather_rows(picked))
        elif isinstance(data, StringTensor):
            kept = StringTensor(data._array[keep])
        else:
            kept = _core.ops.gather(data, _core.tensor.constant(np.asarray(picked, np.int64), _core.tensor.int64), 0)
        static_shape.note_shape(kept, [None, *kept.shape.as_list()[1:]])  # the kept row count is a value
        return kept
    return _row_wise([data, mask], lambda rows: boolean_mask(rows[0], rows[1]))
