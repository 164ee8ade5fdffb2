"""``tf.io.FixedLenFeature`` / ``VarLenFeature`` and ``parse_example`` / ``parse_single_example``.

Parsing runs in C++ (cpp/tpustrategy/data/example_parse.*) over the whole batch with the GIL
released. float32 and int64 features come back as Tensors, ``tf.string`` features as tf.string tensors
(framework/string_tensor.py); the input may be a string tensor, bytes or a list of them. A VarLenFeature is a
``tf.SparseTensor`` (indices ``[N, 2]`` for a batch, ``[N, 1]`` for one example).
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.framework.sparse_tensor import SparseTensor
from tpustrategy.framework.string_tensor import StringTensor, string, to_bytes
from tpustrategy.framework.tensor import Tensor
from tpustrategy.framework.tensor_shape import TensorShape

# What the C++ parser takes per feature: (key, kind, variable length, dims, default as (kind, values) or None).
FeatureConfig: TypeAlias = tuple[str, int, bool, list[int], tuple[int, list[Any]] | None]

_KIND = {"string": 1, "float32": 2, "int64": 3}


def _kind_of(dtype: Any) -> int:
    name = getattr(dtype, "name", dtype)
    if dtype is string or name == "string":
        return 1
    if name in ("float32", "float"):
        return 2
    if name == "int64":
        return 3
    raise ValueError(f"Unsupported dtype {dtype!r}: features must be tf.float32, tf.int64 or tf.string.")


class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature with a fixed number of values, parsed into a dense tensor of `shape`."""

    def __new__(cls, shape: Any, dtype: Any, default_value: Any = None) -> FixedLenFeature:
        return super().__new__(cls, shape, dtype, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature with any number of values, parsed into a SparseTensor."""


class FixedLenSequenceFeature(collections.namedtuple("FixedLenSequenceFeature",
                                                     ["shape", "dtype", "allow_missing", "default_value"])):
    """Any number of values, grouped in items of `shape`: a dense ``[num_items, *shape]`` tensor per Example
    (batched: padded with `default_value` to the longest Example). Parsed as a VarLenFeature in C++, then
    densified here. In ``parse_example`` `allow_missing` must be True, as TF requires."""

    def __new__(cls, shape: Any, dtype: Any, allow_missing: bool = False,
                default_value: Any = None) -> FixedLenSequenceFeature:
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


def known_dims(key: str, shape: Any) -> list[int]:
    """The dims of a feature's shape; ValueError naming the key when one is unknown (as TF)."""
    shape = TensorShape(shape)
    if shape.rank is None or not shape.is_fully_defined():
        raise ValueError(f"All dimensions of shape for feature {key} need to be known but received {shape}.")
    return [int(d) for d in shape.as_list()]


def _config(key: str, feature: object) -> FeatureConfig:
    if isinstance(feature, FixedLenSequenceFeature):
        if not feature.allow_missing:
            raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to be True.")
        known_dims(key, feature.shape)
        return (key, _kind_of(feature.dtype), True, [], None)
    if isinstance(feature, VarLenFeature):
        return (key, _kind_of(feature.dtype), True, [], None)
    if not isinstance(feature, FixedLenFeature):
        raise ValueError(f"Unsupported feature type for {key!r}: {type(feature).__name__} (FixedLenFeature and "
                         f"VarLenFeature are supported).")
    kind = _kind_of(feature.dtype)
    dims = known_dims(key, feature.shape)
    default: tuple[int, list[Any]] | None = None
    if feature.default_value is not None:
        value = feature.default_value
        value = value.numpy() if isinstance(value, Tensor) else value
        flat = np.asarray(value, dtype=object if kind == 1 else None).reshape(-1)
        size = int(np.prod(dims))
        if flat.size == 1 and size != 1:
            flat = np.repeat(flat, size)
        if flat.size != size:
            raise ValueError(f"Cannot reshape the default value of {key!r} ({flat.size} values) to shape {dims}.")
        if kind == 1:
            default = (1, [to_bytes(v) for v in flat])
        else:
            default = (kind, flat.astype(np.float32 if kind == 2 else np.int64).tolist())
    return (key, kind, False, dims, default)


def serialized_list(serialized: Any) -> Sequence[Any]:
    if isinstance(serialized, (bytes, str)):
        raise ValueError("`serialized` must be a vector of serialized Examples for parse_example; use "
                         "parse_single_example for one.")
    if isinstance(serialized, StringTensor):
        serialized = serialized._array
    if isinstance(serialized, np.ndarray):
        if serialized.ndim != 1:
            raise ValueError(f"Input serialized must be a vector, got shape {list(serialized.shape)}")
        items: list[Any] = serialized.tolist()
        return items
    # Items stay as they are: the C++ parser reads bytes (numpy.bytes_ too) and str (as UTF-8) itself.
    return serialized if isinstance(serialized, (list, tuple)) else list(serialized)


def parse_features(serialized: Sequence[Any], features: dict[str, Any], batched: bool) -> dict[str, Any]:
    if not isinstance(features, dict) or not features:
        raise ValueError("Invalid `features`: a non-empty dict of FixedLenFeature / VarLenFeature is required.")
    keys = sorted(features)
    columns = _core.example.parse_examples(serialized, [_config(k, features[k]) for k in keys])
    n = len(serialized)
    out: dict[str, Any] = {}
    for key, (values, lengths, indices) in zip(keys, columns, strict=True):
        feature = features[key]
        is_string = values.dtype == object
        if isinstance(feature, FixedLenSequenceFeature):
            out[key] = _dense_sequences(key, feature, values, lengths, batched)
            continue
        if isinstance(feature, VarLenFeature):
            width = int(lengths.max()) if n else 0
            # indices: [values, 2] (example, position); one example keeps the position only.
            indices, shape = (indices, [n, width]) if batched else (indices[:, 1:], [width])
            values = values if is_string else _core.tensor.constant(values)
            sparse = SparseTensor(_core.tensor.constant(indices), values, shape)
            sparse._static_shape = [n, None] if batched else [None]  # the value counts vary between Examples
            out[key] = sparse
            continue
        shape = ([n] if batched else []) + known_dims(key, feature.shape)
        values = values.reshape(shape)
        out[key] = StringTensor(values) if is_string else _core.tensor.constant(values)
    return out


def _dense_sequences(key: str, feature: FixedLenSequenceFeature, values: np.ndarray, lengths: np.ndarray,
                     batched: bool) -> Tensor | StringTensor:
    """One Example's values as [num_items, *shape]; a batch padded with the default to the longest."""
    item_shape = known_dims(key, feature.shape)
    stride = int(np.prod(item_shape)) if item_shape else 1
    is_string = values.dtype == object
    kind = "string" if is_string else values.dtype.name
    for index, length in enumerate(lengths.tolist()):
        if length % stride:
            if batched:
                dims = ",".join(map(str, item_shape))
                raise errors.InvalidArgumentError(
                    None, None, f"Name: <unknown>, Key: {key}, Index: {index}. Number of {kind} values is not a "
                    f"multiple of stride length. Saw {length} values but output shape is: [?,{dims}]")
            raise errors.InvalidArgumentError(None, None, f"Error while parsing feature with key {key}: number of "
                                              f"elements should be divisible by {stride}, found {length} instead")
    items = lengths // stride
    if not batched:
        array = values.reshape([int(items[0]), *item_shape])
        return StringTensor(array) if is_string else _core.tensor.constant(array)
    width = int(items.max()) if len(items) else 0
    default = feature.default_value
    if default is None:
        default = b"" if is_string else 0
    out = np.full([len(items), width * stride], default, dtype=object if is_string else values.dtype)
    starts = np.cumsum(lengths) - lengths
    for row, (start, length) in enumerate(zip(starts.tolist(), lengths.tolist(), strict=True)):
        out[row, :length] = values[start:start + length]
    out = out.reshape([len(items), width, *item_shape])
    return StringTensor(out) if is_string else _core.tensor.constant(out)


def parse_example(serialized: Any, features: dict[str, Any], example_names: Any = None,
                  name: str | None = None) -> dict[str, Any]:
    """Parses a vector of serialized Examples into a dict of batched features (``tf.io.parse_example``)."""
    return parse_features(serialized_list(serialized), features, batched=True)


def parse_single_example(serialized: Any, features: dict[str, Any], example_names: Any = None,
                         name: str | None = None) -> dict[str, Any]:
    """Parses one serialized Example (``tf.io.parse_single_example``)."""
    return parse_features([single_serialized(serialized)], features, batched=False)


def single_serialized(serialized: Any) -> bytes:
    """A scalar serialized proto (bytes, str, a scalar string tensor or array) as bytes; ValueError otherwise."""
    if isinstance(serialized, StringTensor):
        serialized = serialized._array
    if isinstance(serialized, np.ndarray) and serialized.ndim == 0:
        serialized = serialized.item()
    if isinstance(serialized, str):
        serialized = serialized.encode()
    if not isinstance(serialized, bytes):
        raise ValueError(f"Input serialized must be a scalar (bytes), got {type(serialized).__name__}")
    return serialized
