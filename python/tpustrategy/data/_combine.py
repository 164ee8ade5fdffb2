"""Transformations that combine datasets: zip, concatenate, flat_map, interleave (see dataset_ops.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import SupportsInt

from tpustrategy.data import _structure
from tpustrategy.data._structure import Nest
from tpustrategy.data._transforms import _dummy_element, _int_arg, _invalid, _relax, _UnaryDataset
from tpustrategy.data.dataset_ops import INFINITE, UNKNOWN, Dataset, call_with_element, not_a_dataset


def _as_dataset(value: object, what: str) -> Dataset:
    if not isinstance(value, Dataset):
        raise not_a_dataset(value, f"what `{what}` returns")
    return value


class FlatMapDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, map_func: Callable[..., Dataset]) -> None:
        super().__init__(input_dataset)
        self._fn = map_func

    def _iterate(self) -> Iterator[Nest]:
        for element in self._input._iterate():
            yield from _as_dataset(call_with_element(self._fn, element), "map_func")._iterate()

    def _compute_element_spec(self) -> Nest:
        first = next(iter(self._input._iterate()), None)
        if first is None:  # an empty input: the function applied to a stand-in of the input's spec, as TF traces it
            first = _dummy_element(self._input.element_spec, 1)
        return _as_dataset(call_with_element(self._fn, first), "map_func").element_spec

    def _compute_cardinality(self) -> int:
        return UNKNOWN


class InterleaveDataset(FlatMapDataset):
    def __init__(self, input_dataset: Dataset, map_func: Callable[..., Dataset], cycle_length: SupportsInt | None,
                 block_length: SupportsInt | None) -> None:
        super().__init__(input_dataset, map_func)
        cycle = None if cycle_length is None else _int_arg(cycle_length, "cycle_length")
        self._cycle_length = 4 if cycle is None or cycle == -1 else cycle  # AUTOTUNE: a fixed width here
        self._block_length = 1 if block_length is None else _int_arg(block_length, "block_length")
        if self._cycle_length <= 0 or self._block_length <= 0:
            raise _invalid("cycle_length and block_length must be greater than zero.")

    def _iterate(self) -> Iterator[Nest]:
        # TF's order: a slot whose dataset ends stays empty until its turn comes round again.
        inputs = self._input._iterate()
        slots: list[Iterator[Nest] | None] = [None] * self._cycle_length
        cycle_index = block_index = open_count = 0
        end_of_input = False
        while not end_of_input or open_count > 0:
            current = slots[cycle_index]
            if current is not None:
                element = next(current, _END)
                if element is not _END:
                    block_index += 1
                    if block_index == self._block_length:
                        cycle_index, block_index = (cycle_index + 1) % self._cycle_length, 0
                    yield element
                    continue
                slots[cycle_index] = None
                open_count -= 1
                cycle_index, block_index = (cycle_index + 1) % self._cycle_length, 0
            elif not end_of_input:
                element = next(inputs, _END)
                if element is _END:
                    end_of_input = True
                else:
                    slots[cycle_index] = _as_dataset(call_with_element(self._fn, element), "map_func")._iterate()
                    open_count += 1
            else:
                cycle_index, block_index = (cycle_index + 1) % self._cycle_length, 0


class ParallelInterleaveDataset(InterleaveDataset):
    """``interleave`` with ``num_parallel_calls``: the same order here (TF's ``_ParallelInterleaveDataset``)."""


class ZipDataset(Dataset):
    def __init__(self, datasets: Nest) -> None:
        if isinstance(datasets, list):  # tf.data nests take tuples, not lists (TF raises the same TypeError)
            raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                            "`tf.data.Dataset` objects. Python `list` is not supported and you should use `tuple` "
                            "instead.")
        if not _structure.flatten(datasets):
            raise _invalid("Length for attr 'output_types' of 0 must be at least minimum 1: `zip` needs at least one "
                           "dataset.")
        for ds in _structure.flatten(datasets):
            if not isinstance(ds, Dataset):
                raise TypeError(f"Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                                f"`tf.data.Dataset` objects. Python `list` is not supported and you should use "
                                f"`tuple` instead. Got {type(ds).__name__}.")
        self._structure = datasets
        self._inputs = tuple(_structure.flatten(datasets))

    def _clone_with_inputs(self, inputs: Iterable[Dataset]) -> ZipDataset:
        clone = super()._clone_with_inputs(inputs)
        clone._structure = _structure.pack_as(self._structure, inputs)
        return clone

    def _iterate(self) -> Iterator[Nest]:
        iterators = [ds._iterate() for ds in self._inputs]
        while True:
            leaves = []
            for it in iterators:
                element = next(it, _END)
                if element is _END:
                    return
                leaves.append(element)
            yield _structure.pack_as(self._structure, leaves)

    def _compute_element_spec(self) -> Nest:
        return _structure.pack_as(self._structure, [ds.element_spec for ds in self._inputs])

    def _compute_cardinality(self) -> int:
        result = INFINITE
        for ds in self._inputs:
            n = ds._compute_cardinality()
            if n == UNKNOWN:
                return UNKNOWN
            if n != INFINITE and (result == INFINITE or n < result):
                result = n
        return result


_END = object()


class ConcatenateDataset(Dataset):
    def __init__(self, first: Dataset, second: Dataset) -> None:
        if not isinstance(second, Dataset):
            raise TypeError(f"`dataset` must be a tf.data.Dataset, got {type(second).__name__}")
        a, b = first.element_spec, second.element_spec
        pairs = zip(_structure.flatten(a), _structure.flatten(b), strict=False)
        if not _structure.same_structure(a, b) or not all(_structure.specs_compatible(x, y) for x, y in pairs):
            raise TypeError(f"Incompatible dataset elements:\n  {a} vs.\n  {b}")
        self._inputs = (first, second)

    def _iterate(self) -> Iterator[Nest]:
        yield from self._inputs[0]._iterate()
        yield from self._inputs[1]._iterate()

    def _compute_element_spec(self) -> Nest:
        return _relax(self._inputs[0].element_spec, self._inputs[1].element_spec)

    def _compute_cardinality(self) -> int:
        a, b = (ds._compute_cardinality() for ds in self._inputs)
        if INFINITE in (a, b):
            return INFINITE
        if UNKNOWN in (a, b):
            return UNKNOWN
        return a + b
