"""The iterator returned by ``iter(dataset)`` (mirrors ``tensorflow.python.data.ops.iterator_ops``)."""

from __future__ import annotations

from tpustrategy import _core, errors
from tpustrategy.data import _structure


class Optional:
    """A value that may be absent (``tf.experimental.Optional``)."""

    def __init__(self, value=None, has_value=False):
        self._value = value
        self._has_value = has_value

    @staticmethod
    def from_value(value):
        return Optional(value, True)

    @staticmethod
    def empty(element_spec=None):
        return Optional()

    def has_value(self, name=None):
        return _core.tensor.constant(self._has_value)

    def get_value(self, name=None):
        if not self._has_value:
            raise errors.InvalidArgumentError(None, None, "The optional does not have a value.")
        return self._value


class OwnedIterator:
    """Iterates a dataset once; ``get_next`` raises OutOfRangeError at the end, ``next`` StopIteration."""

    def __init__(self, dataset):
        # Duck-typed: dataset_ops imports this module, so Dataset is not importable here.
        if not (hasattr(dataset, "_iterate") and hasattr(dataset, "element_spec")):
            raise TypeError(f"Iterator: `dataset` must be a tf.data.Dataset, got {type(dataset).__name__}: {dataset!r}")
        self._element_spec = dataset.element_spec
        self._elements = dataset._iterate()

    @property
    def element_spec(self):
        return self._element_spec

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return _structure.to_public(next(self._elements))
        except StopIteration:
            raise errors.EndOfSequence from None

    def get_next(self, name=None):
        try:
            return _structure.to_public(next(self._elements))
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence") from None

    def get_next_as_optional(self):
        try:
            return Optional.from_value(_structure.to_public(next(self._elements)))
        except StopIteration:
            return Optional()

    def __repr__(self):
        return f"<OwnedIterator element_spec={self._element_spec}>"
