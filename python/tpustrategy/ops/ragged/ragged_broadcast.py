"""Broadcasting a dense operand against a RaggedTensor, as TF's ragged dispatch of element-wise ops does.

The dense operand's shape is aligned with the ragged one from the right. Dimensions of size 1 broadcast; the
uniform outer dimension (the rows) takes the other side's size when it is 1 on either side; a ragged dimension
takes a dense size other than 1 only when every row at that level has that length (TF checks it at run time and
raises InvalidArgumentError otherwise). Dense dimensions beyond the ragged rank add uniform outer dimensions to the
ragged operand (the ragged tensor repeated). The result is the dense operand gathered to the ragged operand's flat
values, so the op itself runs on two dense tensors of one leading size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.framework.string_tensor import StringTensor

if TYPE_CHECKING:
    from tpustrategy.ops.ragged.ragged_tensor import RaggedTensor


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def dense_array(value: Any) -> np.ndarray:
    """The host values of a dense operand (numbers or bytes)."""
    if isinstance(value, StringTensor):
        return np.asarray(value._array)
    return np.asarray(value.numpy())


def _repeat_outer(rt: RaggedTensor, count: int) -> RaggedTensor:
    """`rt` stacked `count` times along a new uniform outer dimension (shape [count, *rt.shape])."""
    from tpustrategy.ops.ragged.ragged_tensor import RaggedTensor, _concat_values  # lazy: it imports this module

    return RaggedTensor.from_uniform_row_length(_concat_values([rt] * count), rt.nrows_int(), nrows=count,
                                                validate=False)


def _positions(rt: RaggedTensor) -> list[np.ndarray]:
    """For every flat value row of `rt`: its index in dimension 0, 1, ..., ragged_rank (one array per dim)."""
    splits = [np.asarray(s.numpy()) for s in rt.nested_row_splits]
    ids = np.arange(int(splits[-1][-1]), dtype=np.int64)
    inner: list[np.ndarray] = []
    for level in reversed(splits):
        row = np.repeat(np.arange(len(level) - 1, dtype=np.int64), np.diff(level))[ids]
        inner.append(ids - level[row])
        ids = row
    return [ids, *reversed(inner)]


def align(rt: RaggedTensor, dense: Any) -> tuple[RaggedTensor, Any]:
    """(rt', values): `rt` with any outer dimensions the dense operand adds, and the dense operand as a tensor whose
    leading dimension matches rt'.flat_values (the rest broadcasts against the flat values' inner dimensions)."""
    array = dense_array(dense)
    if array.ndim == 0:
        return rt, dense
    rank = rt._known_rank()
    for size in reversed(array.shape[:max(array.ndim - rank, 0)]):
        rt = _repeat_outer(rt, int(size))
    rank = rt._known_rank()
    dims = (1,) * (rank - array.ndim) + tuple(array.shape)
    array = array.reshape(dims)
    nrows = rt.nrows_int()
    if dims[0] not in (1, nrows):
        if nrows != 1:
            raise _invalid(f"Incompatible shapes: a dense operand of shape {list(dims)} does not broadcast with a "
                           f"RaggedTensor of shape {rt.shape} ({dims[0]} rows vs {nrows})")
        rt = rt._gather_rows([0] * dims[0])
    positions = _positions(rt)
    index = []
    for dim, where in enumerate(positions):
        if dims[dim] == 1:
            index.append(np.zeros_like(where))
            continue
        if dim > 0:
            lengths = np.diff(np.asarray(rt.nested_row_splits[dim - 1].numpy()))
            if np.any(lengths != dims[dim]):
                raise _invalid(f"Incompatible shapes: dimension {dim} of a dense operand of shape {list(dims)} has "
                               f"size {dims[dim]}, but the RaggedTensor's rows there have lengths "
                               f"{sorted(set(lengths.tolist()))}")
        index.append(where)
    gathered = array[tuple(index)]
    if isinstance(dense, StringTensor):
        return rt, StringTensor(gathered)
    return rt, _core.tensor.constant(np.ascontiguousarray(gathered), dense.dtype)
