"""Datasets of datasets: ``window``, ``group_by_window`` and ``bucket_by_sequence_length`` (see dataset_ops.py).

A window is a small in-memory dataset (``VariantDataset``) over the elements it holds, with the
input's element_spec; the element_spec of ``window`` is a nest of ``DatasetSpec`` as in TensorFlow.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, SupportsInt, cast

import numpy as np

from tpustrategy import _core
from tpustrategy.data import _structure
from tpustrategy.data._structure import DatasetSpec, Nest
from tpustrategy.data._transforms import _int_arg, _invalid, _UnaryDataset
from tpustrategy.data.dataset_ops import UNKNOWN, Dataset, VariantDataset, _nodes, call_with_element
from tpustrategy.framework.tensor import Tensor
from tpustrategy.framework.tensor_shape import TensorShape


def _positive(value: SupportsInt, name: str) -> int:
    n = _int_arg(value, name)
    if n <= 0:
        raise _invalid(f"`{name}` must be greater than zero, got {n}.")
    return n


class WindowDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, size: SupportsInt, shift: SupportsInt | None, stride: SupportsInt,
                 drop_remainder: bool) -> None:
        super().__init__(input_dataset)
        self._size = _positive(size, "size")
        self._shift = self._size if shift is None else _positive(shift, "shift")
        self._stride = _positive(stride, "stride")
        self._drop_remainder = bool(drop_remainder)

    def _iterate(self) -> Iterator[Nest]:
        spec = self._input.element_spec
        span = (self._size - 1) * self._stride + 1  # input elements one full window covers
        buffer: list[Nest] = []  # input elements from the current window's start on
        source = self._input._iterate()
        exhausted = False
        while True:
            while not exhausted and len(buffer) < span:
                element = next(source, _END)
                if element is _END:
                    exhausted = True
                else:
                    buffer.append(element)
            if not buffer or (self._drop_remainder and len(buffer) < span):
                return
            yield self._split(buffer[:span:self._stride], spec)
            if len(buffer) >= self._shift:
                del buffer[:self._shift]
            else:  # the shift goes past what is buffered: skip input elements
                skip = self._shift - len(buffer)
                buffer = []
                for _ in range(skip):
                    if next(source, _END) is _END:
                        exhausted = True
                        break

    @staticmethod
    def _split(elements: list[Nest], spec: Nest) -> Nest:
        """A nest of datasets (one per component) from a list of elements, as TF's window does."""
        columns = list(zip(*[_structure.flatten(e) for e in elements], strict=True))
        specs = _structure.flatten(spec)
        datasets = [VariantDataset(column, s) for column, s in zip(columns, specs, strict=True)]
        return _structure.pack_as(spec, datasets)

    def _compute_element_spec(self) -> Nest:
        return _structure.map_structure(lambda s: DatasetSpec(s), self._input.element_spec)

    def _compute_cardinality(self) -> int:
        n = self._input._compute_cardinality()
        if n < 0:
            return n
        if self._drop_remainder:
            span = (self._size - 1) * self._stride + 1
            return 0 if n < span else (n - span) // self._shift + 1
        return -(-n // self._shift)


_END = object()


def _int64_scalar(value: object, what: str) -> int:
    if isinstance(value, Tensor):
        if value.dtype != _core.tensor.int64 or value.ndim != 0:
            raise ValueError(f"Invalid `{what}`. `{what}` must return a single tf.int64 scalar tensor but its "
                             f"return type is {value.dtype!r} with shape {TensorShape(value._shape_tuple)}.")
        return int(value.numpy())
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    raise ValueError(f"Invalid `{what}`. `{what}` must return a single tf.int64 scalar tensor, got {value!r}.")


class GroupByWindowDataset(_UnaryDataset):
    """Groups elements by key; a full window (or, at the end, each non-empty one by key order) is reduced."""

    def __init__(self, input_dataset: Dataset, key_func: Callable[..., Any],
                 reduce_func: Callable[[Tensor, Dataset], object], window_size: SupportsInt | None,
                 window_size_func: Callable[[Tensor], object] | None) -> None:
        super().__init__(input_dataset)
        if window_size is not None and window_size_func is not None:
            raise ValueError("Either the `window_size` argument or the `window_size_func` argument must be "
                             "specified, but not both.")
        if window_size is None and window_size_func is None:
            raise ValueError("Either the `window_size` argument or the `window_size_func` argument must be "
                             "specified.")
        for fn, name in ((key_func, "key_func"), (reduce_func, "reduce_func")):
            if not callable(fn):
                raise TypeError(f"`{name}` must be callable.")
        if window_size_func is None:  # so window_size is not None (checked above)
            size = _int_arg(window_size, "window_size")
            window_size_func = lambda key: _core.tensor.constant(size, "int64")  # noqa: E731
        self._key_func = key_func
        self._reduce_func = reduce_func
        self._window_size_func = window_size_func
        self._spec_func: Callable[[Dataset], Nest] | None = None  # set by bucket_by_sequence_length

    def _window_size(self, key: int) -> int:
        size = _int64_scalar(self._window_size_func(_core.tensor.constant(key, "int64")), "window_size_func")
        if size <= 0:
            raise _invalid(f"Window size must be greater than zero, but got {size}.")
        return size

    def _reduce(self, key: int, elements: list[Nest]) -> Iterator[Nest]:
        window = VariantDataset(elements, self._input.element_spec)
        result = self._reduce_func(_core.tensor.constant(key, "int64"), window)
        if not isinstance(result, Dataset):
            raise TypeError(f"Invalid `reduce_func`. `reduce_func` must return a single `tf.data.Dataset` object, "
                            f"got {type(result).__name__}.")
        return result._iterate()

    def _iterate(self) -> Iterator[Nest]:
        groups: dict[int, list[Nest]] = {}
        sizes: dict[int, int] = {}
        for element in self._input._iterate():
            key = _int64_scalar(call_with_element(self._key_func, element), "key_func")
            if key not in sizes:
                sizes[key] = self._window_size(key)
            group = groups.setdefault(key, [])
            group.append(element)
            if len(group) == sizes[key]:
                del groups[key]
                yield from self._reduce(key, group)
        for key in sorted(groups):  # TF flushes the remaining groups in key order
            yield from self._reduce(key, groups[key])

    def _compute_element_spec(self) -> Nest:
        # TF traces reduce_func once on a window of the input's spec; an empty window gives the same spec.
        window = VariantDataset([], self._input.element_spec)
        if self._spec_func is not None:
            return self._spec_func(window)
        result = self._reduce_func(_core.tensor.constant(0, "int64"), window)
        if not isinstance(result, Dataset):
            raise TypeError(f"Invalid `reduce_func`. `reduce_func` must return a single `tf.data.Dataset` object, "
                            f"got {type(result).__name__}.")
        return result.element_spec

    def _compute_cardinality(self) -> int:
        return UNKNOWN  # as TF, even for an infinite input


def bucket_by_sequence_length(dataset: Dataset, element_length_func: Callable[..., Any],
                              bucket_boundaries: Sequence[SupportsInt], bucket_batch_sizes: Sequence[SupportsInt],
                              padded_shapes: Nest = None, padding_values: Nest = None,
                              pad_to_bucket_boundary: bool = False, no_padding: bool = False,
                              drop_remainder: bool = False) -> Dataset:
    """Batches elements of similar length together (TF's group_by_window + padded_batch recipe)."""
    boundaries = [int(b) for b in bucket_boundaries]
    batch_sizes = [int(b) for b in np.asarray(bucket_batch_sizes).reshape(-1)]
    if len(batch_sizes) != len(boundaries) + 1:
        raise ValueError(f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
                         f"`len(bucket_batch_sizes)={len(batch_sizes)}` and "
                         f"`len(bucket_boundaries)={len(boundaries)}`.")
    if boundaries != sorted(boundaries) or len(set(boundaries)) != len(boundaries):
        raise ValueError(f"`bucket_boundaries` must be sorted in increasing order, got {boundaries}.")
    lows = [np.iinfo(np.int64).min, *boundaries]
    highs = [*boundaries, np.iinfo(np.int64).max]

    def bucket_of(*element: Nest) -> Tensor:
        length = call_with_element(element_length_func, element[0] if len(element) == 1 else element)
        length = int(np.asarray(length))
        for i, (low, high) in enumerate(zip(lows, highs, strict=True)):
            if low <= length < high:
                if pad_to_bucket_boundary and i == len(boundaries):
                    raise _invalid("When pad_to_bucket_boundary=True, elements must have length < "
                                   f"max(bucket_boundaries), got length {length}.")
                bucket: Tensor = _core.tensor.constant(i, "int64")  # the binding's result is untyped
                return bucket
        raise AssertionError("unreachable: the buckets cover every int64")

    def batch_bucket(key: Tensor, window: Dataset) -> Dataset:
        size = batch_sizes[int(key.numpy())]
        if no_padding:
            return window.batch(size, drop_remainder=drop_remainder)
        shapes = padded_shapes
        if pad_to_bucket_boundary:  # unknown dims padded to the bucket's largest length (boundary - 1)
            boundary = highs[int(key.numpy())]
            shapes = _structure.map_structure(
                lambda s: TensorShape([boundary - 1 if d is None else d for d in s.shape.as_list()]),
                window.element_spec)
        return window.padded_batch(size, padded_shapes=shapes, padding_values=padding_values,
                                   drop_remainder=drop_remainder)

    def size_of(key: Tensor) -> Tensor:
        size: Tensor = _core.tensor.constant(batch_sizes[int(key.numpy())], "int64")  # the binding's result is untyped
        return size

    def spec_of_buckets(window: Dataset) -> Nest:
        # TF traces batch_bucket with a symbolic key: the batch size and the boundary are unknown there.
        batched = window.batch(1) if no_padding else window.padded_batch(1, padded_shapes, padding_values)
        return _structure.map_structure(lambda s: _structure.with_shape(s, [None, *s.shape[1:]]),
                                        batched.element_spec)

    grouped = cast(GroupByWindowDataset, dataset.group_by_window(bucket_of, batch_bucket, window_size_func=size_of))
    grouped._spec_func = spec_of_buckets
    return grouped


_nodes.bucket_by_sequence_length = bucket_by_sequence_length
