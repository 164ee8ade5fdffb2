"""``tf.RaggedTensor``: rows of different lengths, as pipelines (strings.split, ragged_batch) produce them.

A RaggedTensor is ``values`` (a Tensor, a tf.string tensor or another RaggedTensor) cut into rows by
``row_splits`` (int64, starting at 0, non-decreasing, ending at the number of value rows), TF's encoding.
The row partition is host data (numpy); the values keep their own device. ``ragged_rank`` counts the ragged
dimensions; a dimension made with ``from_uniform_row_length`` reports its size in ``shape`` as TF does.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeAlias, cast

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.framework.string_tensor import StringTensor, is_string_dtype, string
from tpustrategy.framework.tensor_shape import ShapeLike, TensorShape, as_shape
from tpustrategy.ops._args import TensorLike
from tpustrategy.ops.ragged import ragged_broadcast

_Tensor = _core.tensor.Tensor
# What a RaggedTensor's rows are cut from: the next ragged level down, or dense / string flat values.
_Values: TypeAlias = "RaggedTensor | _core.tensor.Tensor | StringTensor"
_BinaryOp = Callable[[Any, Any], Any]


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _int64_tensor(value: Any) -> _core.tensor.Tensor:
    tensor: _core.tensor.Tensor = _core.tensor.constant(value, _core.tensor.int64)
    return tensor


def _elementwise(fn: _BinaryOp, reverse: bool = False) -> Callable[[RaggedTensor, Any], RaggedTensor]:
    """A RaggedTensor operator method applying `fn` to the flat values (RaggedTensor._binary)."""
    def method(self: RaggedTensor, other: Any) -> RaggedTensor:
        return self._binary(other, fn, reverse)

    return method


def _as_values(values: TensorLike) -> _Values:
    if isinstance(values, (RaggedTensor, _Tensor, StringTensor)):
        return values
    from tpustrategy.framework.constant import convert_to_tensor

    return convert_to_tensor(values)


def _ints(value: TensorLike, what: str) -> np.ndarray:
    array = np.asarray(value.numpy() if isinstance(value, _Tensor) else value)
    if array.dtype.kind not in "iu" and array.size:
        raise TypeError(f"{what} must be an integer tensor, got {array.dtype}")
    return array.astype(np.int64)


def _nrows(values: _Values) -> int:
    return values.nrows_int() if isinstance(values, RaggedTensor) else (
        int(values._shape_tuple[0]) if values._shape_tuple else 0)



def positive_axis(axis: Any, rank: int) -> int:
    """`axis` in [0, rank), a negative one counted from the end; TF's ValueError outside [-rank, rank)."""
    value = int(axis)
    if not -rank <= value < rank:
        raise ValueError(f"axis={value} out of bounds: expected {-rank}<=axis<{rank}")
    return value % rank

class RaggedTensor:
    """See the module docstring. Build with the ``from_*`` factories or ``tf.ragged.constant``."""

    __slots__ = ("_values", "_row_splits", "_uniform_row_length")
    _values: _Values
    _row_splits: np.ndarray  # int64, read-only
    _uniform_row_length: int | None

    def __init__(self, values: TensorLike, row_splits: TensorLike, uniform_row_length: TensorLike = None,
                 internal: bool = False) -> None:
        if not internal:
            raise ValueError("RaggedTensor constructor is private; please use one of the factory methods "
                             "instead (e.g., RaggedTensor.from_row_lengths())")
        self._values = values
        self._row_splits = row_splits  # np.int64, read-only
        self._uniform_row_length = uniform_row_length

    # ---- factories ----
    @classmethod
    def from_row_splits(cls, values: TensorLike, row_splits: TensorLike, name: str | None = None,
                        validate: bool = True) -> RaggedTensor:
        """The RaggedTensor whose row i is ``values[row_splits[i]:row_splits[i + 1]]``.

        Args:
          values: the rows to cut: a tensor, a tf.string tensor, a RaggedTensor, or a value tf.convert_to_tensor takes.
          row_splits: 1-D integer offsets: 0 first, non-decreasing, the number of value rows last.
          name: ignored (TF graph name).
          validate: check `row_splits` (the ValueError and InvalidArgumentError below).

        Raises:
          TypeError: `row_splits` is not integer.
          ValueError: `row_splits` is not a non-empty vector.
          InvalidArgumentError: `row_splits` does not start at 0, decreases or does not end at the values' rows.
        """
        values = _as_values(values)
        splits = _ints(row_splits, "row_splits")
        if validate:
            if splits.ndim != 1 or splits.size == 0:
                raise ValueError(f"row_splits must be a non-empty 1-D tensor, got shape {list(splits.shape)}")
            if splits[0] != 0:
                raise _invalid(f"Arguments to from_row_splits do not form a valid RaggedTensor: row_splits[0] is "
                               f"{int(splits[0])}, expected 0")
            if np.any(np.diff(splits) < 0):
                raise _invalid("Arguments to from_row_splits do not form a valid RaggedTensor: row_splits is not "
                               "monotonically non-decreasing")
            if splits[-1] != _nrows(values):
                raise _invalid(f"Arguments to from_row_splits do not form a valid RaggedTensor: row_splits[-1] = "
                               f"{int(splits[-1])} does not match the number of values ({_nrows(values)})")
        splits = splits.copy()
        splits.flags.writeable = False
        return cls(values, splits, internal=True)

    @classmethod
    def from_row_lengths(cls, values: TensorLike, row_lengths: TensorLike, name: str | None = None,
                         validate: bool = True) -> RaggedTensor:
        """The RaggedTensor whose rows take ``row_lengths[0], row_lengths[1], ...`` values in turn.

        Raises:
          TypeError: `row_lengths` is not integer.
          InvalidArgumentError: with `validate`, it is not a non-negative vector summing to the values' rows.
        """
        lengths = _ints(row_lengths, "row_lengths")
        if validate and (lengths.ndim != 1 or np.any(lengths < 0)):
            raise _invalid(f"Arguments to from_row_lengths do not form a valid RaggedTensor: row_lengths must be "
                           f"1-D and non-negative, got {lengths.tolist()}")
        return cls.from_row_splits(values, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
                                   validate=validate)

    @classmethod
    def from_value_rowids(cls, values: TensorLike, value_rowids: TensorLike, nrows: TensorLike = None,
                          name: str | None = None, validate: bool = True) -> RaggedTensor:
        """The RaggedTensor that puts ``values[j]`` in row ``value_rowids[j]``.

        Args:
          values: the rows to distribute (as for from_row_splits).
          value_rowids: the row of each value: 1-D, sorted, non-negative integers.
          nrows: the number of rows (trailing ones may be empty); the last row id + 1 when None.
          name: ignored (TF graph name).
          validate: check `value_rowids` against `nrows`.

        Raises:
          TypeError: `value_rowids` is not integer.
          InvalidArgumentError: with `validate`, the ids are unsorted, negative or not below `nrows`.
        """
        rowids = _ints(value_rowids, "value_rowids")
        count = int(rowids[-1]) + 1 if nrows is None and rowids.size else int(
            np.asarray(nrows.numpy() if isinstance(nrows, _Tensor) else (nrows or 0)))
        if validate and (rowids.ndim != 1 or np.any(np.diff(rowids) < 0) or np.any(rowids < 0) or
                         (rowids.size and rowids[-1] >= count)):
            raise _invalid(f"Arguments to from_value_rowids do not form a valid RaggedTensor: value_rowids must be "
                           f"sorted, non-negative and < nrows ({count}), got {rowids.tolist()}")
        lengths = np.bincount(rowids, minlength=count) if rowids.size else np.zeros(count, np.int64)
        return cls.from_row_lengths(values, lengths, validate=validate)

    @classmethod
    def from_uniform_row_length(cls, values: TensorLike, uniform_row_length: TensorLike, nrows: TensorLike = None,
                                validate: bool = True, name: str | None = None) -> RaggedTensor:
        """Rows of `uniform_row_length` values each: a uniform dimension, whose size ``shape`` reports.

        `nrows` defaults to the number of value rows divided by `uniform_row_length` (0 when that is 0).

        Raises:
          InvalidArgumentError: `uniform_row_length` is negative or does not divide the values' rows, or (with
            `validate`) `nrows` rows of it are not the values' rows.
        """
        values = _as_values(values)
        width = int(uniform_row_length)
        total = _nrows(values)
        if width < 0 or (width and total % width) or (width == 0 and nrows is None and total):
            raise _invalid(f"uniform_row_length {width} does not divide the number of values ({total})")
        rows = int(nrows) if nrows is not None else (total // width if width else 0)
        ragged = cls.from_row_splits(values, np.arange(rows + 1, dtype=np.int64) * width, validate=validate)
        ragged._uniform_row_length = width
        return ragged

    @classmethod
    def from_nested_row_splits(cls, flat_values: TensorLike, nested_row_splits: Iterable[Any],
                               name: str | None = None, validate: bool = True) -> Any:
        """A RaggedTensor, or `flat_values` itself when there are no splits (as TF)."""
        result = flat_values
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values: Any, nested_row_lengths: Iterable[Any], name: str | None = None,
                                validate: bool = True) -> Any:
        """`flat_values` cut by each of `nested_row_lengths`, outermost first (as from_row_lengths, repeatedly).

        Returns:
          A RaggedTensor of ragged_rank ``len(nested_row_lengths)``, or `flat_values` itself when that is 0.
        """
        result = flat_values
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    @classmethod
    def from_tensor(cls, tensor: TensorLike, lengths: TensorLike = None, padding: TensorLike = None,
                    ragged_rank: int = 1, name: str | None = None, row_splits_dtype: Any = None) -> RaggedTensor:
        """Rows of a dense tensor; `lengths` (per row) or `padding` (a value trimmed from row ends) cut them.

        Raises:
          TypeError: `ragged_rank` is not an int. ValueError: it is not positive (TF's errors and texts).
        """
        if not isinstance(ragged_rank, int):
            raise TypeError(f"Argument `ragged_rank` must be an int. Received {ragged_rank}.")
        if ragged_rank <= 0:
            raise ValueError(f"Argument `ragged_rank` must be greater than 0. Received {ragged_rank}.")
        array = np.asarray(tensor.numpy() if hasattr(tensor, "numpy") else tensor, dtype=None)
        strings = isinstance(tensor, StringTensor) or array.dtype == object
        dtype = string if strings else (tensor.dtype if isinstance(tensor, _Tensor) else None)
        if array.ndim < ragged_rank + 1:
            raise ValueError(f"ragged_rank={ragged_rank} needs a tensor of rank > {ragged_rank}, got rank "
                             f"{array.ndim}")
        if lengths is not None:
            row_lengths = _ints(lengths, "lengths")
        elif padding is not None:
            pad = np.asarray(padding.numpy() if hasattr(padding, "numpy") else padding)
            row_lengths = np.array([_trimmed_length(row, pad) for row in array], np.int64)
        else:
            row_lengths = np.full(array.shape[0], array.shape[1] if array.ndim > 1 else 0, np.int64)
        rows = [array[i, :row_lengths[i]] for i in range(array.shape[0])]
        flat = np.concatenate(rows) if rows else array.reshape((0, *array.shape[2:]))
        values = _make_values(flat, dtype)
        result = cls.from_row_lengths(values, row_lengths)
        if ragged_rank > 1:
            inner = cls.from_tensor(values, ragged_rank=ragged_rank - 1)
            result = cls.from_row_splits(inner, result._row_splits)
        if lengths is None and padding is None:  # every row keeps the tensor's length: a uniform dimension, as TF
            result._uniform_row_length = array.shape[1]
        return result

    # ---- what a tensor reports ----
    @property
    def values(self) -> Any:
        """The next level down: a RaggedTensor, a Tensor or a StringTensor."""
        return self._values

    @property
    def row_splits(self) -> _core.tensor.Tensor:
        """The int64 offsets where each row starts, then the end of the last (nrows + 1 entries)."""
        return _int64_tensor(np.asarray(self._row_splits))

    @property
    def ragged_rank(self) -> int:
        """The number of ragged (partitioned) dimensions, uniform ones included."""
        return 1 + (self._values.ragged_rank if isinstance(self._values, RaggedTensor) else 0)

    @property
    def row_splits_dtype(self) -> _core.tensor.DType:
        """The dtype of the row partition: always int64 here."""
        return _core.tensor.int64

    @property
    def uniform_row_length(self) -> _core.tensor.Tensor | None:
        """The rows' length as an int64 scalar when they were made uniform, else None."""
        if self._uniform_row_length is None:
            return None
        return _int64_tensor(self._uniform_row_length)
    _is_ragged = True

    @property
    def flat_values(self) -> Any:
        """The innermost values, below every ragged level: a Tensor or a tf.string tensor."""
        values = self._values
        while isinstance(values, RaggedTensor):
            values = values._values
        return values

    @property
    def nested_row_splits(self) -> tuple[_core.tensor.Tensor, ...]:
        """The row_splits of every ragged level, outermost first."""
        out: list[_core.tensor.Tensor] = []
        node: _Values = self
        while isinstance(node, RaggedTensor):
            out.append(node.row_splits)
            node = node._values
        return tuple(out)

    @property
    def dtype(self) -> Any:
        """The dtype of the flat values."""
        return self.flat_values.dtype

    @property
    def shape(self) -> TensorShape:
        """The static shape: None for a ragged dimension, the size of a uniform one."""
        inner = self._values.shape
        dims = [self.nrows_int(), self._uniform_row_length, *inner.as_list()[1:]]
        return TensorShape(dims)

    def get_shape(self) -> TensorShape:
        """The same as ``shape``."""
        return self.shape

    def _known_rank(self) -> int:
        return cast(int, self.shape.rank)  # never None: shape lists every dimension

    @property
    def _composite_components(self) -> list[Any]:
        return [self.flat_values, *self.nested_row_splits]

    def nrows_int(self) -> int:
        """The number of rows as a Python int (a host-side shortcut TF does not have)."""
        return len(self._row_splits) - 1

    def nrows(self, out_type: Any = None, name: str | None = None) -> _core.tensor.Tensor:
        """The number of rows as a scalar tensor of `out_type` (int64 by default)."""
        nrows: _core.tensor.Tensor = _core.tensor.constant(self.nrows_int(),
                                                          _core.tensor.int64 if out_type is None else out_type)
        return nrows

    def row_lengths(self, axis: int = 1, name: str | None = None) -> Any:
        """The int64 lengths of the rows at `axis`: the row count for 0, a vector for 1, and for a deeper axis a
        RaggedTensor of the sub-row lengths inside each row (a dense axis repeats its size), as TF.

        Raises:
          ValueError: `axis` is outside [-rank, rank) (TF's wording).
        """
        if axis not in (0, 1):
            axis = positive_axis(axis, len(self.shape))
        if axis == 0:
            return self.nrows()
        if axis == 1:
            return _int64_tensor(np.diff(self._row_splits))
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.row_lengths(axis - 1))
        dims = self._values._shape_tuple if isinstance(self._values, _Tensor) else self._values._array.shape
        return self.with_values(_int64_tensor(np.full(dims[:axis - 1], dims[axis - 1], np.int64)))

    def value_rowids(self, name: str | None = None) -> _core.tensor.Tensor:
        """The int64 row of each value (one entry per value row, rows in order)."""
        return _int64_tensor(np.repeat(np.arange(self.nrows_int(), dtype=np.int64), np.diff(self._row_splits)))

    def row_starts(self, name: str | None = None) -> _core.tensor.Tensor:
        """The int64 offset where each row starts in ``values`` (row_splits without its last entry)."""
        return _int64_tensor(self._row_splits[:-1].copy())

    def row_limits(self, name: str | None = None) -> _core.tensor.Tensor:
        """The int64 offset where each row ends in ``values`` (row_splits without its first entry)."""
        return _int64_tensor(self._row_splits[1:].copy())

    def bounding_shape(self, axis: int | None = None, name: str | None = None,
                       out_type: Any = None) -> _core.tensor.Tensor:
        """The shape of the smallest dense tensor holding every row, or its entry at `axis`, as `out_type`
        (int64, the row partition's dtype, by default)."""
        shape = _bounding(self)
        dtype = _core.tensor.int64 if out_type is None else _core.tensor.DType(out_type)
        bounds: _core.tensor.Tensor = _core.tensor.constant(shape if axis is None else shape[int(axis)], dtype)
        return bounds

    def with_values(self, new_values: TensorLike) -> RaggedTensor:
        """The same row partition over `new_values` instead of ``values``.

        Raises:
          ValueError: `new_values` does not have as many rows as ``values``.
        """
        new_values = _as_values(new_values)
        if _nrows(new_values) != _nrows(self._values):
            raise ValueError(f"with_values: new values have {_nrows(new_values)} rows, expected {_nrows(self._values)}")
        return RaggedTensor(new_values, self._row_splits, self._uniform_row_length, internal=True)

    def with_flat_values(self, new_values: TensorLike) -> RaggedTensor:
        """The same row partitions, every level of them, over `new_values` instead of ``flat_values``.

        Raises:
          ValueError: `new_values` does not have as many rows as ``flat_values``.
        """
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    # ---- conversions ----
    def to_list(self) -> list[Any]:
        """The rows as nested Python lists (bytes for strings)."""
        values = self._values
        rows = values.to_list() if isinstance(values, RaggedTensor) else np.asarray(
            values._array if isinstance(values, StringTensor) else values.numpy()).tolist()
        return [rows[self._row_splits[i]:self._row_splits[i + 1]] for i in range(self.nrows_int())]

    def numpy(self) -> np.ndarray:
        """TF's: the rows as one numpy array when they all have one length, else an object array of the rows."""
        values = self._values
        flat = values.numpy() if isinstance(values, RaggedTensor) else np.asarray(
            values._array if isinstance(values, StringTensor) else values.numpy())
        splits = self._row_splits
        rows = [flat[splits[i]:splits[i + 1]] for i in range(self.nrows_int())]
        if not rows:
            return np.zeros((0, 0, *flat.shape[1:]), dtype=flat.dtype)
        if any(len(row) != len(rows[0]) for row in rows):
            out = np.empty(len(rows), dtype=object)
            out[:] = rows
            return out
        return np.array(rows)

    def to_tensor(self, default_value: TensorLike = None, name: str | None = None, shape: Any = None) -> Any:
        """The dense tensor, rows padded with `default_value` (0 / b"") to the bounding shape, or cut / padded to
        `shape` (its None entries take the bounding size)."""
        bounding = _bounding(self)
        if shape is not None:
            want = as_shape(shape)
            if want.rank is not None:
                if want.rank != len(bounding):
                    raise ValueError(f"shape {want} must have rank {len(bounding)}")
                bounding = [b if d is None else d for b, d in zip(bounding, want.as_list(), strict=True)]
        strings = self.dtype is string
        fill = (b"" if default_value is None else _scalar_bytes(default_value)) if strings else (
            0 if default_value is None else np.asarray(default_value.numpy() if hasattr(default_value, "numpy")
                                                       else default_value))
        out = np.full(bounding, fill, dtype=object if strings else np.dtype(self.dtype.as_numpy_dtype))
        _fill_dense(self, out)
        return StringTensor(out) if strings else _core.tensor.constant(out, self.dtype)

    # ---- protocols ----
    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(self.nrows_int()))

    def __len__(self) -> int:
        return self.nrows_int()

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, _Tensor):
            key = int(key.numpy())
        if key is Ellipsis or key is None:
            key = (key,)
        if isinstance(key, tuple):
            return self._getitem_nested(key)
        if isinstance(key, slice):
            return self._row_slice(key)
        index = int(key)
        count = self.nrows_int()
        if index < -count or index >= count:
            raise _invalid(f"slice index {index} of dimension 0 out of bounds (nrows = {count})")
        index %= count
        return _rows(self._values, int(self._row_splits[index]), int(self._row_splits[index + 1]))

    def _row_slice(self, key: slice) -> RaggedTensor:
        start, stop, step = key.indices(self.nrows_int())
        if step == 1:
            stop = max(stop, start)
            lo, hi = int(self._row_splits[start]), int(self._row_splits[stop])
            return RaggedTensor.from_row_splits(_rows(self._values, lo, hi), self._row_splits[start:stop + 1] - lo,
                                                validate=False)
        return self._gather_rows(list(range(start, stop, step)))

    def _gather_rows(self, picked: list[int]) -> RaggedTensor:
        """Rows `picked` (any order) as a RaggedTensor of len(picked) rows."""
        lengths = [int(self._row_splits[i + 1] - self._row_splits[i]) for i in picked]
        parts = [_rows(self._values, int(self._row_splits[i]), int(self._row_splits[i + 1])) for i in picked]
        values = _concat_values(parts) if parts else _rows(self._values, 0, 0)
        result = RaggedTensor.from_row_lengths(values, np.asarray(lengths, dtype=np.int64), validate=False)
        result._uniform_row_length = self._uniform_row_length
        return result

    def _getitem_nested(self, key: tuple[Any, ...]) -> Any:
        """``rt[k0, k1, ...]``: k0 picks rows, the rest applies inside every row (TF's ragged __getitem__)."""
        if not key:
            return self
        if any(k is Ellipsis or k is None for k in key):
            return self._getitem_expanded(key)
        head, rest = key[0], key[1:]
        if not isinstance(head, slice):
            row = self[head]
            return row[rest] if rest else row
        rows = self._row_slice(head)
        if not rest:
            return rows
        inner = rest[0]
        if not isinstance(inner, slice) and self._uniform_row_length is None:
            raise ValueError("Cannot index into an inner ragged dimension.")
        pieces = [row[rest] if not isinstance(row, RaggedTensor) else row._getitem_nested(rest) for row in rows]
        if not isinstance(inner, slice):  # a uniform dimension indexed away: the rows' results stacked
            return stack(pieces) if pieces else _rows(self._values, 0, 0)
        if not pieces:
            return rows
        return RaggedTensor.from_row_lengths(_concat_values(pieces), [_nrows(p) for p in pieces], validate=False)

    def _getitem_expanded(self, key: tuple[Any, ...]) -> Any:
        """Indexing with ``...`` (as many full slices as the rank leaves; a second one adds none) and
        ``tf.newaxis`` (a dimension of size 1 where it stands in the result), as TF's ragged __getitem__."""
        explicit = sum(1 for k in key if k is not Ellipsis and k is not None)
        spread: list[Any] = []
        for i, k in enumerate(key):
            if k is Ellipsis:
                if Ellipsis not in key[:i]:
                    spread.extend([slice(None)] * max(self._known_rank() - explicit, 0))
            else:
                spread.append(k)
        new_axes: list[int] = []
        plain: list[Any] = []
        for k in spread:
            if k is None:
                new_axes.append(len(new_axes) + sum(isinstance(p, slice) for p in plain))
            else:
                plain.append(k)
        result = self._getitem_nested(tuple(plain))
        for axis in new_axes:
            result = _insert_unit_axis(result, axis)
        return result

    def _compare(self, other: Any, op: _BinaryOp) -> RaggedTensor | None:
        """``==`` / ``!=``: element-wise where the operands broadcast (TF's ragged dispatch); otherwise, as TF's
        Tensor equality, a Python bool (False for ==)."""
        try:
            return self._binary(other, op)
        except (errors.InvalidArgumentError, ValueError, TypeError):
            return None

    def __eq__(self, other: object) -> RaggedTensor | bool:  # type: ignore[override]  # element-wise, as TF
        result = self._compare(other, lambda a, b: a == b)
        return False if result is None else result

    def __ne__(self, other: object) -> RaggedTensor | bool:  # type: ignore[override]  # element-wise, as TF
        result = self._compare(other, lambda a, b: a != b)
        return True if result is None else result

    __hash__ = object.__hash__

    def _binary(self, other: Any, op: _BinaryOp, reverse: bool = False) -> RaggedTensor:
        """An element-wise op on the flat values (TF's ragged dispatch): a RaggedTensor of the same row partitions,
        a scalar, or a dense operand broadcast against the rows (ragged_broadcast.py)."""
        ragged = self
        if isinstance(other, RaggedTensor):
            ours, theirs = _all_splits(self), _all_splits(other)
            if len(ours) != len(theirs) or not all(np.array_equal(a, b) for a, b in zip(ours, theirs, strict=True)):
                raise _invalid("Inputs must have identical ragged splits")
            other = other.flat_values
        else:
            ragged, other = ragged_broadcast.align(self, _as_values(other))
        values = ragged.flat_values
        return ragged.with_flat_values(op(other, values) if reverse else op(values, other))

    # The operators of TF's ragged_operators: element-wise on the flat values, reflected forms included.
    __add__ = _elementwise(operator.add)
    __radd__ = _elementwise(operator.add, reverse=True)
    __sub__ = _elementwise(operator.sub)
    __rsub__ = _elementwise(operator.sub, reverse=True)
    __mul__ = _elementwise(operator.mul)
    __rmul__ = _elementwise(operator.mul, reverse=True)
    __truediv__ = _elementwise(operator.truediv)
    __rtruediv__ = _elementwise(operator.truediv, reverse=True)
    __floordiv__ = _elementwise(operator.floordiv)
    __rfloordiv__ = _elementwise(operator.floordiv, reverse=True)
    __mod__ = _elementwise(operator.mod)
    __rmod__ = _elementwise(operator.mod, reverse=True)
    __pow__ = _elementwise(operator.pow)
    __rpow__ = _elementwise(operator.pow, reverse=True)
    __and__ = _elementwise(operator.and_)
    __rand__ = _elementwise(operator.and_, reverse=True)
    __or__ = _elementwise(operator.or_)
    __ror__ = _elementwise(operator.or_, reverse=True)
    __lt__ = _elementwise(operator.lt)
    __le__ = _elementwise(operator.le)
    __gt__ = _elementwise(operator.gt)
    __ge__ = _elementwise(operator.ge)

    def __neg__(self) -> RaggedTensor:
        return self.with_flat_values(-self.flat_values)

    def __abs__(self) -> RaggedTensor:
        return self.with_flat_values(abs(self.flat_values))

    def __invert__(self) -> RaggedTensor:
        return self.with_flat_values(~self.flat_values)

    def __bool__(self) -> bool:
        raise TypeError("RaggedTensor may not be used as a boolean.")

    def __repr__(self) -> str:
        # As TF: numpy's layout (one row per line when the rows have one length), elements comma-separated.
        with np.printoptions(formatter={"all": _format_numpy}):
            return f"<tf.RaggedTensor {_format_numpy(self.numpy())}>"

    def __str__(self) -> str:
        return f"<tf.RaggedTensor {self.to_list()!r}>"


def _format_numpy(x: Any) -> str:
    if not isinstance(x, np.ndarray):
        return str(x)
    # array2string prints any empty array as "[]"; the nested list keeps an empty array's shape ([[], []]).
    return np.array2string(x, separator=", ") if x.size else repr(x.tolist())


def _rows(values: _Values, lo: int, hi: int) -> _Values:
    """Rows [lo, hi) of a values tensor (dense, string or ragged)."""
    if isinstance(values, RaggedTensor):
        rows: RaggedTensor = values[lo:hi]
        return rows
    if isinstance(values, StringTensor):
        return StringTensor(values._array[lo:hi])
    return _core.data.slice_rows(values, lo, hi - lo)


def _insert_unit_axis(value: _Values, axis: int) -> _Values:
    """`value` (ragged, dense or string) with a new dimension of size 1 at `axis` (uniform when ragged)."""
    if isinstance(value, StringTensor):
        return StringTensor(np.expand_dims(value._array, axis))
    if not isinstance(value, RaggedTensor):
        return value[(slice(None),) * axis + (None,)]
    if axis == 0:
        return RaggedTensor.from_uniform_row_length(value, value.nrows_int(), nrows=1, validate=False)
    if axis == 1:
        return RaggedTensor.from_uniform_row_length(value, 1, nrows=value.nrows_int(), validate=False)
    return value.with_values(_insert_unit_axis(value._values, axis - 1))


def _all_splits(rt: RaggedTensor) -> list[np.ndarray]:
    return [np.asarray(s.numpy()) for s in rt.nested_row_splits]


def _bounding(rt: RaggedTensor) -> list[int]:
    lengths = np.diff(rt._row_splits)
    width = rt._uniform_row_length if rt._uniform_row_length is not None else int(lengths.max(initial=0))
    inner = _bounding(rt._values) if isinstance(rt._values, RaggedTensor) else list(rt._values._shape_tuple)
    return [rt.nrows_int(), width, *inner[1:]]


def _fill_dense(rt: RaggedTensor, out: np.ndarray) -> None:
    values = rt._values
    dense_values = None if isinstance(values, RaggedTensor) else np.asarray(
        values._array if isinstance(values, StringTensor) else values.numpy())
    for i in range(min(rt.nrows_int(), out.shape[0])):
        lo, hi = int(rt._row_splits[i]), int(rt._row_splits[i + 1])
        hi = min(hi, lo + out.shape[1])
        if dense_values is None:
            _fill_dense(cast(RaggedTensor, values)[lo:hi], out[i])  # no dense values: ragged ones
        else:
            block = dense_values[lo:hi]
            index = (slice(0, hi - lo), *[slice(0, min(a, b)) for a, b in zip(block.shape[1:], out.shape[2:],
                                                                                strict=True)])
            source = (slice(None), *index[1:])  # a local: mypy reads x[(a, *b)] as 3.11's x[a, *b]
            out[i][index] = block[source]


def _trimmed_length(row: np.ndarray, pad: Any) -> int:
    length = len(row)
    while length and np.all(row[length - 1] == pad):
        length -= 1
    return length


def _scalar_bytes(value: Any) -> bytes:
    if isinstance(value, StringTensor):
        item: bytes = value._array.item()
        return item
    return value.encode() if isinstance(value, str) else bytes(value)


def _make_values(array: np.ndarray, dtype: Any) -> _core.tensor.Tensor | StringTensor:
    if dtype is string or array.dtype == object or array.dtype.kind in "SU":
        return StringTensor(np.asarray(array, dtype=object))
    tensor: _core.tensor.Tensor = (_core.tensor.constant(array, dtype) if dtype is not None
                                   else _core.tensor.convert_to_tensor(array))
    return tensor


class RaggedTensorSpec:
    """The type of a RaggedTensor (``tf.RaggedTensorSpec``): shape (None where ragged), dtype, ragged_rank."""

    __slots__ = ("_shape", "_dtype", "_ragged_rank", "_row_splits_dtype")

    def __init__(self, shape: ShapeLike = None, dtype: object = _core.tensor.float32, ragged_rank: int | None = None,
                 row_splits_dtype: object = _core.tensor.int64, flat_values_spec: object = None) -> None:
        self._shape = as_shape(shape)
        self._dtype = string if is_string_dtype(dtype) else _core.tensor.DType(dtype)
        rank = self._shape.rank
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if rank is not None and not 0 <= ragged_rank < max(rank, 1):
            raise ValueError(f"ragged_rank must be non-negative and less than the rank ({rank}), got {ragged_rank}")
        self._ragged_rank = int(ragged_rank)
        self._row_splits_dtype = _core.tensor.DType(row_splits_dtype)

    @property
    def shape(self) -> TensorShape:
        """The shape the spec allows (None where ragged or unknown)."""
        return self._shape

    @property
    def dtype(self) -> Any:
        """The dtype of the flat values."""
        return self._dtype

    @property
    def ragged_rank(self) -> int:
        """The number of ragged dimensions; 0 describes a dense Tensor."""
        return self._ragged_rank

    @property
    def row_splits_dtype(self) -> _core.tensor.DType:
        """The dtype of the row partition."""
        return self._row_splits_dtype

    @property
    def value_type(self) -> type:
        """The type of the values the spec describes: RaggedTensor, or Tensor when ragged_rank is 0."""
        return RaggedTensor if self._ragged_rank > 0 else _Tensor

    @classmethod
    def from_value(cls, value: RaggedTensor) -> RaggedTensorSpec:
        """The spec of `value`: its shape, dtype and ragged_rank."""
        return cls(value.shape, value.dtype, value.ragged_rank)

    def is_compatible_with(self, other: Any) -> bool:
        """Whether `other` (a RaggedTensorSpec or a RaggedTensor) has this dtype and ragged_rank and a compatible
        shape; row_splits_dtype is not compared."""
        if isinstance(other, RaggedTensor):
            other = RaggedTensorSpec.from_value(other)
        return (isinstance(other, RaggedTensorSpec) and self._dtype == other._dtype and
                self._ragged_rank == other._ragged_rank and self._shape.is_compatible_with(other._shape))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, RaggedTensorSpec) and self._shape == other._shape and self._dtype == other._dtype
                and self._ragged_rank == other._ragged_rank)

    def __hash__(self) -> int:
        return hash((self._shape, repr(self._dtype), self._ragged_rank))

    def __repr__(self) -> str:
        return (f"RaggedTensorSpec({self._shape!r}, {self._dtype!r}, {self._ragged_rank}, "
                f"{self._row_splits_dtype!r})")


def constant(pylist: Any, dtype: Any = None, ragged_rank: int | None = None,
             inner_shape: tuple[int, ...] | None = None, name: str | None = None,
             row_splits_dtype: Any = _core.tensor.int64) -> RaggedTensor | _core.tensor.Tensor | StringTensor:
    """``tf.ragged.constant``: a RaggedTensor from a nested Python list (ragged_rank = its depth - 1 unless
    given; the dims below it must be uniform); ragged_rank=0 gives a dense tensor, as in TF."""
    depth = _depth(pylist)
    if depth == 0:
        raise ValueError("tf.ragged.constant needs a list; use tf.constant for a scalar")
    if ragged_rank is None:
        ragged_rank = max(depth - 1 - (len(inner_shape) if inner_shape else 0), 1) if depth > 1 else 1
    if ragged_rank < 0:
        raise ValueError(f"Invalid ragged_rank={ragged_rank}: it must be non-negative")
    if ragged_rank == 0:
        from tpustrategy.framework.constant import constant as dense_constant

        return dense_constant(pylist, dtype)
    level: list[Any] = list(pylist)
    nested: list[list[int]] = []
    for _ in range(ragged_rank):
        lengths = []
        flat: list[Any] = []
        for item in level:
            if not isinstance(item, (list, tuple, np.ndarray)):
                raise ValueError(f"all scalar values must have the same nesting depth: {pylist!r}")
            lengths.append(len(item))
            flat.extend(item)
        nested.append(lengths)
        level = flat
    values = _leaf_values(level, dtype, inner_shape)
    ragged: RaggedTensor = RaggedTensor.from_nested_row_lengths(values, nested)  # ragged_rank >= 1 levels
    return ragged


def _depth(value: Any) -> int:
    if isinstance(value, (list, tuple)):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, np.ndarray):
        return value.ndim
    return 0


def _leaf_values(level: list[Any], dtype: Any, inner_shape: tuple[int, ...] | None) -> _Tensor | StringTensor:
    from tpustrategy.framework.constant import constant as dense_constant

    if not level:
        shape = (0, *(inner_shape or ()))
        if is_string_dtype(dtype):
            return StringTensor(np.empty(shape, dtype=object))
        zeros = np.zeros(shape, np.dtype(_core.tensor.DType(dtype or _core.tensor.float32).as_numpy_dtype))
        empty: _Tensor = _core.tensor.constant(zeros, _core.tensor.DType(dtype or _core.tensor.float32))
        return empty
    try:
        return dense_constant(level, dtype)
    except (ValueError, TypeError) as e:
        raise ValueError(f"inner values of the ragged tensor do not form a uniform tensor: {e}") from None


def _concat_values(parts: list[Any]) -> _Values:
    """The rows of `parts` (all dense, all string or all ragged) one after another."""
    first = parts[0]
    if isinstance(first, RaggedTensor):
        offsets = np.cumsum([0] + [int(p._row_splits[-1]) for p in parts[:-1]])
        splits = np.concatenate([[0]] + [p._row_splits[1:] + o for p, o in zip(parts, offsets, strict=True)])
        result = RaggedTensor.from_row_splits(_concat_values([p._values for p in parts]), splits.astype(np.int64),
                                              validate=False)
        widths = {p._uniform_row_length for p in parts}
        if len(widths) == 1:  # rows of one uniform length stay uniform
            result._uniform_row_length = widths.pop()
        return result
    if isinstance(first, StringTensor):
        return StringTensor(np.concatenate([p._array for p in parts]))
    return _core.ops.concat(list(parts), 0)


def _as_ragged_row(value: _Values, ragged_rank: int) -> _Values:
    """One element to be stacked: a RaggedTensor, or a dense tensor made ragged in its `ragged_rank` dims."""
    if isinstance(value, RaggedTensor):
        return value
    if ragged_rank <= 1:
        return value
    return RaggedTensor.from_tensor(value, ragged_rank=ragged_rank - 1)


def stack(values: Iterable[Any], axis: int = 0,
          name: str | None = None) -> RaggedTensor | _core.tensor.Tensor | StringTensor:
    """``tf.ragged.stack`` along axis 0: one row per input (dense inputs of any length become ragged rows; scalars
    stack into a dense vector)."""
    if int(axis) != 0:
        raise NotImplementedError("tf.ragged.stack: only axis=0 is built")
    values = [v if isinstance(v, (RaggedTensor, _Tensor, StringTensor)) else _as_values(v) for v in values]
    if not values:
        raise ValueError("tf.ragged.stack needs at least one value")
    ragged = [v for v in values if isinstance(v, RaggedTensor)]
    rank = ragged[0].ragged_rank + 1 if ragged else max(len(values[0]._shape_tuple), 1)
    rows = [_as_ragged_row(v, rank - 1 if ragged else rank) for v in values]
    if any(len(r.shape) == 0 if not isinstance(r, RaggedTensor) else False for r in rows):
        scalars = [np.asarray(r._array if isinstance(r, StringTensor) else r.numpy()) for r in rows]
        return _make_values(np.stack(scalars), values[0].dtype)
    dtypes = {repr(r.dtype) for r in rows}
    if len(dtypes) > 1:
        raise _invalid(f"tf.ragged.stack: all values must have the same dtype, got {sorted(dtypes)}")
    lengths = [r.nrows_int() if isinstance(r, RaggedTensor) else r._shape_tuple[0] for r in rows]
    result = RaggedTensor.from_row_lengths(_concat_values(rows), lengths, validate=False)
    if ragged and len(ragged) == len(rows) and len(set(lengths)) == 1:
        result._uniform_row_length = lengths[0]  # stacked ragged values of one row count: a uniform dim, as TF
    return result
