"""Datasets driven by random or chosen indices: sample_from_datasets, choose_from_datasets,
Dataset.random and Dataset.counter (see dataset_ops.py).

Dataset.random gives TF's numbers (its Philox stream, see _tf_random). sample_from_datasets draws from
numpy's generator (seeded runs are reproducible here): the same seed picks other inputs than in TensorFlow.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from tpustrategy import _core
from tpustrategy.data import _structure, _tf_random
from tpustrategy.data._structure import Nest, Spec
from tpustrategy.data._transforms import _int_arg, _invalid, _relax
from tpustrategy.data.dataset_ops import INFINITE, UNKNOWN, Dataset, _nodes
from tpustrategy.framework.tensor import Tensor, TensorSpec


def _fresh_seed() -> int:
    return int(np.random.SeedSequence().generate_state(1, np.uint64)[0])


class _Reseeding:
    """Seed handling shared by the random sources: a new stream each epoch unless told otherwise."""

    def _init_seed(self, seed: object, rerandomize_each_iteration: object) -> None:
        self._seed = _fresh_seed() if seed is None else _int_arg(seed, "seed")
        self._rerandomize = bool(rerandomize_each_iteration)
        self._epoch = 0

    def _reset_state(self) -> None:
        self._epoch = 0

    def _next_rng(self) -> np.random.Generator:
        epoch = self._epoch if self._rerandomize else 0
        self._epoch += 1
        return np.random.default_rng([self._seed, epoch])


class RandomDataset(Dataset):
    """An infinite stream of pseudorandom int64 scalars (``Dataset.random``): the 32-bit words of TF's Philox
    stream for the iterator's seeds, so TF's values."""

    def __init__(self, seed: object, rerandomize_each_iteration: object) -> None:
        self._seeds = _tf_random.IteratorSeeds(None if seed is None else _int_arg(seed, "seed"),
                                               bool(rerandomize_each_iteration))

    def _reset_state(self) -> None:
        self._seeds = copy.copy(self._seeds)
        self._seeds.reset()

    def _iterate(self) -> Iterator[Tensor]:
        words = _tf_random.Words(*self._seeds.next())
        while True:
            yield _core.tensor.constant(words.next(), "int64")

    def _compute_element_spec(self) -> Spec:
        return TensorSpec([], _core.tensor.int64)

    def _compute_cardinality(self) -> int:
        return INFINITE


class CounterDataset(Dataset):
    """``start, start + step, ...`` forever (``Dataset.counter``)."""

    _tf_name = "_ScanDataset"  # TF scans a repeated from_tensors(0)

    def __init__(self, start: object, step: object, dtype: object) -> None:
        self._dtype = _core.tensor.DType(dtype)
        self._start = _int_arg(start, "start")
        self._step = _int_arg(step, "step")

    def _iterate(self) -> Iterator[Tensor]:
        value = self._start
        while True:
            yield _core.tensor.constant(value, self._dtype)
            value += self._step

    def _compute_element_spec(self) -> Spec:
        return TensorSpec([], self._dtype)

    def _compute_cardinality(self) -> int:
        return INFINITE


def _check_datasets(given: Iterable[Dataset]) -> list[Dataset]:
    datasets = list(given) if not isinstance(given, Dataset) else None
    if datasets is None:
        raise TypeError("Invalid `datasets`. `datasets` should be a list of `tf.data.Dataset` objects.")
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    for ds in datasets:
        if not isinstance(ds, Dataset):
            raise TypeError(f"Invalid `datasets`. `datasets` should be a list of `tf.data.Dataset` objects, got "
                            f"{type(ds).__name__}.")
    first = datasets[0].element_spec
    for i, ds in enumerate(datasets[1:], 1):
        spec = ds.element_spec
        pairs = zip(_structure.flatten(first), _structure.flatten(spec), strict=False)
        if not _structure.same_structure(first, spec) or not all(_structure.specs_compatible(a, b) for a, b in pairs):
            raise TypeError(f"Invalid `datasets`. The structure of elements in `datasets` must be compatible, but "
                            f"`datasets[0]` has {first} and `datasets[{i}]` has {spec}.")
    return datasets


class DirectedInterleaveDataset(Dataset):
    """Each selector element (an int64 index) picks the input that gives the next element.

    An exhausted input ends everything with ``stop_on_empty_dataset``; otherwise it is dropped and its
    selections skipped until every input is exhausted (TF's DirectedInterleave).
    """

    def __init__(self, selector: Dataset, datasets: list[Dataset], stop_on_empty_dataset: bool) -> None:
        self._inputs = (selector, *datasets)
        self._stop_on_empty = bool(stop_on_empty_dataset)

    def _iterate(self) -> Iterator[Nest]:
        selector, *datasets = self._inputs
        iterators: list[Iterator[Nest] | None] = [ds._iterate() for ds in datasets]
        active = len(iterators)
        live = [True] * len(iterators)  # a weighted selector draws among the live inputs only
        choices = selector._iterate(live) if isinstance(selector, _WeightedSelector) else selector._iterate()
        for choice in choices:
            index = int(choice.numpy()) if isinstance(choice, Tensor) else int(choice)
            if not 0 <= index < len(iterators):
                raise _invalid(f"Selector index out of range: {index} >= {len(iterators)}")
            iterator = iterators[index]
            if iterator is None:
                continue
            element = next(iterator, _END)
            if element is not _END:
                yield element
                continue
            if self._stop_on_empty:
                return
            iterators[index] = None
            live[index] = False
            active -= 1
            if active == 0:
                return

    def _compute_element_spec(self) -> Spec:
        spec = self._inputs[1].element_spec
        for ds in self._inputs[2:]:
            spec = _relax(spec, ds.element_spec)
        return spec

    def _compute_cardinality(self) -> int:
        if any(ds._compute_cardinality() == INFINITE for ds in self._inputs[1:]):
            return INFINITE
        return UNKNOWN


_END = object()


class _WeightedSelector(_Reseeding, Dataset):
    """Infinite int64 indices drawn with `weights` (a vector, or a dataset of vectors), as TF's selector."""

    def __init__(self, weights: Any, count: int, seed: object, rerandomize_each_iteration: object) -> None:
        self._init_seed(seed, True if rerandomize_each_iteration is None else rerandomize_each_iteration)
        self._count = count
        self._weights: Dataset | np.ndarray[Any, Any]
        if isinstance(weights, Dataset):
            self._weights = weights
            self._inputs = (weights,)
            return
        if weights is None:
            probabilities = np.full(count, 1.0 / count)
        else:
            probabilities = np.asarray(weights.numpy() if isinstance(weights, Tensor) else weights, np.float64)
            if probabilities.shape != (count,):
                raise ValueError(f"Invalid `weights`. The shape of `weights` should be compatible with "
                                 f"`[len(datasets)]` but is {list(probabilities.shape)}.")
        self._weights = _normalized(probabilities)

    def _iterate(self, live: list[bool] | None = None) -> Iterator[Tensor]:
        """Indices drawn with the weights restricted to the `live` inputs (TF would keep drawing exhausted
        inputs and spin forever once only zero-weight inputs remain; this ends instead)."""
        rng = self._next_rng()
        source = self._weights
        stream: Iterator[Nest] | None
        if isinstance(source, Dataset):
            stream, weights = source._iterate(), np.empty(0)  # each draw reads its weights from the stream
        else:
            stream, weights = None, source
        while True:
            if stream is not None:
                w = next(stream, None)
                if w is None:
                    return
                weights = _normalized(np.asarray(w.numpy() if isinstance(w, Tensor) else w, np.float64))
            p = weights if live is None else np.where(live, weights, 0.0)
            total = p.sum()
            if total <= 0:
                return
            yield _core.tensor.constant(int(rng.choice(self._count, p=p / total)), "int64")

    def _compute_element_spec(self) -> Spec:
        return TensorSpec([], _core.tensor.int64)

    def _compute_cardinality(self) -> int:
        return INFINITE


def _normalized(weights: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    if weights.ndim != 1 or np.any(weights < 0) or not np.all(np.isfinite(weights)) or weights.sum() <= 0:
        raise _invalid(f"`weights` must be a vector of non-negative finite numbers with a positive sum, got "
                       f"{weights.tolist()}.")
    normalized: np.ndarray[Any, Any] = weights / weights.sum()
    return normalized


def sample_from_datasets(datasets: Iterable[Dataset], weights: Any = None, seed: int | None = None,
                         stop_on_empty_dataset: bool = False,
                         rerandomize_each_iteration: bool | None = None) -> Dataset:
    """Elements drawn at random from `datasets` with probabilities `weights` (``Dataset.sample_from_datasets``)."""
    inputs = _check_datasets(datasets)
    selector = _WeightedSelector(weights, len(inputs), seed, rerandomize_each_iteration)
    if len(inputs) == 1:
        return inputs[0]  # TF 2.21 returns a single input as it is (nothing to sample from)
    return DirectedInterleaveDataset(selector, inputs, stop_on_empty_dataset)


def choose_from_datasets(datasets: Iterable[Dataset], choice_dataset: Dataset,
                         stop_on_empty_dataset: bool = True) -> Dataset:
    """Elements taken from ``datasets[i]`` for each ``i`` of `choice_dataset` (``Dataset.choose_from_datasets``)."""
    inputs = _check_datasets(datasets)
    if not isinstance(choice_dataset, Dataset):
        raise TypeError(f"Invalid `choice_dataset`. `choice_dataset` should be a `tf.data.Dataset`, got "
                        f"{type(choice_dataset).__name__}.")
    spec = choice_dataset.element_spec
    if not isinstance(spec, TensorSpec) or spec.dtype != _core.tensor.int64 or not spec.shape.is_compatible_with([]):
        raise TypeError(f"Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar of `tf.int64` "
                        f"dtype, but got {spec}.")
    return DirectedInterleaveDataset(choice_dataset, inputs, stop_on_empty_dataset)


_nodes.sample_from_datasets = sample_from_datasets
_nodes.choose_from_datasets = choose_from_datasets
