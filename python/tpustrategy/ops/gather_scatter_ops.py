"""``tf.gather`` with ``batch_dims``, ``tf.gather_nd``, ``tf.scatter_nd``, ``tf.tensor_scatter_nd_update`` /
``_add`` / ``_sub``, written with the dispatched C++ ops (gather, unsorted_segment_sum, where, reshape,
transpose) so their gradients come from those ops' gradients: scatter_nd's updates get gather_nd of the
output gradient, gather_nd's params get a segment sum (TF's rules).

Indices are checked on the host first: an out-of-range index is an InvalidArgumentError naming it, as on
TF's CPU kernels. tensor_scatter_nd_update with duplicate indices: TF leaves the winner unspecified; here
the duplicates' updates are summed (documented deviation).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.ops import _spmd_hook
from tpustrategy.ops._args import Tensor, TensorLike, axis_int, int_list, mentions_ragged

_ops = _core.ops


def _tensor(value: TensorLike, dtype: Any = None) -> Tensor:
    if isinstance(value, Tensor):
        return value
    if hasattr(value, "_as_tensor"):
        converted: Tensor = value._as_tensor()  # a variable's current value
    else:
        converted = _core.tensor.convert_to_tensor(value, dtype)
    return converted


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _linear_indices(indices: TensorLike, shape: Sequence[int], what: str) -> tuple[Tensor, int]:
    """The row-major positions in shape[:depth] of each index vector (int64 tensor of indices.shape[:-1])."""
    idx = np.asarray(indices)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"{what}: indices must be int32 or int64, got {idx.dtype}")
    if idx.ndim == 0:
        raise _invalid(f"{what}: indices must be at least a vector, got a scalar")
    depth = idx.shape[-1]
    if depth > len(shape):
        raise _invalid(f"{what}: index innermost dimension {depth} is larger than the rank {len(shape)} of the "
                       f"indexed tensor")
    dims = np.asarray(shape[:depth], np.int64)
    flat = idx.reshape(-1, depth).astype(np.int64)
    bad = np.nonzero(((flat < 0) | (flat >= dims)).any(axis=1))[0]
    if bad.size:
        raise _invalid(f"{what}: indices[{bad[0]}] = {flat[bad[0]].tolist()} does not index into shape "
                       f"{list(shape)}")
    strides = np.ones(depth, np.int64)
    for i in range(depth - 2, -1, -1):
        strides[i] = strides[i + 1] * dims[i + 1]
    linear = (flat * strides).sum(axis=1) if depth else np.zeros(flat.shape[0], np.int64)
    positions: Tensor = _core.tensor.constant(linear.reshape(idx.shape[:-1]), _core.tensor.int64)
    return positions, depth


def gather_nd(params: TensorLike, indices: TensorLike, batch_dims: int = 0, name: str | None = None) -> Any:
    """Slices of `params` at the index vectors in the last axis of `indices` (tf.gather_nd; batch_dims=0)."""
    if batch_dims != 0:
        raise NotImplementedError("tf.gather_nd with batch_dims != 0 is not supported by tpustrategy")
    p = _tensor(params)
    shape = list(p._shape_tuple)
    linear, depth = _linear_indices(indices, shape, "GatherNd")
    flat = _ops.reshape(p, [math.prod(shape[:depth])] + shape[depth:])
    return _ops.gather(flat, linear, 0)


def scatter_nd(indices: TensorLike, updates: TensorLike, shape: TensorLike, name: str | None = None) -> Any:
    """Zeros of `shape` with `updates` added at `indices` (tf.scatter_nd; duplicates add)."""
    shape = int_list(shape, "shape")
    u = _tensor(updates)
    linear, depth = _linear_indices(indices, shape, "ScatterNd")
    slice_shape = shape[depth:]
    expected = list(linear._shape_tuple) + slice_shape
    if list(u._shape_tuple) != expected:
        raise _invalid(f"ScatterNd: updates must have shape indices.shape[:-1] + shape[{depth}:] = {expected}, got "
                       f"{list(u._shape_tuple)}")
    rows = math.prod(shape[:depth])
    flat_updates = _ops.reshape(u, [linear._num_elements()] + slice_shape)
    summed = _ops.unsorted_segment_sum(flat_updates, _ops.reshape(linear, [-1]), rows)
    return _ops.reshape(summed, shape)


def _scatter_like(tensor: TensorLike, indices: TensorLike, updates: TensorLike, what: str) -> tuple[Tensor, Any]:
    t = _tensor(tensor)
    u = _tensor(updates, t.dtype)
    if u.dtype != t.dtype:
        raise _invalid(f"{what}: updates dtype {u.dtype.name} does not match tensor dtype {t.dtype.name}")
    return t, scatter_nd(indices, u, list(t._shape_tuple))


def tensor_scatter_nd_add(tensor: TensorLike, indices: TensorLike, updates: TensorLike, name: str | None = None) -> Any:
    """`tensor` with `updates` added at `indices` (tf.tensor_scatter_nd_add)."""
    t, s = _scatter_like(tensor, indices, updates, "TensorScatterAdd")
    return _ops.add(t, s)


def tensor_scatter_nd_sub(tensor: TensorLike, indices: TensorLike, updates: TensorLike, name: str | None = None) -> Any:
    """`tensor` with `updates` subtracted at `indices` (tf.tensor_scatter_nd_sub)."""
    t, s = _scatter_like(tensor, indices, updates, "TensorScatterSub")
    return _ops.subtract(t, s)


def tensor_scatter_nd_update(tensor: TensorLike, indices: TensorLike, updates: TensorLike,
                             name: str | None = None) -> Any:
    """`tensor` with the slices at `indices` replaced by `updates` (tf.tensor_scatter_nd_update). The gradient
    is zero at the replaced positions for `tensor`, and gather_nd of the output gradient for `updates`."""
    t, s = _scatter_like(tensor, indices, updates, "TensorScatterUpdate")
    hit = scatter_nd(indices, _ops.ones(list(_tensor(updates, t.dtype)._shape_tuple), t.dtype),
                     list(t._shape_tuple))
    return _ops.where(_ops.greater(hit, _ops.zeros([], t.dtype)), s, t)


def gather(params: TensorLike, indices: TensorLike, validate_indices: Any = None, axis: Any = None, batch_dims: int = 0,
           name: str | None = None) -> Any:
    """Slices of `params` along `axis` at `indices` (tf.gather), with `batch_dims` leading axes shared by
    `params` and `indices` (gathered per batch element).

    Raises:
      ValueError: batch_dims out of range; mismatched batch dimensions.
      InvalidArgumentError: batch_dims greater than axis, an index out of range.
    """
    if not isinstance(params, Tensor) and mentions_ragged(params):  # TF's ragged gather: the rows at `indices`
        from tpustrategy.ops.ragged import ragged_array_ops

        return ragged_array_ops.gather(params, indices, validate_indices, axis, batch_dims)
    if batch_dims == 0:
        if _spmd_hook.active and _spmd_hook.sharded(params, indices) and axis in (None, 0):
            return _spmd_hook.partitioner.gather(params, indices)
        return _ops.gather(params, indices, 0 if axis is None else axis_int(axis))
    p, i = _tensor(params), _tensor(indices)
    rank_p, rank_i = p.ndim, i.ndim
    b = axis_int(batch_dims, "batch_dims")
    if b < 0:
        b += rank_i
    if not 0 <= b <= rank_i:
        raise ValueError(f"batch_dims (now {b}) must be in [0, rank(indices)={rank_i}]")
    ax = b if axis is None else axis_int(axis)
    if ax < 0:
        ax += rank_p
    if b > ax:
        raise _invalid(f"batch_dims (now {b}) must be less than or equal to axis (now {ax})")
    if not ax < rank_p:
        raise ValueError(f"axis {ax} is out of range for params of rank {rank_p}")
    ps, is_ = list(p._shape_tuple), list(i._shape_tuple)
    if ps[:b] != is_[:b]:
        raise ValueError(f"params.shape[:{b}] {ps[:b]} must equal indices.shape[:{b}] {is_[:b]} (batch_dims={b})")
    # Move the gathered axis right after the batch axes, flatten the batch into the gathered axis and offset
    # the indices by batch element: one plain gather.
    perm = list(range(b)) + [ax] + [d for d in range(b, rank_p) if d != ax]
    moved = _ops.transpose(p, perm) if perm != list(range(rank_p)) else p
    n, batch = ps[ax], math.prod(ps[:b])
    rest = [ps[d] for d in perm[b + 1:]]
    flat = _ops.reshape(moved, [batch * n] + rest)
    idx = np.asarray(i).astype(np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = idx[(idx < 0) | (idx >= n)].reshape(-1)[0]
        raise _invalid(f"indices contains {bad}, which is not in [0, {n})")
    offsets = (np.arange(batch, dtype=np.int64) * n).reshape(is_[:b] + [1] * (rank_i - b))
    out = _ops.gather(flat, _core.tensor.constant(idx + offsets, _core.tensor.int64), 0)
    # out: batch + indices[b:] + rest (rest = params axes b..rank except ax, in order); TF puts
    # params[b:ax] before the indices' axes.
    before = ax - b
    if before == 0:
        return out
    k = rank_i - b
    order = list(range(b)) + [b + k + j for j in range(before)] + [b + j for j in range(k)] + \
        [b + k + before + j for j in range(len(rest) - before)]
    return _ops.transpose(out, order)
