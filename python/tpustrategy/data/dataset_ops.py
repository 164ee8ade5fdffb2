"""``tf.data.Dataset`` (mirrors ``tensorflow.python.data.ops.dataset_ops``).

A dataset is an immutable node of a pipeline graph. Each node keeps its input datasets and its
own parameters; iterating creates fresh Python iterators down the chain, so a dataset can be
iterated any number of times and each iteration starts from the beginning. Elements are nests
(tuples, namedtuples, dicts) of tpustrategy Tensors, or ``bytes`` for string data.

Deviations from TensorFlow, all deliberate:
* functions passed to ``map``/``filter``/``reduce`` run eagerly on every element (as under
  ``tf.data.experimental.enable_debug_mode()``), not once at trace time. ``map``'s output spec is
  found lazily, by calling the function on dummy ones built from the input spec (twice, with
  unknown dims and all values set to 1 and then 2, to see which output dims follow them), or on
  the first element if that fails;
* ``prefetch`` and ``num_parallel_calls`` change no behaviour (iteration is synchronous);
* ``cache(filename)`` caches in memory whatever the filename;
* string data are ``bytes`` (and numpy object arrays of bytes once batched), since Tensor has no
  string dtype; their spec prints as ``TensorSpec(..., dtype=tf.string)``.

Hooks for the distribution layer (``experimental_distribute_dataset``):
* ``ds._inputs`` — the input datasets of a node (``()`` for sources); walking them from the
  final dataset visits the whole pipeline.
* ``ds._clone_with_inputs(inputs)`` — the same transformation applied to other inputs (a shallow
  copy with per-iteration state reset), so a pipeline can be re-instantiated around a change.
* ``ds._source_files()`` — the list of file names a file source reads (TFRecordDataset,
  TextLineDataset), None for other nodes. ``source_files(ds)`` collects them over the pipeline:
  a pipeline that reads files can be auto-sharded by FILE.
* ``rewrite(ds, fn)`` — rebuilds the pipeline bottom-up, replacing each node by ``fn(node)``
  (return the node itself to keep it). With it:
  ``shard_files(ds, num_shards, index)`` gives each file source only its share of the files
  (file i goes to shard i % num_shards; fewer files than shards → InvalidArgumentError, as
  TF's FILE policy), and ``replace_shard_hints(ds, num_shards, index)`` replaces every
  ``shard(SHARD_HINT, SHARD_HINT)`` (the HINT policy).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, SupportsInt, TypeAlias, TypeVar, cast

from tpustrategy import _core
from tpustrategy.data import _structure
from tpustrategy.data._structure import Nest
from tpustrategy.data.iterator_ops import OwnedIterator
from tpustrategy.data.options import Options
from tpustrategy.framework.tensor import Tensor

if TYPE_CHECKING:
    from tpustrategy.data._transforms import ShardDataset as _ShardNode
    from tpustrategy.framework.string_tensor import StringTensor

# An integer argument: a Python or numpy int, or a scalar integer tensor (the nodes convert it with int()).
IntLike: TypeAlias = SupportsInt
# A dtype argument: a DType (``tf.int64``) or its name.
DTypeLike: TypeAlias = _core.tensor.DType | str

_DatasetT = TypeVar("_DatasetT", bound="Dataset")

INFINITE = -1
UNKNOWN = -2

class NotADatasetError(TypeError, AttributeError):
    """A value that should be a tf.data.Dataset is not (``experimental_distribute_dataset([1, 2])``, a flat_map
    function returning a tensor). A TypeError naming the value, as the project's rule for bad input; also an
    AttributeError, which TF 2.21 raises there (it calls a Dataset method on the value), so code catching TF's
    error type catches it too."""


def not_a_dataset(value: object, what: str) -> NotADatasetError:
    return NotADatasetError(f"{what} must be a `tf.data.Dataset`, got {type(value).__name__}: {value!r:.200}")


# The pipeline nodes (_sources, _transforms, _combine, ...) subclass Dataset, so this module cannot import
# them; each registers itself here by class name when defined (Dataset.__init_subclass__), and the
# constructor methods below build them through this namespace (the few builder functions register
# themselves by name too). tpustrategy.data imports them all.
class _Nodes:
    """The registry's attributes: each node class (or builder function) builds a Dataset from the arguments its
    Dataset method passes on, checked there."""

    AssertCardinalityDataset: Callable[..., Dataset]
    BatchDataset: Callable[..., Dataset]
    CacheDataset: Callable[..., Dataset]
    ConcatenateDataset: Callable[..., Dataset]
    CounterDataset: Callable[..., Dataset]
    FilterDataset: Callable[..., Dataset]
    FlatMapDataset: Callable[..., Dataset]
    GeneratorDataset: Callable[..., Dataset]
    GroupByWindowDataset: Callable[..., Dataset]
    IgnoreErrorsDataset: Callable[..., Dataset]
    InterleaveDataset: Callable[..., Dataset]
    ListFilesDataset: Callable[..., Dataset]
    MapDataset: Callable[..., Dataset]
    OptionsDataset: Callable[..., Dataset]
    PaddedBatchDataset: Callable[..., Dataset]
    ParallelBatchDataset: Callable[..., Dataset]
    ParallelInterleaveDataset: Callable[..., Dataset]
    ParallelMapDataset: Callable[..., Dataset]
    PrefetchDataset: Callable[..., Dataset]
    RandomDataset: Callable[..., Dataset]
    RangeDataset: Callable[..., Dataset]
    RebatchDataset: Callable[..., Dataset]
    RepeatDataset: Callable[..., Dataset]
    ScanDataset: Callable[..., Dataset]
    ShardDataset: type[_ShardNode]
    ShuffleDataset: Callable[..., Dataset]
    SkipDataset: Callable[..., Dataset]
    SortedListFilesDataset: Callable[..., Dataset]
    TakeDataset: Callable[..., Dataset]
    TakeWhileDataset: Callable[..., Dataset]
    TensorDataset: Callable[..., Dataset]
    TensorSliceDataset: Callable[..., Dataset]
    UnbatchDataset: Callable[..., Dataset]
    UniqueDataset: Callable[..., Dataset]
    WindowDataset: Callable[..., Dataset]
    ZipDataset: Callable[..., Dataset]
    bucket_by_sequence_length: Callable[..., Dataset]
    choose_from_datasets: Callable[..., Dataset]
    sample_from_datasets: Callable[..., Dataset]


_nodes = _Nodes()


class _FileSource(Protocol):
    """A node whose ``_source_files()`` is not None (readers' file datasets): it can be rebuilt over other files."""

    def _source_files(self) -> list[str] | None: ...

    def _with_files(self, filenames: list[str]) -> Dataset: ...


class Dataset:
    """A pipeline of elements (``tf.data.Dataset``). Build with the static constructors, chain transformations."""

    _inputs: tuple[Dataset, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__module__.startswith("tpustrategy.data."):
            setattr(_nodes, cls.__name__, cls)
            # The node takes the name TF's class has (``type(ds).__name__`` and ``repr(ds)`` show it): TF's private
            # ``_MapDataset`` etc., or ``_tf_name`` where TF builds the node otherwise (from_generator is a
            # ``_FlatMapDataset``, the file readers are the public ``TFRecordDatasetV2`` ...).
            cls.__name__ = cls.__qualname__ = cls.__dict__.get("_tf_name", "_" + cls.__name__.lstrip("_"))

    # ---- to be provided by each node ----
    def _iterate(self) -> Iterator[Nest]:
        """A fresh iterator over the elements."""
        raise NotImplementedError

    def _compute_element_spec(self) -> Nest:
        raise NotImplementedError

    def _compute_cardinality(self) -> int:
        return UNKNOWN

    def _source_files(self) -> list[str] | None:
        return None

    def _reset_state(self) -> None:
        """Clears per-instance state (caches, epoch counters) in a clone."""

    # ---- graph ----
    def _clone_with_inputs(self: _DatasetT, inputs: Iterable[Dataset]) -> _DatasetT:
        clone = copy.copy(self)
        clone._inputs = tuple(inputs)
        clone.__dict__.pop("_element_spec_cache", None)
        clone._reset_state()
        return clone

    # ---- properties ----
    @property
    def element_spec(self) -> Nest:
        """The nest of TensorSpec describing one element (None dims where sizes vary)."""
        spec = self.__dict__.get("_element_spec_cache")
        if spec is None:
            spec = self._compute_element_spec()
            self.__dict__["_element_spec_cache"] = spec
        return spec

    def cardinality(self) -> Tensor:
        """Number of elements as an int64 scalar tensor: INFINITE_CARDINALITY (-1) or UNKNOWN_CARDINALITY (-2)."""
        cardinality: Tensor = _core.tensor.constant(self._compute_cardinality(), "int64")
        return cardinality

    def options(self) -> Options:
        """The options set on this pipeline (merged bottom-up)."""
        merged = Options()
        for source in self._inputs:
            merged = merged.merge(source.options())
        return merged

    def __iter__(self) -> OwnedIterator:
        return OwnedIterator(self)

    def __len__(self) -> int:
        n = self._compute_cardinality()
        if n == INFINITE:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self) -> bool:
        return True  # like TF: a dataset is truthy even when empty (no __len__ call)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} element_spec={self.element_spec}>"

    def as_numpy_iterator(self) -> Iterator[Nest]:
        """Iterates elements as numpy values (bytes stay bytes); TypeError for dataset-valued components, as TF."""
        for spec in _structure.flatten(self.element_spec):
            if isinstance(spec, _structure.DatasetSpec):
                raise TypeError("`tf.data.Dataset.as_numpy_iterator()` is not supported for datasets that produce "
                                f"values of type {Dataset}")
        return (_structure.to_numpy(element) for element in self._iterate())

    def reduce(self, initial_state: Nest, reduce_func: Callable[[Nest, Nest], Nest]) -> Nest:
        """Folds the elements into a state: ``state = reduce_func(state, element)``."""
        state = _structure.normalize_function_output(initial_state)
        for element in self._iterate():
            new_state = _structure.normalize_function_output(
                reduce_func(_structure.to_public(state), _structure.to_public(element)))
            if not _structure.same_structure(state, new_state):
                raise TypeError(f"The element types for the new state must match the initial state. Expected "
                                f"{_structure.spec_of(state)}; got {_structure.spec_of(new_state)}.")
            state = new_state
        return _structure.to_public(state)

    # ---- sources ----
    @staticmethod
    def range(*args: IntLike, output_type: DTypeLike = "int64", name: str | None = None) -> Dataset:
        """Like Python's range; int64 scalar elements (``output_type`` to change)."""
        return _nodes.RangeDataset(*args, output_type=output_type)

    @staticmethod
    def from_tensors(tensors: Nest, name: str | None = None) -> Dataset:
        """A single element."""
        return _nodes.TensorDataset(tensors)

    @staticmethod
    def from_tensor_slices(tensors: Nest, name: str | None = None) -> Dataset:
        """One element per row of the leading dimension of every component."""
        return _nodes.TensorSliceDataset(tensors)

    @staticmethod
    def from_generator(generator: Callable[..., Iterable[Nest]], output_types: Nest = None, output_shapes: Nest = None,
                       args: Sequence[Any] | None = None, output_signature: Nest = None,
                       name: str | None = None) -> Dataset:
        """Elements produced by ``generator(*args)``, checked against the signature."""
        return _nodes.GeneratorDataset(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def zip(*args: Nest, datasets: Nest = None, name: str | None = None) -> Dataset:
        """Elements combined from several datasets (a nest of datasets, or several as arguments)."""
        if datasets is not None and args:
            raise TypeError("Both `*args` and `datasets` cannot be set.")
        if datasets is None:
            if not args:
                raise TypeError("Must pass at least one dataset to `zip`.")
            datasets = args[0] if len(args) == 1 else args
        return _nodes.ZipDataset(datasets)

    @staticmethod
    def random(seed: int | None = None, rerandomize_each_iteration: bool | None = None,
               name: str | None = None) -> Dataset:
        """An infinite stream of pseudorandom int64 scalars: TF's values for the same seed (its Philox words)."""
        return _nodes.RandomDataset(seed, rerandomize_each_iteration)

    @staticmethod
    def counter(start: IntLike = 0, step: IntLike = 1, dtype: DTypeLike = "int64",
                name: str | None = None) -> Dataset:
        """``start, start + step, ...`` forever."""
        return _nodes.CounterDataset(start, step, dtype)

    @staticmethod
    def list_files(file_pattern: str | bytes | Sequence[str | bytes] | StringTensor | Dataset,
                   shuffle: bool | None = None, seed: int | None = None, name: str | None = None) -> Dataset:
        """The files matching the glob pattern(s), as ``bytes`` names; shuffled unless ``shuffle=False``."""
        files = _nodes.ListFilesDataset if shuffle is None or bool(shuffle) else _nodes.SortedListFilesDataset
        return files(file_pattern, shuffle, seed)

    @staticmethod
    def sample_from_datasets(datasets: Sequence[Dataset], weights: Sequence[float] | Tensor | Dataset | None = None,
                             seed: int | None = None, stop_on_empty_dataset: bool = False,
                             rerandomize_each_iteration: bool | None = None) -> Dataset:
        """Elements drawn at random from `datasets` with probabilities `weights`."""
        return _nodes.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset, rerandomize_each_iteration)

    @staticmethod
    def choose_from_datasets(datasets: Sequence[Dataset], choice_dataset: Dataset,
                             stop_on_empty_dataset: bool = True) -> Dataset:
        """Elements of ``datasets[i]`` for each int64 ``i`` of `choice_dataset`."""
        return _nodes.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)

    # ---- transformations ----
    def padded_batch(self, batch_size: IntLike, padded_shapes: Nest = None, padding_values: Nest = None,
                     drop_remainder: bool = False, name: str | None = None) -> Dataset:
        """Batches elements padded (with 0 / b"" or `padding_values`) to `padded_shapes` or the batch's largest."""
        return _nodes.PaddedBatchDataset(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def window(self, size: IntLike, shift: IntLike | None = None, stride: IntLike = 1, drop_remainder: bool = False,
               name: str | None = None) -> Dataset:
        """Windows of `size` elements (every `stride`-th), one every `shift`, each a nest of datasets."""
        return _nodes.WindowDataset(self, size, shift, stride, drop_remainder)

    def scan(self, initial_state: Nest, scan_func: Callable[[Nest, Nest], tuple[Nest, Nest]],
             name: str | None = None) -> Dataset:
        """``scan_func(state, element) -> (new_state, output)`` over the elements, yielding the outputs."""
        return _nodes.ScanDataset(self, initial_state, scan_func)

    def take_while(self, predicate: Callable[..., Any], name: str | None = None) -> Dataset:
        """The elements up to (excluding) the first for which `predicate` is False."""
        return _nodes.TakeWhileDataset(self, predicate)

    def unique(self, name: str | None = None) -> Dataset:
        """The elements not equal to an earlier one (int32 / int64 / string single components)."""
        return _nodes.UniqueDataset(self)

    def group_by_window(self, key_func: Callable[..., Any], reduce_func: Callable[[Tensor, Dataset], Dataset],
                        window_size: IntLike | None = None,
                        window_size_func: Callable[[Tensor], Any] | None = None, name: str | None = None) -> Dataset:
        """Groups elements by int64 ``key_func(element)``; each full window goes through ``reduce_func(key, ds)``."""
        return _nodes.GroupByWindowDataset(self, key_func, reduce_func, window_size, window_size_func)

    def bucket_by_sequence_length(self, element_length_func: Callable[..., Any], bucket_boundaries: Sequence[int],
                                  bucket_batch_sizes: Sequence[int], padded_shapes: Nest = None,
                                  padding_values: Nest = None, pad_to_bucket_boundary: bool = False,
                                  no_padding: bool = False, drop_remainder: bool = False,
                                  name: str | None = None) -> Dataset:
        """Batches elements of similar length (bucketed by `bucket_boundaries`), padded per batch."""
        return _nodes.bucket_by_sequence_length(self, element_length_func, bucket_boundaries, bucket_batch_sizes,
                                         padded_shapes, padding_values, pad_to_bucket_boundary, no_padding,
                                         drop_remainder)

    def assert_cardinality(self, expected_cardinality: IntLike) -> Dataset:
        """The same elements; iteration raises FailedPreconditionError if their number differs."""
        return _nodes.AssertCardinalityDataset(self, expected_cardinality)

    def ignore_errors(self, log_warning: bool = False, name: str | None = None) -> Dataset:
        """Drops elements whose production raised a TF error (see _stateful.IgnoreErrorsDataset)."""
        return _nodes.IgnoreErrorsDataset(self, log_warning)

    def get_single_element(self, name: str | None = None) -> Nest:
        """The only element; InvalidArgumentError if the dataset is empty or has more than one."""
        return get_single_element(self)

    def batch(self, batch_size: IntLike, drop_remainder: bool = False, num_parallel_calls: IntLike | None = None,
              deterministic: bool | None = None, name: str | None = None) -> Dataset:
        """Stacks consecutive elements into batches (the last may be smaller unless drop_remainder)."""
        batch = _nodes.BatchDataset if num_parallel_calls is None else _nodes.ParallelBatchDataset
        return batch(self, batch_size, drop_remainder)

    def ragged_batch(self, batch_size: IntLike, drop_remainder: bool = False, row_splits_dtype: DTypeLike | None = None,
                     name: str | None = None) -> Dataset:
        """Batches elements whose shapes differ: dense components of rank >= 1 become RaggedTensors (rank-0
        ones stack densely), as ``tf.data.Dataset.ragged_batch``."""
        return _nodes.BatchDataset(self, batch_size, drop_remainder, ragged=True)

    def unbatch(self, name: str | None = None) -> Dataset:
        """Splits each element into the rows of its leading dimension."""
        return _nodes.UnbatchDataset(self)

    def rebatch(self, batch_size: IntLike | Sequence[IntLike], drop_remainder: bool = False,
                name: str | None = None) -> Dataset:
        """Re-slices batches to new sizes, cycling through `batch_size` if it is a list (RebatchV2)."""
        return _nodes.RebatchDataset(self, batch_size, drop_remainder)

    def repeat(self, count: IntLike | None = None, name: str | None = None) -> Dataset:
        """Repeats the dataset `count` times (None or -1: forever)."""
        return _nodes.RepeatDataset(self, count)

    def take(self, count: IntLike, name: str | None = None) -> Dataset:
        """The first `count` elements (-1: all)."""
        return _nodes.TakeDataset(self, count)

    def skip(self, count: IntLike, name: str | None = None) -> Dataset:
        """All but the first `count` elements (-1: skip all)."""
        return _nodes.SkipDataset(self, count)

    def shard(self, num_shards: IntLike, index: IntLike, name: str | None = None) -> Dataset:
        """Every `num_shards`-th element starting at `index`."""
        return _nodes.ShardDataset(self, num_shards, index)

    def map(self, map_func: Callable[..., Nest], num_parallel_calls: IntLike | None = None,
            deterministic: bool | None = None, name: str | None = None) -> Dataset:
        """Applies `map_func` to each element (tuple elements are passed as separate arguments)."""
        return (_nodes.MapDataset if num_parallel_calls is None else _nodes.ParallelMapDataset)(self, map_func)

    def filter(self, predicate: Callable[..., Any], name: str | None = None) -> Dataset:
        """Keeps the elements for which `predicate` returns True (a scalar bool)."""
        return _nodes.FilterDataset(self, predicate)

    def flat_map(self, map_func: Callable[..., Dataset], name: str | None = None) -> Dataset:
        """Maps each element to a dataset and flattens the results in order."""
        return _nodes.FlatMapDataset(self, map_func)

    def interleave(self, map_func: Callable[..., Dataset], cycle_length: IntLike | None = None,
                   block_length: IntLike | None = None, num_parallel_calls: IntLike | None = None,
                   deterministic: bool | None = None, name: str | None = None) -> Dataset:
        """Maps each element to a dataset and interleaves `block_length` elements from `cycle_length` of them."""
        interleave = _nodes.InterleaveDataset if num_parallel_calls is None else _nodes.ParallelInterleaveDataset
        return interleave(self, map_func, cycle_length, block_length)

    def shuffle(self, buffer_size: IntLike, seed: int | None = None, reshuffle_each_iteration: bool | None = None,
                name: str | None = None) -> Dataset:
        """Shuffles with a buffer of `buffer_size` elements, in TF's order for the same seeds."""
        return _nodes.ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

    def prefetch(self, buffer_size: IntLike, name: str | None = None) -> Dataset:
        """Accepted for compatibility: iteration is synchronous, elements are unchanged."""
        return _nodes.PrefetchDataset(self, buffer_size)

    def concatenate(self, dataset: Dataset, name: str | None = None) -> Dataset:
        """The elements of this dataset followed by those of `dataset`."""
        return _nodes.ConcatenateDataset(self, dataset)

    def cache(self, filename: str = "", name: str | None = None) -> Dataset:
        """Remembers the elements after the first complete iteration (in memory, whatever `filename`)."""
        return _nodes.CacheDataset(self, filename)

    def enumerate(self, start: IntLike = 0, name: str | None = None) -> Dataset:
        """Pairs each element with its int64 index: ``(i, element)``."""
        return Dataset.zip((Dataset.range(start, _INT64_MAX), self))

    def with_options(self, options: Options, name: str | None = None) -> Dataset:
        """The same dataset with `options` merged over the current ones."""
        return _nodes.OptionsDataset(self, options)

    def apply(self, transformation_func: Callable[[Dataset], object]) -> Dataset:
        """``transformation_func(self)``, which must return a Dataset."""
        dataset = transformation_func(self)
        if not isinstance(dataset, Dataset):
            raise TypeError(f"`transformation_func` must return a `tf.data.Dataset` object. Got {type(dataset)}.")
        return dataset


DatasetV2 = Dataset


class VariantDataset(Dataset):
    """A dataset held as an element of another (TF's ``_VariantDataset``): a window's column, a dataset given to
    ``from_tensors`` or returned by a map function. It iterates a list of already-built elements with the given
    element_spec, or another dataset."""

    def __init__(self, elements: Dataset | Iterable[Nest], element_spec: Nest) -> None:
        self._elements = elements if isinstance(elements, Dataset) else list(elements)
        self._spec = element_spec

    def _iterate(self) -> Iterator[Nest]:
        return self._elements._iterate() if isinstance(self._elements, Dataset) else iter(self._elements)

    def _compute_element_spec(self) -> Nest:
        return self._spec

    def _compute_cardinality(self) -> int:
        return self._elements._compute_cardinality() if isinstance(self._elements, Dataset) else len(self._elements)


def as_variant(dataset: Dataset) -> VariantDataset:
    """`dataset` as a dataset-valued element (what TF's iterator hands out for it)."""
    return dataset if isinstance(dataset, VariantDataset) else VariantDataset(dataset, dataset.element_spec)


def get_single_element(dataset: Dataset) -> Nest:
    """``tf.data.experimental.get_single_element``."""
    if not isinstance(dataset, Dataset):
        raise TypeError(f"Invalid `dataset`. Expected a `tf.data.Dataset` object but got {type(dataset)}.")
    elements = dataset._iterate()
    first = next(elements, _NONE)
    if first is _NONE:
        raise _structure._invalid_argument("Dataset was empty.")
    if next(elements, _NONE) is not _NONE:
        raise _structure._invalid_argument("Dataset had more than one element.")
    return _structure.to_public(first)


_NONE = object()
_INT64_MAX = 2**63 - 1


# ---- pipeline rewrites for the distribution layer (see the module docstring) ----

def walk(dataset: Dataset) -> Iterator[Dataset]:
    """Every node of the pipeline, the final dataset first."""
    seen: set[int] = set()
    stack = [dataset]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        stack.extend(node._inputs)


def source_files(dataset: Dataset) -> list[str] | None:
    """The files the pipeline reads (in order), or None if it has no file source."""
    files: list[str] | None = None
    for node in walk(dataset):
        found = node._source_files()
        if found is not None:
            files = (files or []) + list(found)
    return files


def rewrite(dataset: Dataset, replace: Callable[[Dataset], Dataset]) -> Dataset:
    """Rebuilds the pipeline with ``replace(node)`` applied bottom-up to every node."""
    memo: dict[int, Dataset] = {}

    def visit(node: Dataset) -> Dataset:
        key = id(node)  # a node shared by several consumers is rebuilt once
        if key not in memo:
            inputs = tuple(visit(i) for i in node._inputs)
            rebuilt = node
            if any(new is not old for new, old in zip(inputs, node._inputs, strict=True)):
                rebuilt = node._clone_with_inputs(inputs)
            memo[key] = replace(rebuilt)
        return memo[key]

    return visit(dataset)


def shard_files(dataset: Dataset, num_shards: int, index: int) -> Dataset:
    """The pipeline reading only files i with ``i % num_shards == index`` (the FILE auto-shard policy)."""
    files = source_files(dataset)
    if files is None:
        raise _structure._invalid_argument("The dataset does not read files, so it cannot be sharded by FILE.")
    if len(files) < num_shards:
        raise _structure._invalid_argument(
            f"Number of files ({len(files)}) is smaller than the number of shards ({num_shards}); "
            "use AutoShardPolicy.DATA or OFF instead.")
    def reshard(node: Dataset) -> Dataset:
        files = node._source_files()
        return cast(_FileSource, node)._with_files(files[index::num_shards]) if files is not None else node

    return rewrite(dataset, reshard)


def replace_shard_hints(dataset: Dataset, num_shards: int, index: int) -> Dataset:
    """The pipeline with every ``shard(SHARD_HINT, ...)`` made concrete (the HINT auto-shard policy)."""
    return rewrite(dataset, lambda node: node._with_shard(num_shards, index)
                   if isinstance(node, _nodes.ShardDataset) and node.is_hint else node)


def call_with_element(fn: Callable[..., Any], element: Nest) -> Any:
    """Calls fn the way tf.data does: a plain tuple element is unpacked into arguments (strings as tf.string
    tensors)."""
    element = _structure.to_public(element)
    if type(element) is tuple:
        return fn(*element)
    return fn(element)

