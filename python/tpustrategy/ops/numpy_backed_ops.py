"""Array ops input pipelines use, computed with numpy (not yet C++ kernels in ``_core.ops``):
sort / argsort, unique, segment and unsorted-segment reductions, cumsum / cumprod, reverse, pad,
meshgrid, linspace, searchsorted, histogram_fixed_width, boolean_mask and the ``tf.bitwise`` ops.

Values, dtypes and output orders are TensorFlow's; bad arguments raise TF's error types
(InvalidArgumentError for bad values, ValueError / TypeError for bad static arguments).
"""

from __future__ import annotations

from typing import Any, Literal, cast

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.framework import static_shape
from tpustrategy.framework.tensor import Tensor
from tpustrategy.framework.type_string import type_string
from tpustrategy.ops._args import TensorLike


def _np(x: TensorLike) -> Any:
    if isinstance(x, Tensor):
        return x.numpy()
    return np.asarray(_core.tensor.convert_to_tensor(x).numpy())


def _out(array: Any, dtype: Any = None) -> Any:
    array = np.asarray(array)
    name = np.dtype(array.dtype if dtype is None else dtype).name if not isinstance(dtype, (str, _core.tensor.DType)) \
        else dtype
    target = _core.tensor.DType(name)
    return _core.tensor.constant(array.astype(target.as_numpy_dtype), target)


def _like(result: Any, x: Any) -> Any:
    """`result`, of `x`'s shape, with `x`'s static shape where a dataset function's spec is found."""
    static_shape.note_like(result, x)
    return result


def _invalid(message: Any) -> Any:
    return errors.InvalidArgumentError(None, None, message)


def _axis(axis: Any, rank: Any) -> Any:
    axis = int(axis)
    if not -rank <= axis < max(rank, 1):
        raise _invalid(f"axis {axis} is out of range for a tensor of rank {rank}")
    return axis % max(rank, 1)


def sort(values: TensorLike, axis: Any = -1, direction: str = "ASCENDING", name: str | None = None) -> Any:
    """Sorted along `axis` (stable), ``direction`` ASCENDING or DESCENDING."""
    a = _np(values)
    return _like(_out(_sorted(a, axis, direction, argsort=False), a.dtype), values)


def argsort(values: TensorLike, axis: Any = -1, direction: str = "ASCENDING", stable: bool = False,
            name: str | None = None) -> Any:
    """Indices (int32) that sort `values` along `axis`; ties keep their order."""
    return _like(_out(_sorted(_np(values), axis, direction, argsort=True), np.int32), values)


def _sorted(a: TensorLike, axis: Any, direction: Any, argsort: Any) -> Any:
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"`direction` must be ASCENDING or DESCENDING, got {direction!r}")
    if a.ndim == 0:
        raise ValueError("sort requires a tensor of rank >= 1")
    axis = _axis(axis, a.ndim)
    key = -a if direction == "DESCENDING" and a.dtype.kind != "b" else a
    if direction == "DESCENDING" and a.dtype.kind in "iu":
        key = -a.astype(np.float64)  # avoids overflow of -INT_MIN
    order = np.argsort(key, axis=axis, kind="stable")
    return order if argsort else np.take_along_axis(a, order, axis)


def unique(x: TensorLike, out_idx: str = "int32", name: str | None = None) -> Any:
    """(y, idx): the distinct values of the vector `x` in order of first occurrence, and where each x went."""
    a = _np(x)
    if a.ndim != 1:
        raise _invalid(f"unique expects a 1D vector, got shape {list(a.shape)}")
    _, first, inverse = np.unique(a, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # np.unique sorts; TF keeps first-occurrence order
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    values, index = _out(a[np.sort(first)], a.dtype), _out(rank[inverse.reshape(-1)], out_idx)
    if isinstance(x, Tensor):
        static_shape.note_data_dependent(values, x, 0, 1)
        static_shape.note_like(index, x)
    return values, index


def _segments(data: TensorLike, segment_ids: Any, num_segments: Any, sorted_ids: Any) -> Any:
    d, ids = _np(data), _np(segment_ids)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"segment_ids must be integers, got {ids.dtype}")
    if ids.shape != d.shape[:ids.ndim]:
        raise _invalid(f"segment_ids shape {list(ids.shape)} must be a prefix of data.shape {list(d.shape)}")
    flat_ids = ids.reshape(-1)
    rows = d.reshape((flat_ids.size, *d.shape[ids.ndim:]))
    if sorted_ids:
        if flat_ids.size and (np.any(np.diff(flat_ids) < 0) or flat_ids[0] < 0):
            raise _invalid("segment ids are not increasing")
        n = int(flat_ids[-1]) + 1 if flat_ids.size else 0
    else:
        n = int(_np(num_segments))
        if np.any(flat_ids >= n):
            raise _invalid(f"segment_ids[{int(np.argmax(flat_ids >= n))}] = {int(flat_ids.max())} is out of range "
                           f"[0, {n})")
    keep = flat_ids >= 0  # unsorted ops drop negative ids, as TF
    return d, rows[keep], flat_ids[keep], n


def _segment_reduce(kind: Any, sorted_ids: Any) -> Any:
    def op(data: TensorLike, segment_ids: Any, num_segments: Any = None, name: str | None = None) -> Any:
        d, rows, ids, n = _segments(data, segment_ids, num_segments, sorted_ids)
        shape = (n, *rows.shape[1:])
        if kind == "sum":
            out = np.zeros(shape, d.dtype)
            np.add.at(out, ids, rows)
        elif kind == "prod":
            out = np.ones(shape, d.dtype)
            np.multiply.at(out, ids, rows)
        elif kind in ("max", "min"):
            info = np.finfo if d.dtype.kind == "f" else np.iinfo
            fill = info(d.dtype).min if kind == "max" else info(d.dtype).max
            if d.dtype.kind == "f":
                fill = -np.inf if kind == "max" else np.inf
            out = np.full(shape, fill, d.dtype)
            (np.maximum if kind == "max" else np.minimum).at(out, ids, rows)
            if sorted_ids:  # sorted segment max/min give 0 for empty segments
                counts = np.bincount(ids, minlength=n)
                out[counts == 0] = 0
        else:  # mean, or sqrt_n: the sum over sqrt(count), TF's normalisation for embedding combiners
            if kind == "sqrt_n" and d.dtype.kind not in "fc":
                raise _invalid(f"Value for attr 'T' of {type_string(d.dtype)} is not in the list of allowed values: "
                               "bfloat16, half, float, double, complex64, complex128")
            total = np.zeros(shape, np.float64 if kind == "mean" else d.dtype)
            np.add.at(total, ids, rows)
            counts = np.bincount(ids, minlength=n).reshape((n,) + (1,) * (rows.ndim - 1))
            nonempty = np.maximum(counts, 1)
            divisor = nonempty if kind == "mean" else np.sqrt(nonempty).astype(d.dtype)
            out = np.where(counts > 0, total / divisor, 0).astype(d.dtype)
        result = _out(out, d.dtype)
        if sorted_ids:
            static_shape.note_sorted_segments(result, data, d.shape, np.ndim(_np(segment_ids)))
        return result

    op.__name__ = f"{'segment' if sorted_ids else 'unsorted_segment'}_{kind}"
    op.__doc__ = _SEGMENT_DOC.format(kind=kind, ids=_SORTED_IDS if sorted_ids else _UNSORTED_IDS,
                                     empty=_EMPTY_SEGMENT[kind, sorted_ids])
    return op


_SEGMENT_DOC = """The {kind} of the rows of `data` in each segment: output row i combines the rows whose id is i.

    {ids}
    The result has `data`'s dtype; an empty segment gives {empty}.

    Args:
      data: the values; `segment_ids` labels the entries of its leading dimensions.
      segment_ids: integer ids, shaped as a prefix of ``data.shape``.
      num_segments: the number of output rows (the unsorted ops need it; the sorted ones ignore it).

    Raises:
      TypeError: `segment_ids` is not an integer tensor.
      InvalidArgumentError: its shape is not a prefix of data's, or the ids break the rule above.
    """
_SORTED_IDS = "The ids must be non-negative and non-decreasing; there are ``max(id) + 1`` segments."
_UNSORTED_IDS = "The ids may come in any order and must be below `num_segments`; rows with a negative id are dropped."
_EMPTY_SEGMENT = {
    ("sum", True): "0", ("sum", False): "0", ("prod", True): "1", ("prod", False): "1",
    ("mean", True): "0", ("mean", False): "0", ("max", True): "0", ("min", True): "0",
    ("max", False): "the dtype's lowest value (-inf for floats)",
    ("min", False): "the dtype's highest value (inf for floats)", ("sqrt_n", False): "0",
}


segment_sum = _segment_reduce("sum", True)
segment_prod = _segment_reduce("prod", True)
segment_max = _segment_reduce("max", True)
segment_min = _segment_reduce("min", True)
segment_mean = _segment_reduce("mean", True)
unsorted_segment_sum = _segment_reduce("sum", False)
unsorted_segment_prod = _segment_reduce("prod", False)
unsorted_segment_max = _segment_reduce("max", False)
unsorted_segment_min = _segment_reduce("min", False)
unsorted_segment_mean = _segment_reduce("mean", False)
unsorted_segment_sqrt_n = _segment_reduce("sqrt_n", False)
unsorted_segment_sqrt_n.__doc__ = unsorted_segment_sqrt_n.__doc__.replace(
    "The sqrt_n of the rows", "The sum divided by sqrt(count) of the rows", 1).replace(
    "data`'s dtype;", "data`'s dtype, which must be floating or complex (else InvalidArgumentError);", 1)


def _scan(ufunc: Any, identity: Any) -> Any:
    def op(x: TensorLike, axis: Any = 0, exclusive: bool = False, reverse: bool = False,
           name: str | None = None) -> Any:
        a = _np(x)
        if a.ndim == 0:
            raise _invalid("cumulative ops need a tensor of rank >= 1")
        ax = _axis(axis, a.ndim)
        b = np.flip(a, ax) if reverse else a
        out = ufunc.accumulate(b, axis=ax, dtype=a.dtype)
        if exclusive:
            out = np.concatenate([np.full_like(np.take(out, [0], axis=ax), identity),
                                  np.take(out, np.arange(out.shape[ax] - 1), axis=ax)], axis=ax)
        return _like(_out(np.flip(out, ax) if reverse else out, a.dtype), x)

    return op


_CUMULATIVE_DOC = """The running {kind} of `x` along `axis`, in x's dtype.

    Args:
      x: a tensor of rank >= 1.
      axis: the dimension to accumulate along (negative counts from the end).
      exclusive: each output leaves out its own element, so the one the accumulation starts at is {identity}.
      reverse: accumulate from the end of `axis` instead.

    Raises:
      InvalidArgumentError: `x` is a scalar, or `axis` is out of range.
    """

cumsum = _scan(np.add, 0)
cumsum.__name__ = "cumsum"
cumsum.__doc__ = _CUMULATIVE_DOC.format(kind="sum", identity=0)
cumprod = _scan(np.multiply, 1)
cumprod.__name__ = "cumprod"
cumprod.__doc__ = _CUMULATIVE_DOC.format(kind="product", identity=1)


def reverse(tensor: TensorLike, axis: Any, name: str | None = None) -> Any:
    """`tensor` with the order of its entries reversed along each dimension in `axis` (an int or a list).

    Raises:
      InvalidArgumentError: an axis is out of range or given twice.
    """
    a = _np(tensor)
    axes = [_axis(ax, a.ndim) for ax in np.asarray(axis).reshape(-1)]
    if len(set(axes)) != len(axes):
        raise _invalid(f"axis {list(np.asarray(axis).reshape(-1))} specified more than once")
    return _like(_out(np.flip(a, tuple(axes)) if axes else a, a.dtype), tensor)


def pad(tensor: TensorLike, paddings: Any, mode: str = "CONSTANT", constant_values: Any = 0,
        name: str | None = None) -> Any:
    """Pads with CONSTANT values, or REFLECT / SYMMETRIC copies of the edges (case-insensitive)."""
    a, p = _np(tensor), np.asarray(_np(paddings))
    if p.shape != (a.ndim, 2):
        raise _invalid(f"paddings must be a matrix with 2 columns and {a.ndim} rows, got shape {list(p.shape)}")
    if np.any(p < 0):
        raise _invalid(f"paddings must be non-negative, got {p.tolist()}")
    mode = mode.upper()
    if mode == "CONSTANT":
        return _out(np.pad(a, p, mode="constant", constant_values=_np(constant_values)), a.dtype)
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f"Value of argument `mode` expected to be one of \"CONSTANT\", \"REFLECT\", or "
                         f"\"SYMMETRIC\". Received `mode` = {mode}")
    limit = 0 if mode == "SYMMETRIC" else 1
    for dim, (before, after) in zip(a.shape, p, strict=True):
        if before > dim - limit or after > dim - limit:
            raise _invalid(f"paddings must be no greater than the dimension size{'' if limit == 0 else ' - 1'}: "
                           f"{before}, {after} greater than {dim - limit}")
    return _out(np.pad(a, p, mode="reflect" if mode == "REFLECT" else "symmetric"), a.dtype)


def meshgrid(*args: Any, indexing: str = "xy", name: str | None = None) -> Any:
    """Coordinate grids from the 1-D (or flattened) `args`: a list of tensors, one per input.

    ``indexing="xy"`` (Cartesian) swaps the first two output dimensions, ``"ij"`` (matrix) does not. All inputs
    must share one dtype, which the outputs keep.

    Raises:
      TypeError: `indexing` is neither "xy" nor "ij".
      InvalidArgumentError: the inputs' dtypes differ (TF's message: its grids are products with a first-dtype ones).
    """
    if indexing not in ("xy", "ij"):
        raise TypeError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'")
    arrays = [_np(a).reshape(-1) for a in args]
    for other in arrays[1:]:
        if other.dtype != arrays[0].dtype:
            raise _invalid(f"cannot compute Mul as input #1(zero-based) was expected to be a "
                           f"{type_string(other.dtype)} tensor but is a {type_string(arrays[0].dtype)} tensor "
                           "[Op:Mul] name: ")
    checked = cast(Literal["xy", "ij"], indexing)  # one of the two, checked above
    return [_out(g, arrays[0].dtype) for g in np.meshgrid(*arrays, indexing=checked)]


def linspace(start: Any, stop: Any, num: Any, name: str | None = None, axis: Any = 0) -> Any:
    """`num` evenly spaced values from `start` to `stop`, both included, along `axis`.

    The result has start's dtype when it is floating; integers divide as TF's truediv does: float32 for 8- and
    16-bit ones, float64 for 32- and 64-bit ones (so ``linspace(0, 10, 5)`` is float64). Array `start` / `stop` give
    one sequence per entry, laid out along `axis`.

    Raises:
      TypeError: `stop` does not convert to start's dtype (``linspace(0, 1.5, 3)``, as TF).
      InvalidArgumentError: `num` is negative.
      ResourceExhaustedError: the values do not fit in memory.
    """
    s = _np(start)
    e = stop.numpy() if isinstance(stop, Tensor) else \
        np.asarray(_core.tensor.convert_to_tensor(stop, _core.tensor.DType(s.dtype.name)).numpy())
    n = int(_np(num))
    if n < 0:
        raise _invalid(f"Requires num >= 0: {n}")
    dtype = s.dtype if s.dtype.kind == "f" else np.result_type(s.dtype, np.float32)
    try:
        values = np.linspace(s, e, n, axis=axis)
    except MemoryError:  # TF's allocator says the same (num = 2**40 needs terabytes)
        raise errors.ResourceExhaustedError(None, None, f"OOM when allocating the {n} values of linspace") from None
    return _out(values, dtype)


def searchsorted(sorted_sequence: Any, values: TensorLike, side: str = "left", out_type: Any = "int32",
                 name: str | None = None) -> Any:
    """Where each of `values` would go in the innermost dimension of `sorted_sequence` to keep it sorted.

    Args:
      sorted_sequence: a tensor sorted along its last dimension.
      values: the values to place; its leading dimensions match those of `sorted_sequence`.
      side: "left" gives the first suitable index, "right" the last.
      out_type: the dtype of the indices.

    Raises:
      ValueError: `side` is neither "left" nor "right".
      InvalidArgumentError: the leading dimensions differ, or `sorted_sequence` is a scalar.
    """
    seq, vals = _np(sorted_sequence), _np(values)
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = {side}.")
    if seq.ndim == 0 or seq.shape[:-1] != vals.shape[:-1]:
        raise _invalid(f"Leading dims of sorted_sequence {list(seq.shape)} and values {list(vals.shape)} must match")
    flat_seq, flat_vals = seq.reshape(-1, seq.shape[-1]), vals.reshape(-1, vals.shape[-1] if vals.ndim else 1)
    checked = cast(Literal["left", "right"], side)  # one of the two, checked above
    out = np.stack([np.searchsorted(s, v, side=checked) for s, v in zip(flat_seq, flat_vals, strict=True)])
    return _out(out.reshape(vals.shape), out_type)


def histogram_fixed_width(values: TensorLike, value_range: Any, nbins: Any = 100, dtype: Any = "int32",
                          name: str | None = None) -> Any:
    """Counts (a 1-D `dtype` tensor) of `values` in `nbins` equal-width bins over ``value_range`` ``[lo, hi]``.

    Values below `lo` count in the first bin and values from `hi` up in the last, as TF.

    Raises:
      InvalidArgumentError: `nbins` is not positive, or ``value_range`` is not two increasing values.
    """
    v, r, n = _np(values).reshape(-1).astype(np.float64), _np(value_range).astype(np.float64), int(_np(nbins))
    if n <= 0:
        raise _invalid(f"nbins should be a positive number, but got '{n}'")
    if r.shape != (2,) or not r[0] < r[1]:
        raise _invalid(f"value_range should satisfy value_range[0] < value_range[1], but got {r.tolist()}")
    index = np.clip(np.floor((v - r[0]) / (r[1] - r[0]) * n), 0, n - 1).astype(np.int64)  # outliers go to the ends
    return _out(np.bincount(index, minlength=n), dtype)


def boolean_mask(tensor: TensorLike, mask: Any, axis: Any = None, name: str | None = None) -> Any:
    """The entries of `tensor` where `mask` (a bool prefix of its shape, from `axis`) is True."""
    a, m = _np(tensor), _np(mask)
    if m.dtype != np.bool_:
        raise TypeError(f"mask must be a bool tensor, got {m.dtype}")
    if m.ndim == 0:
        raise ValueError("mask cannot be scalar.")
    ax = 0 if axis is None else _axis(axis, a.ndim)
    if a.shape[ax:ax + m.ndim] != m.shape:
        raise ValueError(f"Shapes {a.shape[ax:ax + m.ndim]} and {m.shape} are incompatible")
    flat = a.reshape(a.shape[:ax] + (-1,) + a.shape[ax + m.ndim:])
    result = _out(np.compress(m.reshape(-1), flat, axis=ax), a.dtype)
    if isinstance(tensor, Tensor):
        static_shape.note_data_dependent(result, tensor, ax, m.ndim)
    return result


def _bitwise(fn: Any, name: str) -> Any:
    def op(x: TensorLike, y: TensorLike = None, name: str | None = None) -> Any:
        a = _np(x)
        if a.dtype.kind not in "iu":
            raise TypeError(f"bitwise ops need integer tensors, got {a.dtype}")
        if y is None:
            return _out(fn(a), a.dtype)
        b = _np(y) if isinstance(y, Tensor) else np.asarray(y, a.dtype)
        if b.dtype != a.dtype:
            raise errors.InvalidArgumentError(None, None, f"cannot compute {name} as input #1 was expected to be a "
                                              f"{a.dtype} tensor but is a {b.dtype} tensor")
        return _out(fn(a, b), a.dtype)

    op.__name__ = name
    return op


def _shift(direction: Any) -> Any:
    def fn(a: TensorLike, b: TensorLike) -> Any:
        b = np.clip(b, 0, a.dtype.itemsize * 8 - 1)  # TF leaves shifts out of [0, bits) implementation-defined
        return np.left_shift(a, b) if direction == "left" else np.right_shift(a, b)

    return fn


bitwise_and = _bitwise(np.bitwise_and, "bitwise_and")
bitwise_or = _bitwise(np.bitwise_or, "bitwise_or")
bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor")
invert = _bitwise(np.invert, "invert")
left_shift = _bitwise(_shift("left"), "left_shift")
right_shift = _bitwise(_shift("right"), "right_shift")


# Indexing with one boolean mask (a bool tensor or numpy array) is tf.boolean_mask, as TF's __getitem__ makes it;
# every other index goes to the C++ slicing.
_slice_tensor = Tensor.__getitem__


# Named `self`: the stub generator takes a method whose first parameter is named otherwise for a staticmethod.
def _getitem(self: Tensor, key: object) -> Tensor:
    if ((isinstance(key, Tensor) and key.dtype == _core.tensor.bool)
            or (isinstance(key, np.ndarray) and key.dtype == np.bool_)):
        masked: Tensor = boolean_mask(self, key)
        return masked
    return _slice_tensor(self, key)


Tensor.__getitem__ = _getitem  # type: ignore[method-assign]  # on purpose: the boolean-mask path in front
