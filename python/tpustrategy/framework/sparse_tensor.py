"""``tf.SparseTensor`` as far as input pipelines produce it (``VarLenFeature``): indices, values and
dense_shape, converted with ``tf.sparse.to_dense``. String values stay a numpy object array of bytes
(Tensor has no string dtype)."""

from __future__ import annotations

import numpy as np

from tpustrategy import _core
from tpustrategy.framework.tensor import Tensor
from tpustrategy.framework.tensor_shape import TensorShape


def _as_int64_tensor(value, name: str):
    array = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
    if array.size and array.dtype.kind not in "iu":
        raise TypeError(f"SparseTensor `{name}` must be integers, got {array.dtype}")
    return _core.constant(array.astype(np.int64), "int64")


class SparseTensor:
    """A sparse tensor: ``values[i]`` is at ``indices[i]`` in a dense tensor of shape ``dense_shape``."""

    def __init__(self, indices, values, dense_shape):
        self._indices = _as_int64_tensor(indices, "indices")
        self._dense_shape = _as_int64_tensor(dense_shape, "dense_shape")
        if isinstance(values, (Tensor, np.ndarray)) and (not isinstance(values, np.ndarray) or values.dtype == object):
            self._values = values
        else:
            self._values = _core.convert_to_tensor(values)
        shape = tuple(np.asarray(self._indices).shape)
        rank = np.asarray(self._dense_shape).shape
        if len(shape) != 2 or len(rank) != 1 or shape[1] != rank[0]:
            raise ValueError(f"SparseTensor indices must be [N, rank] with rank = len(dense_shape), got indices of "
                             f"shape {list(shape)} and dense_shape of shape {list(rank)}")
        if len(np.asarray(self._values)) != shape[0]:
            raise ValueError(f"SparseTensor has {shape[0]} indices but {len(np.asarray(self._values))} values")

    indices = property(lambda self: self._indices)
    values = property(lambda self: self._values)
    dense_shape = property(lambda self: self._dense_shape)

    @property
    def dtype(self):
        return self._values.dtype if isinstance(self._values, Tensor) else "string"

    @property
    def shape(self) -> TensorShape:
        return TensorShape(np.asarray(self._dense_shape).tolist())

    def __repr__(self):
        return f"SparseTensor(indices={self._indices}, values={self._values}, dense_shape={self._dense_shape})"

    # tf.nest(expand_composites=True): TF's component order.
    def _composite_components(self) -> list:
        return [self._indices, self._values, self._dense_shape]

    def _from_composite_components(self, components: list):
        return SparseTensor(*components)


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor of a SparseTensor (missing positions hold `default_value`, 0 / b"" by default)."""
    if not isinstance(sp_input, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor, got {type(sp_input).__name__}")
    shape = tuple(np.asarray(sp_input.dense_shape).tolist())
    indices = np.asarray(sp_input.indices)
    values = sp_input.values
    is_string = not isinstance(values, Tensor)
    array_values = values if is_string else values.numpy()
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
    return out if is_string else _core.constant(out, values.dtype)
