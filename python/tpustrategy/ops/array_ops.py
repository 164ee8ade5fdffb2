"""Creation and layout ops (mirrors ``tf.reshape``, ``tf.concat``, ``tf.range``, ``tf.where``, ...)."""

from __future__ import annotations

import builtins
from typing import Any

from tpustrategy import _core
from tpustrategy.framework import static_shape
from tpustrategy.ops import _spmd_hook, numpy_backed_ops
from tpustrategy.ops._args import TensorLike, axis_int, axis_list, dtype_or_none, int_list, mentions_ragged, tensor_list

_ops = _core.ops
Tensor = _core.tensor.Tensor


def _as_tensor(value: TensorLike) -> Any:
    return value if isinstance(value, Tensor) else _core.tensor.convert_to_tensor(value)


def reshape(tensor: TensorLike, shape: Any, name: str | None = None) -> Any:
    """Reshapes `tensor`; one dimension of `shape` may be -1. Shares the buffer (tf.reshape)."""
    if _spmd_hook.active and _spmd_hook.sharded(tensor):
        return _spmd_hook.partitioner.reshape(tensor, int_list(shape, "shape"))
    return _ops.reshape(tensor, int_list(shape, "shape"))


def expand_dims(input: TensorLike, axis: Any, name: str | None = None) -> Any:  # noqa: A002
    """Inserts a length-1 axis at `axis` (tf.expand_dims); a RaggedTensor gets TF's ragged expand_dims."""
    if not isinstance(input, Tensor) and mentions_ragged(input):  # a Tensor: the kernel at once
        from tpustrategy.ops.ragged import ragged_array_ops

        return ragged_array_ops.expand_dims(input, axis)
    return _ops.expand_dims(input, axis_int(axis))


def squeeze(input: TensorLike, axis: Any = None, name: str | None = None) -> Any:  # noqa: A002
    """Removes length-1 axes: those in `axis`, or all of them (tf.squeeze)."""
    axes = axis_list(axis)
    return _ops.squeeze(input, axes or [])


def transpose(a: TensorLike, perm: Any = None, conjugate: bool = False, name: str = "transpose") -> Any:
    """Permutes the axes; reverses them when `perm` is None (tf.transpose)."""
    if _spmd_hook.active and _spmd_hook.sharded(a):
        return _spmd_hook.partitioner.transpose(a, None if perm is None else int_list(perm, "perm"))
    return _ops.transpose(a, [] if perm is None else int_list(perm, "perm"))


def concat(values: TensorLike, axis: Any, name: str = "concat") -> Any:
    """Concatenates tensors along `axis` (tf.concat); with a RaggedTensor among them, TF's ragged concat."""
    if mentions_ragged(values):
        from tpustrategy.ops.ragged import ragged_array_ops

        return ragged_array_ops.concat(values, axis)
    if _spmd_hook.active and isinstance(values, (list, tuple)) and _spmd_hook.sharded(*values):
        return _spmd_hook.partitioner.concat(values, axis_int(axis))
    return _ops.concat(tensor_list(values), axis_int(axis))


def stack(values: TensorLike, axis: Any = 0, name: str = "stack") -> Any:
    """Stacks same-shaped tensors along a new `axis` (tf.stack)."""
    return _ops.stack(tensor_list(values), axis_int(axis))


def unstack(value: TensorLike, num: Any = None, axis: Any = 0, name: str = "unstack") -> Any:
    """The slices of `value` along `axis` (tf.unstack)."""
    parts = _ops.unstack(value, axis_int(axis))
    if num is not None and num != len(parts):
        raise ValueError(f"num ({num}) does not match the size of axis {axis} ({len(parts)})")
    return parts


def split(value: TensorLike, num_or_size_splits: Any, axis: Any = 0, num: Any = None, name: str = "split") -> Any:
    """Splits into equal parts (an int) or parts of the given sizes (a list, one may be -1) (tf.split)."""
    ax = axis_int(axis)
    if isinstance(num_or_size_splits, int) and not isinstance(num_or_size_splits, bool):
        return _ops.split(value, num_or_size_splits, ax)
    sizes = int_list(num_or_size_splits, "num_or_size_splits")
    if isinstance(num_or_size_splits, Tensor) and num_or_size_splits.ndim == 0:
        return _ops.split(value, sizes[0], ax)
    if num is not None and num != len(sizes):
        raise ValueError(f"num ({num}) does not match the number of sizes ({len(sizes)})")
    return _ops.split_sizes(value, sizes, ax)


def tile(input: TensorLike, multiples: Any, name: str | None = None) -> Any:  # noqa: A002
    """Repeats `input` `multiples[i]` times along axis i (tf.tile)."""
    return _ops.tile(input, int_list(multiples, "multiples"))


def broadcast_to(input: TensorLike, shape: Any, name: str | None = None) -> Any:  # noqa: A002
    """Broadcasts `input` to `shape` (tf.broadcast_to)."""
    return _ops.broadcast_to(input, int_list(shape, "shape"))


def slice(input_: TensorLike, begin: Any, size: Any, name: str | None = None) -> Any:  # noqa: A001
    """Extracts `size` elements starting at `begin`; size -1 means to the end (tf.slice)."""
    if _spmd_hook.active and _spmd_hook.sharded(input_):
        return _spmd_hook.partitioner.slice(input_, int_list(begin, "begin"), int_list(size, "size"))
    return _ops.slice(input_, int_list(begin, "begin"), int_list(size, "size"))


def fill(dims: Any, value: TensorLike, name: str | None = None) -> Any:
    """A tensor of shape `dims` filled with `value` (tf.fill)."""
    return _ops.fill(int_list(dims, "dims"), value)


def zeros(shape: Any, dtype: Any = _core.tensor.float32, name: str | None = None, layout: Any = None) -> Any:
    """A tensor of zeros (tf.zeros)."""
    return _ops.zeros(int_list(shape, "shape"), _core.tensor.DType(dtype))


def ones(shape: Any, dtype: Any = _core.tensor.float32, name: str | None = None, layout: Any = None) -> Any:
    """A tensor of ones (tf.ones)."""
    return _ops.ones(int_list(shape, "shape"), _core.tensor.DType(dtype))


def zeros_like(input: TensorLike, dtype: Any = None, name: str | None = None, layout: Any = None) -> Any:  # noqa: A002
    """Zeros with the shape (and dtype, unless given) of `input` (tf.zeros_like)."""
    t = _as_tensor(input)
    result = _ops.zeros(list(t._shape_tuple), dtype_or_none(dtype) or t.dtype)
    static_shape.note_like(result, t)
    return result


def ones_like(input: TensorLike, dtype: Any = None, name: str | None = None, layout: Any = None) -> Any:  # noqa: A002
    """Ones with the shape (and dtype, unless given) of `input` (tf.ones_like)."""
    t = _as_tensor(input)
    result = _ops.ones(list(t._shape_tuple), dtype_or_none(dtype) or t.dtype)
    static_shape.note_like(result, t)
    return result


def range(start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None, name: str = "range") -> Any:  # noqa: A001
    """[start, limit) in steps of delta; ``range(n)`` is ``range(0, n)`` (tf.range).

    The dtype is the widest of the arguments' (int32 < int64 < float32 < float64) unless given.
    """
    if limit is None:
        start, limit = 0, start
    return _ops.range(start, limit, delta, dtype=dtype_or_none(dtype))


def one_hot(indices: TensorLike, depth: Any, on_value: Any = None, off_value: Any = None, axis: Any = None,
            dtype: Any = None, name: str | None = None) -> Any:
    """One-hot encoding of integer `indices`; out-of-range indices give all off_value (tf.one_hot)."""
    return _ops.one_hot(
        indices,
        axis_int(depth, "depth"),
        on_value=on_value,
        off_value=off_value,
        axis=-1 if axis is None else axis_int(axis),
        dtype=dtype_or_none(dtype),
    )


def where(condition: TensorLike, x: TensorLike = None, y: TensorLike = None, name: str | None = None) -> Any:
    """`x` where `condition` else `y`, broadcast together; with only `condition`, the coordinates of true
    elements as int64 [num_true, rank] (tf.where)."""
    return _ops.where(condition, x, y)


def identity(input: object, name: str | None = None) -> Any:  # noqa: A002
    """The same values, on the current device (tf.identity)."""
    return _ops.identity(input)


def stop_gradient(input: TensorLike, name: str | None = None) -> Any:  # noqa: A002
    """The same values; gradient tapes see no dependence on `input` through the result (tf.stop_gradient)."""
    return _ops.stop_gradient(input)


def pad(tensor: TensorLike, paddings: Any, mode: str = "CONSTANT", constant_values: Any = 0,
        name: str | None = None) -> Any:
    """tf.pad. Zero padding runs in C++ and is differentiable; other constants and the REFLECT / SYMMETRIC
    modes run on numpy (not differentiable yet)."""
    import numpy as np

    tensor = _as_tensor(tensor)
    matrix = np.asarray(paddings.numpy() if isinstance(paddings, _core.tensor.Tensor) else paddings)
    zero_constant = isinstance(mode, str) and mode.upper() == "CONSTANT" and _is_zero(constant_values)
    if not zero_constant or matrix.shape != (builtins.len(tensor._shape_tuple), 2):
        # numpy path: the other modes and constants, and TF's error for a malformed `paddings`.
        return numpy_backed_ops.pad(tensor, paddings, mode, constant_values, name)
    flat = [builtins.int(v) for v in matrix.reshape(-1)]
    return _ops.pad(tensor, flat)


def _is_zero(value: TensorLike) -> bool:
    try:
        return builtins.bool(value == 0)
    except (TypeError, ValueError):
        return False


def shape(input: TensorLike, out_type: Any = _core.tensor.int32, name: str | None = None) -> Any:  # noqa: A002
    """The shape of `input` as a 1-D integer tensor (tf.shape)."""
    tensor = _as_tensor(input)
    result = _core.tensor.constant(list(tensor._shape_tuple), _core.tensor.DType(out_type))
    static_shape.note_shape_of(result, tensor)
    return result


def rank(input: TensorLike, name: str | None = None) -> Any:  # noqa: A002
    """The number of dimensions as an int32 scalar tensor (tf.rank)."""
    return _core.tensor.constant(_as_tensor(input).ndim, _core.tensor.int32)


def size(input: TensorLike, out_type: Any = _core.tensor.int32, name: str | None = None) -> Any:  # noqa: A002
    """The number of elements as a scalar tensor (tf.size)."""
    t = _as_tensor(input)
    return _core.tensor.constant(builtins.int(t._num_elements()), _core.tensor.DType(out_type))
