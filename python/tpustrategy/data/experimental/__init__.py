"""``tf.data.experimental``: distribution options, sharding constants and cardinality."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from tpustrategy.data._sampling import choose_from_datasets, sample_from_datasets
from tpustrategy.data.dataset_ops import INFINITE as INFINITE_CARDINALITY
from tpustrategy.data.dataset_ops import UNKNOWN as UNKNOWN_CARDINALITY
from tpustrategy.data.dataset_ops import get_single_element
from tpustrategy.data.options import (
    AUTOTUNE,
    SHARD_HINT,
    AutoShardPolicy,
    AutotuneAlgorithm,
    AutotuneOptions,
    DistributeOptions,
    ExternalStatePolicy,
    OptimizationOptions,
    ThreadingOptions,
)

if TYPE_CHECKING:
    from tpustrategy.data._structure import Nest
    from tpustrategy.data.dataset_ops import Dataset, DTypeLike, IntLike
    from tpustrategy.framework.tensor import Tensor

# What the functions below return: a transformation for ``dataset.apply``.
Transformation: TypeAlias = "Callable[[Dataset], Dataset]"


def cardinality(dataset: Dataset) -> Tensor:
    """``dataset.cardinality()`` (``tf.data.experimental.cardinality``)."""
    from tpustrategy.data.dataset_ops import Dataset

    if not isinstance(dataset, Dataset):
        raise TypeError(f"cardinality: `dataset` must be a tf.data.Dataset, got {type(dataset).__name__}: {dataset!r}")
    return dataset.cardinality()


__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "SHARD_HINT",
    "UNKNOWN_CARDINALITY",
    "AutoShardPolicy",
    "AutotuneAlgorithm",
    "AutotuneOptions",
    "DistributeOptions",
    "ExternalStatePolicy",
    "OptimizationOptions",
    "ThreadingOptions",
    "Counter",
    "RandomDataset",
    "assert_cardinality",
    "bucket_by_sequence_length",
    "cardinality",
    "choose_from_datasets",
    "get_single_element",
    "group_by_window",
    "ignore_errors",
    "sample_from_datasets",
    "scan",
    "take_while",
    "unique",
]


def assert_cardinality(expected_cardinality: IntLike) -> Transformation:
    """``dataset.apply(assert_cardinality(n))``."""
    return lambda dataset: dataset.assert_cardinality(expected_cardinality)


def ignore_errors(log_warning: bool = False) -> Transformation:
    """For ``dataset.apply``: ``dataset.ignore_errors(log_warning)``, dropping elements whose production raised."""
    return lambda dataset: dataset.ignore_errors(log_warning)


def scan(initial_state: Nest, scan_func: Callable[[Nest, Nest], tuple[Nest, Nest]]) -> Transformation:
    """For ``dataset.apply``: ``dataset.scan(initial_state, scan_func)``, a running state over the elements."""
    return lambda dataset: dataset.scan(initial_state, scan_func)


def take_while(predicate: Callable[..., Any]) -> Transformation:
    """For ``dataset.apply``: ``dataset.take_while(predicate)``, the elements before `predicate` first fails."""
    return lambda dataset: dataset.take_while(predicate)


def unique() -> Transformation:
    """For ``dataset.apply``: ``dataset.unique()``, the elements not equal to an earlier one."""
    return lambda dataset: dataset.unique()


def group_by_window(key_func: Callable[..., Any], reduce_func: Callable[[Tensor, Dataset], Dataset],
                    window_size: IntLike | None = None,
                    window_size_func: Callable[[Tensor], Any] | None = None) -> Transformation:
    """For ``dataset.apply``: ``dataset.group_by_window(...)``, windows of elements grouped by ``key_func``.

    Give exactly one of `window_size` and `window_size_func` (a key to a window size); applying the
    transformation raises ValueError otherwise.
    """
    return lambda dataset: dataset.group_by_window(key_func, reduce_func, window_size, window_size_func)


def bucket_by_sequence_length(element_length_func: Callable[..., Any], bucket_boundaries: Sequence[int],
                              bucket_batch_sizes: Sequence[int], padded_shapes: Nest = None,
                              padding_values: Nest = None, pad_to_bucket_boundary: bool = False,
                              no_padding: bool = False, drop_remainder: bool = False) -> Transformation:
    """For ``dataset.apply``: ``dataset.bucket_by_sequence_length(...)``, batches of elements of similar length.

    `bucket_batch_sizes` has one more entry than `bucket_boundaries`; applying the transformation raises
    ValueError otherwise.
    """
    return lambda dataset: dataset.bucket_by_sequence_length(
        element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes, padding_values,
        pad_to_bucket_boundary, no_padding, drop_remainder)


def Counter(start: IntLike = 0, step: IntLike = 1, dtype: DTypeLike = "int64") -> Dataset:  # noqa: N802  (TF's name)
    """``Dataset.counter(start, step, dtype)``: the endless sequence ``start, start + step, ...``."""
    from tpustrategy.data.dataset_ops import Dataset

    return Dataset.counter(start, step, dtype)


def RandomDataset(seed: int | None = None) -> Dataset:  # noqa: N802  (TF's name)
    """``Dataset.random(seed)``: an endless stream of pseudorandom int64 scalars, TF's values for a given seed."""
    from tpustrategy.data.dataset_ops import Dataset

    return Dataset.random(seed)
