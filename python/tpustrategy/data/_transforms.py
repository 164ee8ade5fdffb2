"""Transformation datasets: batching, counting, functions and combinations (see dataset_ops.py)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any, SupportsInt

import numpy as np

from tpustrategy import _core
from tpustrategy.data import _structure, _tf_random
from tpustrategy.data._structure import Leaf, Nest, Spec
from tpustrategy.data.dataset_ops import INFINITE, UNKNOWN, Dataset, VariantDataset, call_with_element
from tpustrategy.data.options import SHARD_HINT, Options
from tpustrategy.framework import static_shape
from tpustrategy.framework.sparse_tensor import SparseTensor, SparseTensorSpec
from tpustrategy.framework.tensor import Tensor, TensorSpec
from tpustrategy.ops.ragged.ragged_tensor import RaggedTensor, RaggedTensorSpec


def _int_arg(value: Any, name: str) -> int:
    if isinstance(value, Tensor):
        value = np.asarray(value)
    try:
        return int(value)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be an integer, got {value!r}") from None


def _invalid(message: str) -> Exception:
    return _structure._invalid_argument(message)


class _UnaryDataset(Dataset):
    def __init__(self, input_dataset: Dataset) -> None:
        if not isinstance(input_dataset, Dataset):
            raise TypeError(f"expected a tf.data.Dataset, got {type(input_dataset).__name__}")
        self._inputs = (input_dataset,)

    @property
    def _input(self) -> Dataset:
        return self._inputs[0]

    def _compute_element_spec(self) -> Nest:
        return self._input.element_spec

    def _compute_cardinality(self) -> int:
        return self._input._compute_cardinality()


class BatchDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, batch_size: Any, drop_remainder: bool, ragged: bool = False) -> None:
        super().__init__(input_dataset)
        self._ragged = bool(ragged)  # ragged_batch: dense components of rank >= 1 are batched as RaggedTensors
        self._batch_size = _int_arg(batch_size, "batch_size")
        if self._batch_size <= 0:
            raise _invalid("Batch size must be greater than zero.")
        self._drop_remainder = bool(drop_remainder)

    def _iterate(self) -> Iterator[Nest]:
        sliced = getattr(self._input, "_iterate_row_ranges", None)
        # from_tensor_slices(...).batch(n): cut row ranges, skip per-row elements
        if sliced is not None and not self._ragged:
            yield from sliced(self._batch_size, self._drop_remainder)
            return
        # ragged_batch makes ragged rows of the dense components of known rank >= 1 only (TF's _DenseToRaggedDataset
        # leaves an unknown rank dense, so its rows must have one shape).
        ragged = [self._ragged and s.shape.rank not in (None, 0) for s in _structure.flatten(self._input.element_spec)]
        pending: list[Nest] = []
        for element in self._input._iterate():
            pending.append(element)
            if len(pending) == self._batch_size:
                yield _stack_elements(pending, ragged)
                pending = []
        if pending and not self._drop_remainder:
            yield _stack_elements(pending, ragged)

    def _compute_element_spec(self) -> Nest:
        dim = self._batch_size if self._drop_remainder else None
        spec = self._input.element_spec
        if self._ragged:
            spec = _structure.map_structure(_structure.ragged_spec, spec)
        return _structure.map_structure(lambda s: _structure.prepend_dim(s, dim), spec)

    def _compute_cardinality(self) -> int:
        n = self._input._compute_cardinality()
        if n < 0:
            return n
        return n // self._batch_size if self._drop_remainder else -(-n // self._batch_size)


def _stack_elements(elements: list[Nest], ragged: list[bool] | None = None) -> Nest:
    """One batch of `elements`; component i stacks into ragged rows where ``ragged[i]`` (ragged_batch)."""
    columns = zip(*[_structure.flatten(e) for e in elements], strict=True)
    leaves = [(_structure.ragged_stack_leaves if ragged and ragged[i] else _structure.stack_leaves)(list(column), i)
              for i, column in enumerate(columns)]
    return _structure.pack_as(elements[0], leaves)


class ParallelBatchDataset(BatchDataset):
    """``batch`` with ``num_parallel_calls``: the same batches (TF's ``_ParallelBatchDataset``)."""


class UnbatchDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset) -> None:
        super().__init__(input_dataset)
        leading: set[int] = set()
        for spec in _structure.flatten(input_dataset.element_spec):
            if spec.shape.rank == 0:
                raise ValueError("Cannot unbatch an input with scalar components.")
            if spec.shape.rank is not None and spec.shape[0] is not None:
                leading.add(spec.shape[0])
        if len(leading) > 1:
            first, second = sorted(leading)[:2]
            raise ValueError("`unbatch()` is only supported for datasets of elements whose components have a matching "
                             f"leading dimension. Encountered both {first} and {second}.")

    def _iterate(self) -> Iterator[Nest]:
        for element in self._input._iterate():
            yield from _structure.unstack_element(element)

    def _compute_element_spec(self) -> Nest:
        return _structure.map_structure(_structure.drop_leading_dim, self._input.element_spec)

    def _compute_cardinality(self) -> int:
        n = self._input._compute_cardinality()
        if n < 0:
            return n
        dims = {spec.shape[0] for spec in _structure.flatten(self._input.element_spec)}
        if len(dims) == 1 and None not in dims:
            dim: int = dims.pop()
            return n * dim
        return UNKNOWN


class RebatchDataset(_UnaryDataset):
    """RebatchV2: rows are re-cut into batches whose sizes cycle through `batch_sizes`."""

    def __init__(self, input_dataset: Dataset, batch_size: Any, drop_remainder: bool) -> None:
        super().__init__(input_dataset)
        array = np.asarray(batch_size.numpy() if isinstance(batch_size, Tensor) else batch_size)
        if array.ndim > 1:
            raise ValueError("Invalid `batch_sizes`. Expected `batch_sizes` to be a scalar or a vector. Received "
                             f"`batch_sizes` of rank {array.ndim}.")
        sizes = array.reshape(-1)
        self._batch_sizes = [int(s) for s in sizes]
        if not self._batch_sizes:
            raise _invalid(f"`batch_size` must contain at least one size, got {self._batch_sizes}.")
        if any(s < 0 for s in self._batch_sizes):
            raise _invalid(f"Batch sizes must be >= 0, got {self._batch_sizes}.")
        if not any(self._batch_sizes):
            raise _invalid("At least one batch size must be greater than zero.")
        self._drop_remainder = bool(drop_remainder)
        for spec in _structure.flatten(input_dataset.element_spec):
            if spec.shape.rank == 0:
                raise ValueError("Cannot rebatch an input with scalar components; call batch() first.")

    def _iterate(self) -> Iterator[Nest]:
        if not all(type(s) is TensorSpec and s.dtype != "string"
                   for s in _structure.flatten(self._input.element_spec)):
            yield from self._iterate_leaf_rows()  # strings, ragged, sparse: row by row in Python
            return
        source = self._input._iterate()
        structure = None
        rows = _core.data.RowBuffer()
        exhausted = False
        for index in _cycle(len(self._batch_sizes)):
            if exhausted and rows.rows_available == 0:
                return
            wanted = self._batch_sizes[index]
            while not exhausted and (rows.rows_available < wanted or not rows.has_layout):
                element = next(source, None)
                if element is None:
                    exhausted = True
                    break
                structure = element
                rows.push(_tensor_leaves(element, "rebatch"))
            if structure is None:
                return  # empty input
            if rows.rows_available < wanted:
                if self._drop_remainder or rows.rows_available == 0:
                    return
                wanted = rows.rows_available
            yield _structure.pack_as(structure, rows.pop(wanted))

    def _iterate_leaf_rows(self) -> Iterator[Nest]:
        """The same cut for any leaves: keeps each component's pending rows, stacks `wanted` of them per batch."""
        pending: list[list[Leaf]] = []
        structure: Nest = None
        leaves: list[Leaf] = []
        index = 0
        for element in self._input._iterate():
            columns = _structure.unstack_columns(element)
            if structure is None:
                structure, leaves, pending = element, _structure.flatten(element), [[] for _ in columns]
            for rows, column in zip(pending, columns, strict=True):
                rows.extend(column)
            while len(pending[0]) >= self._batch_sizes[index]:
                yield _pop_rows(structure, leaves, pending, self._batch_sizes[index])
                index = (index + 1) % len(self._batch_sizes)
        while structure is not None and pending[0] and not self._drop_remainder:
            yield _pop_rows(structure, leaves, pending, min(self._batch_sizes[index], len(pending[0])))
            index = (index + 1) % len(self._batch_sizes)

    def _compute_element_spec(self) -> Nest:
        # As TF: the new batch dim is known when all sizes are equal and no partial batch can form
        # (drop_remainder, or every input batch dim is known and a multiple of the size).
        sizes = set(self._batch_sizes)
        dim = sizes.pop() if len(sizes) == 1 else None
        if dim is not None and not self._drop_remainder:
            input_dims = {s.shape[0] for s in _structure.flatten(self._input.element_spec) if s.shape.rank}
            input_dims.discard(None)
            if len(input_dims) > 1:
                raise ValueError(f"Invalid `input_dataset.` The batch dimensions of its components differ: "
                                 f"{sorted(input_dims)}.")
            if not input_dims or dim == 0 or input_dims.pop() % dim != 0:
                dim = None
        return _structure.map_structure(
            lambda s: _structure.with_shape(s, [dim, *s.shape[1:]]) if s.shape.rank is not None else s,
            self._input.element_spec)

    def _compute_cardinality(self) -> int:
        n = self._input._compute_cardinality()
        return INFINITE if n == INFINITE else UNKNOWN


def _cycle(n: int) -> Iterator[int]:
    i = 0
    while True:
        yield i
        i = (i + 1) % n


def _pop_rows(structure: Nest, leaves: list[Leaf], pending: list[list[Leaf]], wanted: int) -> Nest:
    out = []
    for i, (leaf, rows) in enumerate(zip(leaves, pending, strict=True)):
        taken, rows[:] = rows[:wanted], rows[wanted:]
        # A ragged component's rows come out dense (of different lengths): they stack back into a ragged batch.
        stack = _structure.ragged_stack_leaves if isinstance(leaf, RaggedTensor) else _structure.stack_leaves
        out.append(stack(taken, i) if taken else None if leaf is None else leaf[0:0])
    return _structure.pack_as(structure, out)


def _tensor_leaves(element: Nest, what: str) -> list[Tensor]:
    leaves = _structure.flatten(element)
    for leaf in leaves:
        if not isinstance(leaf, Tensor):
            raise TypeError(f"{what} supports tensor components only, got {type(leaf).__name__}")
    return leaves


class RepeatDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, count: Any) -> None:
        super().__init__(input_dataset)
        self._count = -1 if count is None else _int_arg(count, "count")

    def _iterate(self) -> Iterator[Nest]:
        epoch = 0
        while self._count < 0 or epoch < self._count:
            produced = False
            for element in self._input._iterate():
                produced = True
                yield element
            if not produced:
                return  # an empty input repeated forever is still empty (as TF)
            epoch += 1

    def _compute_cardinality(self) -> int:
        n = self._input._compute_cardinality()
        if self._count < 0:
            return 0 if n == 0 else INFINITE
        if self._count == 0:
            return 0
        return n if n < 0 else n * self._count


class TakeDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, count: Any) -> None:
        super().__init__(input_dataset)
        self._count = _int_arg(count, "count")

    def _iterate(self) -> Iterator[Nest]:
        if self._count < 0:
            yield from self._input._iterate()
            return
        if self._count == 0:
            return
        for i, element in enumerate(self._input._iterate()):
            yield element
            if i + 1 >= self._count:
                return

    def _compute_cardinality(self) -> int:
        n = self._input._compute_cardinality()
        if self._count < 0:
            return n
        if n == INFINITE:
            return self._count
        if n == UNKNOWN:
            return UNKNOWN
        return min(n, self._count)


class SkipDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, count: Any) -> None:
        super().__init__(input_dataset)
        self._count = _int_arg(count, "count")

    def _iterate(self) -> Iterator[Nest]:
        if self._count < 0:
            for _ in self._input._iterate():
                pass
            return
        for i, element in enumerate(self._input._iterate()):
            if i >= self._count:
                yield element

    def _compute_cardinality(self) -> int:
        n = self._input._compute_cardinality()
        if n < 0:
            return n
        return 0 if self._count < 0 else max(n - self._count, 0)


class ShardDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, num_shards: Any, index: Any) -> None:
        super().__init__(input_dataset)
        self._num_shards = _int_arg(num_shards, "num_shards")
        self._index = _int_arg(index, "index")
        if self.is_hint:
            return
        if self._num_shards <= 0:
            raise _invalid(f"Number of shards must be greater than zero (currently num_shards = {self._num_shards}).")
        if not 0 <= self._index < self._num_shards:
            raise _invalid(f"Index must be between 0 and {self._num_shards - 1} (currently index = {self._index}).")

    @property
    def is_hint(self) -> bool:
        return self._num_shards == SHARD_HINT

    def _with_shard(self, num_shards: int, index: int) -> ShardDataset:
        return ShardDataset(self._input, num_shards, index)

    def _iterate(self) -> Iterator[Nest]:
        if self.is_hint:
            raise _invalid("shard(SHARD_HINT, ...) is only valid under a distribution strategy with "
                           "AutoShardPolicy.HINT, which replaces it with the worker's shard.")
        for i, element in enumerate(self._input._iterate()):
            if i % self._num_shards == self._index:
                yield element

    def _compute_cardinality(self) -> int:
        n = self._input._compute_cardinality()
        if n < 0 or self.is_hint:
            return n if n < 0 else UNKNOWN
        return n // self._num_shards + (1 if self._index < n % self._num_shards else 0)


class MapDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, map_func: Callable[..., Any]) -> None:
        super().__init__(input_dataset)
        if not callable(map_func):
            raise TypeError("`map_func` must be callable.")
        self._fn = map_func

    def _apply(self, element: Nest) -> Nest:
        output = call_with_element(self._fn, element)
        if output is None:
            _structure.check_has_component(_structure.NoneTensorSpec(), "map")
        return _structure.normalize_function_output(output)

    def _iterate(self) -> Iterator[Nest]:
        for element in self._input._iterate():
            yield self._apply(element)

    def _spec_of_call(self, element: Nest) -> Spec:
        """The spec of the function's output for `element`, with the static shapes TF gives py_function
        outputs (unknown unless set_shape / ensure_shape state one; framework/static_shape.py)."""
        with static_shape.recording():
            output = call_with_element(self._fn, element)
            spec = _structure.spec_of(_structure.normalize_function_output(output))
            static = [static_shape.lookup(leaf) for leaf in _structure.function_output_leaves(output)]
        return _structure.pack_as(spec, [s if shape is None else _structure.with_shape(s, shape)
                                         for s, shape in zip(_structure.flatten(spec), static, strict=True)])

    def _compute_element_spec(self) -> Nest:
        input_spec = self._input.element_spec
        try:
            first = self._spec_of_call(_dummy_element(input_spec, 1))
            second = self._spec_of_call(_dummy_element(input_spec, 2))
            return _structure.check_has_component(_relax(first, second), "map")
        except Exception as probe_error:  # any failure (data-dependent fn): fall back to a real element
            element = next(iter(self._input._iterate()), None)
            if element is None:
                raise probe_error
            return _structure.check_has_component(self._spec_of_call(element), "map")


def _has_unknown_dims(spec: Spec) -> bool:
    return any(s.shape.rank is None or None in s.shape.as_list() for s in _structure.flatten(spec))


def _dummy_element(spec: Nest, unknown_dim: int) -> Nest:
    def dummy(leaf_spec: Spec) -> Leaf:
        if isinstance(leaf_spec, _structure.DatasetSpec):  # an empty dataset of its element_spec
            return VariantDataset([], leaf_spec.element_spec)
        if isinstance(leaf_spec, _structure.NoneTensorSpec):
            return None
        if leaf_spec.shape.rank is None:
            raise ValueError("unknown rank")
        shape = [unknown_dim if d is None else d for d in leaf_spec.shape.as_list()]
        if isinstance(leaf_spec, SparseTensorSpec):
            # `unknown_dim` values (all at the origin), so a value count the function passes on shows as unknown.
            count = unknown_dim if int(np.prod(shape)) else 0
            values = _core.tensor.constant(np.full((count,), unknown_dim, leaf_spec.dtype.as_numpy_dtype),
                                           leaf_spec.dtype)
            return SparseTensor(np.zeros((count, len(shape)), np.int64), values, shape)
        if isinstance(leaf_spec, RaggedTensorSpec):
            return _dummy_ragged(leaf_spec, shape, unknown_dim)
        if _structure.is_string_spec(leaf_spec):
            return _structure.to_leaf(np.full(shape, b"", dtype=object)) if shape else b""
        # Values are `unknown_dim` too, so output shapes that follow input values (tf.fill([x], x)) show.
        return _core.tensor.constant(np.full(shape, unknown_dim, leaf_spec.dtype.as_numpy_dtype), leaf_spec.dtype)

    return _structure.map_structure(dummy, spec)


def _dummy_ragged(spec: RaggedTensorSpec, shape: list[int], unknown_dim: int) -> RaggedTensor:
    """A RaggedTensor of `spec` whose every row at every ragged level has the dimension's size."""
    ragged = spec.ragged_rank
    rows = int(np.prod(shape[:ragged + 1]))
    flat = _core.tensor.constant(np.full([rows, *shape[ragged + 1:]], unknown_dim, spec.dtype.as_numpy_dtype),
                                 spec.dtype)
    lengths = [np.full(int(np.prod(shape[:level])), shape[level], np.int64) for level in range(1, ragged + 1)]
    ragged_tensor: RaggedTensor = RaggedTensor.from_nested_row_lengths(flat, lengths, validate=False)
    return ragged_tensor


def _relax(a: Nest, b: Nest) -> Nest:
    if not _structure.same_structure(a, b):
        raise ValueError("map function output structure depends on the input values")
    return _structure.pack_as(a, [_structure.relax_spec(x, y) for x, y in zip(_structure.flatten(a),
                                                                            _structure.flatten(b), strict=True)])


def _as_predicate_result(value: object) -> bool:
    if isinstance(value, Tensor):
        if value.dtype != _core.tensor.bool or value.ndim != 0:
            raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its "
                             f"return type was {value.dtype!r} with shape {tuple(value._shape_tuple)}.")
        return bool(value.numpy())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but it returned "
                     f"{type(value).__name__}.")


class ParallelMapDataset(MapDataset):
    """``map`` with ``num_parallel_calls``: the same elements, in order (TF's ``_ParallelMapDataset``)."""


class FilterDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, predicate: Callable[..., Any]) -> None:
        super().__init__(input_dataset)
        if not callable(predicate):
            raise TypeError("`predicate` must be callable.")
        self._predicate = predicate

    def _iterate(self) -> Iterator[Nest]:
        for element in self._input._iterate():
            if _as_predicate_result(call_with_element(self._predicate, element)):
                yield element

    def _compute_cardinality(self) -> int:
        return UNKNOWN


class ShuffleDataset(_UnaryDataset):
    """TF's shuffle buffer, with TF's order: a ring of `buffer_size` slots; each step refills it from the input,
    emits the slot start + word % filled (a word of the iterator's Philox stream, see _tf_random) and moves the
    oldest element into that slot."""

    def __init__(self, input_dataset: Dataset, buffer_size: SupportsInt, seed: SupportsInt | None,
                 reshuffle_each_iteration: bool | None) -> None:
        super().__init__(input_dataset)
        self._buffer_size = _int_arg(buffer_size, "buffer_size")
        if self._buffer_size == UNKNOWN:
            self._buffer_size = 1 << 62  # TF's UNKNOWN_CARDINALITY: a buffer that takes everything
        if self._buffer_size <= 0:
            raise _invalid("buffer_size must be greater than zero or UNKNOWN_CARDINALITY")
        reshuffle = True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
        self._seeds = _tf_random.IteratorSeeds(None if seed is None else _int_arg(seed, "seed"), reshuffle)

    def _reset_state(self) -> None:
        self._seeds = copy.copy(self._seeds)
        self._seeds.reset()

    def _iterate(self) -> Iterator[Nest]:
        words = _tf_random.Words(*self._seeds.next())
        size = self._buffer_size
        buffer: dict[int, Nest] = {}  # slot -> element; slots start % size ... (end - 1) % size are filled
        start = end = 0
        source = self._input._iterate()
        exhausted = False
        while True:
            while not exhausted and end - start < size:
                element = next(source, _END_OF_INPUT)
                if element is _END_OF_INPUT:
                    exhausted = True
                else:
                    buffer[end % size] = element
                    end += 1
            if start == end:
                return
            slot = (start + words.next() % (end - start)) % size
            yield buffer[slot]
            buffer[slot] = buffer[start % size]
            del buffer[start % size]
            start += 1


_END_OF_INPUT = object()


class PrefetchDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, buffer_size: Any) -> None:
        super().__init__(input_dataset)
        self._buffer_size = _int_arg(buffer_size, "buffer_size")
        if self._buffer_size < -1:
            raise _invalid("buffer_size must be >= -1 (AUTOTUNE).")

    def _iterate(self) -> Iterator[Nest]:
        return self._input._iterate()


class CacheDataset(_UnaryDataset):
    _tf_name = "CacheDataset"  # TF 2.21's class of ``cache`` has no leading underscore

    def __init__(self, input_dataset: Dataset, filename: str) -> None:
        super().__init__(input_dataset)
        self._filename = filename
        self._cached: list[Nest] | None = None

    def _reset_state(self) -> None:
        self._cached = None

    def _iterate(self) -> Iterator[Nest]:
        if self._cached is not None:
            yield from self._cached
            return
        collected: list[Nest] = []
        for element in self._input._iterate():
            collected.append(element)
            yield element
        self._cached = collected  # only a complete pass is cached


class OptionsDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, options: Options) -> None:
        super().__init__(input_dataset)
        if not isinstance(options, Options):
            raise TypeError(f"`options` must be a tf.data.Options, got {type(options).__name__}")
        self._options = options

    def _iterate(self) -> Iterator[Nest]:
        return self._input._iterate()

    def options(self) -> Options:
        return super().options().merge(self._options)
