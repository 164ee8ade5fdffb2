"""The iterator returned by ``iter(dataset)`` (mirrors ``tensorflow.python.data.ops.iterator_ops``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tpustrategy import _core, errors
from tpustrategy.data import _structure


class Optional:
    """A value that may be absent (``tf.experimental.Optional``)."""

    def __init__(self, value: Any = None, has_value: bool = False) -> None:
        self._value = value
        self._has_value = has_value

    @staticmethod
    def from_value(value: Any) -> Optional:
        """An Optional holding `value`."""
        return Optional(value, True)

    @staticmethod
    def empty(element_spec: Any = None) -> Optional:
        """An Optional without a value."""
        return Optional()

    def has_value(self, name: str | None = None) -> _core.tensor.Tensor:
        """A scalar bool tensor: whether a value is present."""
        has_value: _core.tensor.Tensor = _core.tensor.constant(self._has_value)  # the binding's result is untyped
        return has_value

    def get_value(self, name: str | None = None) -> Any:
        """The value (InvalidArgumentError when there is none)."""
        if not self._has_value:
            raise errors.InvalidArgumentError(None, None, "The optional does not have a value.")
        return self._value


class OwnedIterator:
    """Iterates a dataset once; ``get_next`` raises OutOfRangeError at the end, ``next`` StopIteration."""

    def __init__(self, dataset: Any) -> None:
        # Duck-typed: dataset_ops imports this module, so Dataset is not importable here.
        if not (hasattr(dataset, "_iterate") and hasattr(dataset, "element_spec")):
            raise TypeError(f"Iterator: `dataset` must be a tf.data.Dataset, got {type(dataset).__name__}: {dataset!r}")
        self._element_spec = dataset.element_spec
        self._elements: Iterator[Any] = dataset._iterate()

    @property
    def element_spec(self) -> Any:
        """The spec of the elements this iterator yields (its dataset's element_spec)."""
        return self._element_spec

    def __iter__(self) -> OwnedIterator:
        return self

    def __next__(self) -> Any:
        try:
            return _structure.to_public(next(self._elements))
        except StopIteration:
            raise errors.EndOfSequence from None

    def get_next(self, name: str | None = None) -> Any:
        """The next element (OutOfRangeError at the end)."""
        try:
            return _structure.to_public(next(self._elements))
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence") from None

    def get_next_as_optional(self) -> Optional:
        """The next element as an Optional, empty at the end."""
        try:
            return Optional.from_value(_structure.to_public(next(self._elements)))
        except StopIteration:
            return Optional()

    def __repr__(self) -> str:
        return f"<OwnedIterator element_spec={self._element_spec}>"
