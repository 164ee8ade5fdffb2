"""Transformations with state across elements: scan, take_while, unique, assert_cardinality,
ignore_errors (see dataset_ops.py)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable, Iterator
from typing import Any, SupportsInt

import numpy as np

from tpustrategy import _core
from tpustrategy.data import _structure
from tpustrategy.data._structure import Nest
from tpustrategy.data._transforms import (
    FilterDataset,
    MapDataset,
    OptionsDataset,
    PrefetchDataset,
    _as_predicate_result,
    _dummy_element,
    _int_arg,
    _relax,
    _UnaryDataset,
)
from tpustrategy.data.dataset_ops import INFINITE, UNKNOWN, Dataset, call_with_element
from tpustrategy.framework.tensor import Tensor


class ScanDataset(_UnaryDataset):
    """``scan_func(state, element) -> (new_state, output)``; the element is passed as one argument."""

    def __init__(self, input_dataset: Dataset, initial_state: Nest,
                 scan_func: Callable[[Nest, Nest], tuple[Nest, Nest]]) -> None:
        super().__init__(input_dataset)
        if not callable(scan_func):
            raise TypeError("`scan_func` must be callable.")
        self._initial_state = _structure.normalize_element(initial_state)
        self._fn = scan_func
        self.element_spec  # noqa: B018  (checks scan_func now: TF raises these errors when it traces)

    def _step(self, state: Nest, element: Nest) -> tuple[Nest, Nest]:
        result = self._fn(state, element)
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise TypeError(f"Invalid `scan_func`. `scan_func` should return a pair consisting of new state and the "
                            f"output value but its return type is {_return_type(result)}.")
        new_state = _structure.normalize_function_output(result[0])
        if isinstance(result[0], list):
            new_state = _structure.normalize_element(result[0])  # a list state is a value, like the initial one
        output = _structure.normalize_function_output(result[1])
        old_spec, new_spec = _structure.spec_of(state), _structure.spec_of(new_state)
        if not _structure.same_structure(old_spec, new_spec):
            raise TypeError(f"Invalid `scan_func`. The element structure for the new state must match the initial "
                            f"state. Expected {old_spec}; got {new_spec}.")
        for a, b in zip(_structure.flatten(old_spec), _structure.flatten(new_spec), strict=True):
            if not _structure.specs_compatible(a, b):
                raise TypeError(f"Invalid `scan_func`. The element types for the new state must match the initial "
                                f"state. Expected {old_spec}; got {new_spec}.")
        return new_state, output

    def _iterate(self) -> Iterator[Nest]:
        state = self._initial_state
        for element in self._input._iterate():
            state, output = self._step(state, element)
            yield output

    def _compute_element_spec(self) -> Nest:
        # As TF's tracing: relax the state's shape until a step keeps it, then read the output's spec.
        element_spec = self._input.element_spec
        state_spec = _structure.spec_of(self._initial_state)
        state = self._initial_state
        try:
            for _ in range(8):
                new_state, output = self._step(state, _dummy_element(element_spec, 1))
                relaxed = _relax(state_spec, _structure.spec_of(new_state))
                if relaxed == state_spec:
                    break
                state_spec = relaxed
                state = _dummy_element(state_spec, 1)
            spec = _structure.spec_of(output)
            if state_spec != _structure.spec_of(self._initial_state) or _has_none(element_spec):
                second = self._step(_dummy_element(state_spec, 2), _dummy_element(element_spec, 2))[1]
                spec = _relax(spec, _structure.spec_of(second))
            return spec
        except TypeError:
            raise
        except Exception:  # a data-dependent function: read the first real output
            element = next(iter(self._input._iterate()), None)
            if element is None:
                raise
            return _structure.spec_of(self._step(self._initial_state, element)[1])


def _return_type(result: object) -> str:
    try:  # TF names the returned value's spec
        return repr(_structure.spec_of(_structure.normalize_function_output(result)))
    except (TypeError, ValueError):
        return type(result).__name__


def _has_none(spec: Nest) -> bool:
    return any(s.shape.rank is None or None in s.shape.as_list() for s in _structure.flatten(spec))


class TakeWhileDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, predicate: Callable[..., Any]) -> None:
        super().__init__(input_dataset)
        if not callable(predicate):
            raise TypeError("`predicate` must be callable.")
        self._predicate = predicate

    def _iterate(self) -> Iterator[Nest]:
        for element in self._input._iterate():
            if not _as_predicate_result(call_with_element(self._predicate, element)):
                return
            yield element

    def _compute_cardinality(self) -> int:
        return UNKNOWN


class UniqueDataset(_UnaryDataset):
    """Drops elements equal to an earlier one; single int32 / int64 / string components only (as TF)."""

    def __init__(self, input_dataset: Dataset) -> None:
        super().__init__(input_dataset)
        spec = input_dataset.element_spec
        leaves = _structure.flatten(spec)
        if _structure.is_structure(spec) or len(leaves) != 1:
            raise TypeError("`tf.data.Dataset.unique` does not support datasets with nested or multiple "
                            f"components, got {spec}.")
        leaf = leaves[0]
        if not _structure.is_string_spec(leaf) and leaf.dtype not in (_core.tensor.int32, _core.tensor.int64):
            raise TypeError(f"`tf.data.Dataset.unique` does not support type {leaf.dtype!r} -- only `tf.int32`, "
                            f"`tf.int64`, and `tf.string` are supported.")

    def _iterate(self) -> Iterator[Nest]:
        seen: set[Hashable] = set()
        for element in self._input._iterate():
            key: Hashable
            if isinstance(element, Tensor):
                array = element.numpy()
                key = (array.shape, array.tobytes())
            elif isinstance(element, np.ndarray):
                key = (element.shape, tuple(element.reshape(-1)))
            else:
                key = element
            if key not in seen:
                seen.add(key)
                yield element

    def _compute_cardinality(self) -> int:
        return UNKNOWN


def _count_string(n: int) -> str:
    if n == INFINITE:
        return "an infinite number of elements"
    return "1 element" if n == 1 else f"{n} elements"


class AssertCardinalityDataset(_UnaryDataset):
    def __init__(self, input_dataset: Dataset, expected_cardinality: SupportsInt) -> None:
        super().__init__(input_dataset)
        self._expected = _int_arg(expected_cardinality, "expected_cardinality")

    def _iterate(self) -> Iterator[Nest]:
        from tpustrategy.errors import FailedPreconditionError

        count = 0
        for element in self._input._iterate():
            count += 1
            if self._expected != INFINITE and count > self._expected:
                raise FailedPreconditionError(None, None, f"Input dataset was expected to contain "
                                              f"{_count_string(self._expected)} but contained at least "
                                              f"{_count_string(count)}.")
            yield element
        if count != self._expected:
            raise FailedPreconditionError(None, None, f"Input dataset was expected to contain "
                                          f"{_count_string(self._expected)} but contained only "
                                          f"{_count_string(count)}.")

    def _compute_cardinality(self) -> int:
        return self._expected


_ELEMENTWISE = (MapDataset, FilterDataset, PrefetchDataset, OptionsDataset)


class IgnoreErrorsDataset(_UnaryDataset):
    """Drops the elements whose production raised a TF error (``tf.errors.OpError``).

    Element-wise steps just above it (map, filter, prefetch, with_options) are run here one element at
    a time, so an error there drops only that element, as in TF. An error raised deeper in the
    pipeline (a reader, a batch) ends iteration instead, because the Python iterators below it stop
    on an exception.
    """

    def __init__(self, input_dataset: Dataset, log_warning: bool = False) -> None:
        super().__init__(input_dataset)
        self._log_warning = bool(log_warning)

    def _iterate(self) -> Iterator[Nest]:
        from tpustrategy.errors import OpError

        steps: list[_UnaryDataset] = []
        node = self._input
        while isinstance(node, _ELEMENTWISE):
            steps.append(node)
            node = node._input
        steps.reverse()
        source = node._iterate()
        while True:
            try:
                element = next(source)
            except StopIteration:
                return
            except OpError as error:
                self._warn(error)
                return
            try:
                kept = True
                for step in steps:
                    if isinstance(step, MapDataset):
                        element = step._apply(element)
                    elif isinstance(step, FilterDataset):
                        if not _as_predicate_result(call_with_element(step._predicate, element)):
                            kept = False
                            break
            except OpError as error:
                self._warn(error)
                continue
            if kept:
                yield element

    def _warn(self, error: Exception) -> None:
        if self._log_warning:
            logging.getLogger("tpustrategy").warning("Error raised with error message %s", error)

    def _compute_cardinality(self) -> int:
        return UNKNOWN  # as TF, even for an infinite input
