"""``tf.SparseTensor`` as far as input pipelines produce it (``VarLenFeature``): indices, values and
dense_shape, converted with ``tf.sparse.to_dense``. String values are kept as a numpy object array of bytes
and shown as a tf.string tensor (``values``, ``to_dense``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tpustrategy import _core
from tpustrategy.framework.string_tensor import StringDType, StringTensor, string
from tpustrategy.framework.tensor import Tensor
from tpustrategy.framework.tensor_shape import ShapeLike, TensorShape


def _as_int64_tensor(value: Any, name: str) -> Tensor:
    if isinstance(value, Tensor) and value.dtype.name == "int64":
        return value  # immutable: kept as it is, as TF's convert_to_tensor keeps it
    array = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
    if array.size and array.dtype.kind not in "iu":
        raise TypeError(f"SparseTensor `{name}` must be integers, got {array.dtype}")
    tensor: Tensor = _core.tensor.constant(array.astype(np.int64), "int64")
    return tensor


class SparseTensor:
    """A sparse tensor: ``values[i]`` is at ``indices[i]`` in a dense tensor of shape ``dense_shape``."""

    # Set by the Example parsers only: the static shape TF gives a parsed VarLenFeature (None where counts vary).
    _static_shape: list[int | None]

    def __init__(self, indices: Any, values: Any, dense_shape: Any) -> None:
        self._indices = _as_int64_tensor(indices, "indices")
        self._dense_shape = _as_int64_tensor(dense_shape, "dense_shape")
        if isinstance(values, StringTensor):
            values = values._array
        self._values: Tensor | np.ndarray[Any, Any]  # an object array of bytes for tf.string values
        if isinstance(values, (Tensor, np.ndarray)) and (not isinstance(values, np.ndarray) or values.dtype == object):
            self._values = values
        else:
            self._values = _core.tensor.convert_to_tensor(values)
        shape = tuple(np.asarray(self._indices).shape)
        rank = np.asarray(self._dense_shape).shape
        if len(shape) != 2 or len(rank) != 1 or shape[1] != rank[0]:
            raise ValueError(f"SparseTensor indices must be [N, rank] with rank = len(dense_shape), got indices of "
                             f"shape {list(shape)} and dense_shape of shape {list(rank)}")
        if len(np.asarray(self._values)) != shape[0]:
            raise ValueError(f"SparseTensor has {shape[0]} indices but {len(np.asarray(self._values))} values")

    @property
    def indices(self) -> Tensor:
        """The int64 ``[N, rank]`` positions of the values."""
        return self._indices

    @property
    def values(self) -> Tensor | StringTensor:
        """The ``[N]`` values, one per row of ``indices``."""
        return StringTensor(self._values) if isinstance(self._values, np.ndarray) else self._values

    @property
    def dense_shape(self) -> Tensor:
        """The int64 ``[rank]`` shape of the dense tensor this represents."""
        return self._dense_shape

    @property
    def dtype(self) -> _core.tensor.DType | StringDType:
        """The dtype of the values."""
        return self._values.dtype if isinstance(self._values, Tensor) else string

    @property
    def shape(self) -> TensorShape:
        """``dense_shape`` as a TensorShape."""
        return TensorShape(np.asarray(self._dense_shape).tolist())

    def __repr__(self) -> str:
        return f"SparseTensor(indices={self._indices}, values={self.values}, dense_shape={self._dense_shape})"

    # tf.nest(expand_composites=True): TF's component order.
    def _composite_components(self) -> list[Any]:
        return [self._indices, self._values, self._dense_shape]

    def _from_composite_components(self, components: list[Any]) -> SparseTensor:
        return SparseTensor(*components)


def to_dense(sp_input: SparseTensor, default_value: Any = None, validate_indices: bool = True,
             name: str | None = None) -> Tensor | StringTensor:
    """The dense tensor of a SparseTensor (missing positions hold `default_value`, 0 / b"" by default)."""
    if not isinstance(sp_input, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor, got {type(sp_input).__name__}")
    shape = tuple(np.asarray(sp_input.dense_shape).tolist())
    indices = np.asarray(sp_input.indices)
    values = sp_input._values
    is_string = not isinstance(values, Tensor)
    array_values = values.numpy() if isinstance(values, Tensor) else values
    if default_value is None:
        default_value = b"" if is_string else 0
    out = np.full(shape, default_value, dtype=object if is_string else array_values.dtype)
    if validate_indices and len(indices):
        if np.any(indices < 0) or np.any(indices >= np.asarray(shape)):
            from tpustrategy.errors import InvalidArgumentError

            raise InvalidArgumentError(None, None, f"indices is out of bounds: indices={indices.tolist()} for "
                                       f"dense_shape={list(shape)}")
    if len(indices):
        out[tuple(indices.T)] = array_values
    if not isinstance(values, Tensor):
        return StringTensor(out)
    dense: Tensor = _core.tensor.constant(out, values.dtype)
    return dense


class SparseTensorSpec:
    """The spec of a SparseTensor dataset component (``tf.SparseTensorSpec``): dense shape and dtype."""

    __slots__ = ("_shape", "_dtype")

    def __init__(self, shape: ShapeLike = None, dtype: object = "float32") -> None:
        self._shape = TensorShape(shape)
        self._dtype = string if dtype == "string" or dtype is string else (
            dtype if not isinstance(dtype, str) else _core.tensor.DType(dtype))

    @property
    def shape(self) -> TensorShape:
        """The described dense shape; None dimensions match any size."""
        return self._shape

    @property
    def dtype(self) -> Any:
        """The dtype of the described values."""
        return self._dtype

    @property
    def value_type(self) -> type[SparseTensor]:
        """SparseTensor, the type of the values this spec describes."""
        return SparseTensor

    @classmethod
    def from_value(cls, value: SparseTensor) -> SparseTensorSpec:
        """The spec of `value`'s dense shape and dtype."""
        return cls(value.shape, value.dtype)

    def is_compatible_with(self, other: object) -> bool:
        """Whether `other` is a SparseTensorSpec of this dtype with a compatible shape (a SparseTensor is not)."""
        return isinstance(other, SparseTensorSpec) and self._dtype == other._dtype and \
            self._shape.is_compatible_with(other._shape)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SparseTensorSpec) and (self._shape, self._dtype) == (other._shape, other._dtype)

    def __hash__(self) -> int:
        return hash((self._shape, str(self._dtype)))

    def __repr__(self) -> str:
        dtype = "tf.string" if self._dtype is string else repr(self._dtype)
        return f"SparseTensorSpec({self._shape!r}, {dtype})"


# A SparseTensor as numpy: indices, values, dense shape, whether the values are strings, their dtype (numeric).
_Parts = tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any], bool, "_core.tensor.DType | None"]


def _parts(sp: SparseTensor) -> _Parts:
    values = sp._values
    if not isinstance(values, Tensor):
        return np.asarray(sp.indices), np.asarray(values, dtype=object), np.asarray(sp.dense_shape).astype(np.int64), \
            True, None
    return np.asarray(sp.indices), values.numpy(), np.asarray(sp.dense_shape).astype(np.int64), False, values.dtype


def _build(indices: Any, values: Any, shape: Sequence[int], is_string: bool,
           dtype: _core.tensor.DType | None) -> SparseTensor:
    indices = np.asarray(indices, np.int64).reshape(-1, len(shape))
    if is_string:
        out = np.empty(len(values), dtype=object)
        out[:] = list(values)
        return SparseTensor(indices, out, shape)
    return SparseTensor(indices, _core.tensor.constant(np.asarray(values), dtype), shape)


def stack(items: list[SparseTensor]) -> SparseTensor:
    """Batches SparseTensors of one rank: row i holds items[i]; each dense dim is the largest of the items'
    (what ``Dataset.batch`` gives in TF)."""
    parts = [_parts(sp) for sp in items]
    ranks = {len(p[2]) for p in parts}
    if len(ranks) != 1:
        from tpustrategy.errors import InvalidArgumentError

        raise InvalidArgumentError(None, None, "Cannot batch SparseTensors of different ranks")
    rank = ranks.pop()
    dims = np.max(np.stack([p[2] for p in parts]), axis=0) if parts else np.zeros(rank, np.int64)
    indices = [np.concatenate([np.full((len(p[0]), 1), i, np.int64), p[0].reshape(-1, rank)], axis=1)
               for i, p in enumerate(parts)]
    values = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0)
    _, _, _, is_string, dtype = parts[0]
    return _build(np.concatenate(indices) if indices else np.zeros((0, rank + 1)), values,
                  [len(parts), *dims.tolist()], is_string, dtype)


def slice_rows(sp: SparseTensor, begin: int, count: int) -> SparseTensor:
    """Rows [begin, begin + count) of a batched SparseTensor (dense shape [count, *rest])."""
    indices, values, shape, is_string, dtype = _parts(sp)
    keep = (indices[:, 0] >= begin) & (indices[:, 0] < begin + count) if len(indices) else np.zeros(0, bool)
    rows = indices[keep].copy()
    if len(rows):
        rows[:, 0] -= begin
    return _build(rows, values[keep], [count, *shape[1:].tolist()], is_string, dtype)


def unstack(sp: SparseTensor) -> list[SparseTensor]:
    """The rows of a batched SparseTensor, each of dense shape ``dense_shape[1:]``."""
    indices, values, shape, is_string, dtype = _parts(sp)
    if len(shape) == 0:
        from tpustrategy.errors import InvalidArgumentError

        raise InvalidArgumentError(None, None, "Input element must have a non-scalar value in each component.")
    out: list[SparseTensor] = []
    for row in range(int(shape[0])):
        keep = indices[:, 0] == row if len(indices) else np.zeros(0, bool)
        out.append(_build(indices[keep][:, 1:], values[keep], shape[1:].tolist(), is_string, dtype))
    return out
