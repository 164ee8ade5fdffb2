"""The public types of distributed input, ``tf.distribute.DistributedDataset`` and ``DistributedIterator``.

As in TF 2.21 they are interfaces (TF names them ``DistributedDatasetInterface`` / ``DistributedIteratorInterface``):
what ``experimental_distribute_dataset`` and ``distribute_datasets_from_function`` return, and their iterators, are
instances of them, so ``isinstance`` checks in user code hold for both kinds. The implementations are in input_lib.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class DistributedDatasetInterface:
    """A dataset whose elements are split over the replicas of a strategy (``tf.distribute.DistributedDataset``)."""

    def __iter__(self) -> DistributedIteratorInterface:
        raise NotImplementedError("DistributedDataset.__iter__ must be implemented in descendants")

    @property
    def element_spec(self) -> Any:
        """The type specification of one step's element (per replica: a PerReplicaSpec)."""
        raise NotImplementedError("DistributedDataset.element_spec must be implemented in descendants")

    def reduce(self, initial_state: Any, reduce_fn: Callable[[Any, Any], Any]) -> Any:
        """Folds every step's element into a state, as ``tf.data.Dataset.reduce`` does."""
        raise NotImplementedError("DistributedDataset.reduce must be implemented in descendants")


class DistributedIteratorInterface:
    """An iterator over a distributed dataset (``tf.distribute.DistributedIterator``)."""

    def get_next(self) -> Any:
        """The next step's element; raises OutOfRangeError at the end."""
        raise NotImplementedError("DistributedIterator.get_next must be implemented in descendants")

    def get_next_as_optional(self) -> Any:
        """The next step's element as an Optional, empty at the end."""
        raise NotImplementedError("DistributedIterator.get_next_as_optional must be implemented in descendants")

    @property
    def element_spec(self) -> Any:
        """The type specification of one step's element."""
        raise NotImplementedError("DistributedIterator.element_spec must be implemented in descendants")
