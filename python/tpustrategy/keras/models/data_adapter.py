"""The data of fit / evaluate / predict as batches per step, split across the model's replicas.

Arrays (numpy, tensors, lists, nests of them): ``validation_split`` takes the last fraction (before any
shuffling, as Keras), each epoch is ``from_tensor_slices((x, y, sample_weight)).batch(batch_size)`` of the
(shuffled) arrays; ``class_weight`` becomes per-sample weights. A ``tf.data.Dataset`` is used as given
(its elements are ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``). Under a strategy each
global batch goes through ``strategy.experimental_distribute_dataset``, so it is split across the
replicas with TF's rules. With ``steps_per_epoch`` the iterator carries over from epoch to epoch (see
``epoch_batches``).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from tpustrategy import _core, nest
from tpustrategy.data.dataset_ops import Dataset
from tpustrategy.distribute.input_lib import _DistributedDatasetBase

if TYPE_CHECKING:
    from tpustrategy.distribute.distribute_lib import StrategyBase

_logger = logging.getLogger("tpustrategy")


def _structure_of_arrays(value: Any) -> Any:
    """A list of arrays is a structure (one per model input or output), as in Keras 3; a list of numbers
    stays one array."""
    if isinstance(value, list) and value and all(isinstance(a, np.ndarray) or hasattr(a, "_as_tensor") or
                                                 isinstance(a, _core.tensor.Tensor) for a in value):
        return tuple(value)
    return value


def unpack_x_y_sample_weight(data: Any) -> tuple[Any, Any, Any]:
    """``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)`` -> (x, y, sample_weight) with None for the missing."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data
    raise ValueError(f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, found: "
                     f"{data!r}")


def _as_array(value: Any) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, _core.tensor.Tensor) or hasattr(value, "numpy"):
        return np.asarray(value.numpy())
    return np.asarray(value)


def _num_rows(arrays: Any) -> int:
    sizes = {a.shape[0] if a.ndim else None for a in nest.flatten(arrays)}
    if None in sizes:
        raise ValueError("Expected arrays with a batch dimension; got a scalar.")
    if len(sizes) != 1:
        raise ValueError(f"Data cardinality is ambiguous. Make sure all arrays contain the same number of samples. "
                         f"Got sizes {sorted(cast('set[int]', sizes))}")
    return cast(int, sizes.pop())


def class_weight_to_sample_weights(y: Any, class_weight: dict[int, float]) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim > 1:
        y = np.argmax(y, axis=-1) if y.shape[-1] != 1 else np.squeeze(y, -1)
    y = np.round(y).astype(np.int64)
    return np.asarray([class_weight.get(int(label), 1.0) for label in y], np.float32)


def _class_weight_map_fn(class_weight: dict[int, float]) -> Callable[..., tuple[Any, Any, Any]]:
    """Keras 3's map over a Dataset's (x, y) elements: adds the sample weights `class_weight` gives y."""

    def add_weights(*data: Any) -> tuple[Any, Any, Any]:
        x, y, sample_weight = unpack_x_y_sample_weight(data if len(data) > 1 else data[0])
        if sample_weight is not None:
            raise ValueError("You cannot `class_weight` and `sample_weight` at the same time.")
        if y is None:
            raise ValueError("`class_weight` needs targets: the dataset's elements must be (x, y).")
        if nest.is_nested(y):
            raise ValueError("`class_weight` is only supported for Models with a single output.")
        weights = class_weight_to_sample_weights(np.asarray(y.numpy() if hasattr(y, "numpy") else y), class_weight)
        return x, y, _core.tensor.convert_to_tensor(weights)

    return add_weights


def _float32(array: np.ndarray) -> np.ndarray:
    return array.astype(np.float32) if array.dtype.kind == "f" and array.dtype != np.float32 else array


class DataHandler:
    """Batches for each epoch of one fit / evaluate / predict call."""

    def __init__(self, x: Any, y: Any = None, sample_weight: Any = None, batch_size: int | None = None,
                 steps_per_epoch: int | None = None, shuffle: bool = False,
                 class_weight: dict[int, float] | None = None, strategy: StrategyBase | None = None,
                 distribute: bool = False, seed: int | None = None) -> None:
        self.strategy, self.distribute = strategy, distribute
        self.steps_per_epoch = steps_per_epoch
        self._shuffle = shuffle
        self._rng = np.random.default_rng(seed)
        self._iterator: Iterator[Any] | None = None
        self._seen = 0
        self._distributed_input: _DistributedDatasetBase | None = None
        self._arrays: tuple[Any, ...] | None
        self._dataset: Dataset | None
        self.num_batches: int | None
        if isinstance(x, _DistributedDatasetBase):  # already per replica (distribute_datasets_from_function ...)
            if y is not None or sample_weight is not None or class_weight is not None:
                raise ValueError("When providing `x` as a distributed dataset, `y`, `sample_weight` and `class_weight` "
                                 "should not be passed: they belong in the dataset's elements.")
            if not distribute:
                raise ValueError("A distributed dataset needs a model created in its strategy's scope.")
            self._distributed_input, self._arrays, self._dataset, self.num_batches = x, None, None, None
        elif isinstance(x, Dataset):
            if y is not None:
                raise ValueError("When providing `x` as a tf.data.Dataset, `y` should not be passed. Instead, the "
                                 "targets should be included as part of the tf.data.Dataset.")
            if sample_weight is not None:
                raise ValueError("When providing `x` as a tf.data.Dataset, `sample_weight` should not be passed. "
                                 "Instead, the sample weights should be included as part of the tf.data.Dataset.")
            if class_weight is not None:
                x = x.map(_class_weight_map_fn(class_weight))
            self._dataset = x
            self._arrays = None
            cardinality = x._compute_cardinality()
            self.num_batches = cardinality if cardinality >= 0 else None
        else:
            if x is None:
                raise ValueError("Unrecognized data type: x=None (expected arrays or a tf.data.Dataset)")
            x, y = _structure_of_arrays(x), _structure_of_arrays(y)
            x = nest.map_structure(lambda a: _float32(_as_array(a)), x)
            y = nest.map_structure(_as_array, y) if y is not None else None
            if class_weight is not None:
                if y is None or nest.is_nested(y):
                    raise ValueError("`class_weight` is only supported for Models with a single output.")
                weights = class_weight_to_sample_weights(y, class_weight)
                sample_weight = weights if sample_weight is None else weights * np.asarray(sample_weight, np.float32)
            if sample_weight is not None:
                sample_weight = np.asarray(sample_weight, np.float32)
            self._arrays = tuple(a for a in (x, y, sample_weight) if a is not None) if y is not None else (x,)
            self._rows = _num_rows(list(self._arrays))
            self.batch_size = 32 if batch_size is None else int(batch_size)
            if self.batch_size <= 0:
                raise ValueError(f"`batch_size` must be a positive integer. Received: batch_size={batch_size}")
            self.num_batches = math.ceil(self._rows / self.batch_size)
            self._dataset = None
        self.steps = steps_per_epoch if steps_per_epoch is not None else self.num_batches

    def sample(self) -> tuple[Any, Any, Any]:
        """A one-example (x, y, sample_weight) from the data, to build the model and the metrics."""
        if self._arrays is not None:
            element = nest.map_structure(lambda a: a[:1], self._arrays)
            return unpack_x_y_sample_weight(element)
        if self._distributed_input is not None:
            assert self.strategy is not None  # a distributed input needs distribute=True, i.e. a strategy
            first = self.strategy.experimental_local_results(next(iter(self._distributed_input)))[0]
            return unpack_x_y_sample_weight(nest.map_structure(lambda t: _as_array(t)[:1], first))
        assert self._dataset is not None  # neither arrays nor a distributed input: a Dataset
        first = next(iter(self._dataset.take(1)))
        return unpack_x_y_sample_weight(nest.map_structure(lambda t: _as_array(t)[:1], first))

    def _epoch_dataset(self) -> Dataset:
        if self._arrays is None:
            assert self._dataset is not None  # _new_iterator handled a distributed input
            return self._dataset
        arrays = self._arrays
        if self._shuffle:
            order = self._rng.permutation(self._rows)
            arrays = nest.map_structure(lambda a: a[order], arrays)
        element = arrays if len(arrays) > 1 or nest.is_nested(arrays[0]) else arrays[0]  # (x,) keeps x whole
        return Dataset.from_tensor_slices(element).batch(self.batch_size)

    def _new_iterator(self) -> Iterator[Any]:
        if self._distributed_input is not None:
            return iter(self._distributed_input)
        dataset = self._epoch_dataset()
        if self.distribute:
            assert self.strategy is not None  # the trainer distributes only with its strategy
            dataset = self.strategy.experimental_distribute_dataset(dataset)
        return iter(dataset)

    def epoch_batches(self) -> Iterator[Any]:
        """Yields the batches of one epoch (per-replica values under a strategy), as Keras 3's EpochIterator:
        with ``steps_per_epoch`` the iterator carries over between epochs and starts again once a whole pass
        of a finite input has been used; running out of data mid-epoch warns and ends the epoch."""
        steps = self.steps_per_epoch or self.num_batches
        if steps is None:
            self._iterator, self._seen = self._new_iterator(), 0
            for batch in self._iterator:
                self._seen += 1
                yield batch
            self.steps = self._seen
            return
        if self._iterator is None or self.steps_per_epoch is None:
            self._iterator, self._seen = self._new_iterator(), 0
        for _ in range(steps):
            if self.num_batches and self._seen >= self.num_batches:
                if self.steps_per_epoch:
                    _warn_ran_out()
                break
            try:
                batch = next(self._iterator)
            except StopIteration:
                _warn_ran_out()
                if self.num_batches is None:
                    self.num_batches = self._seen
                self._iterator = None
                return
            self._seen += 1
            yield batch
        if self.num_batches and self._seen >= self.num_batches:
            self._iterator, self._seen = self._new_iterator(), 0


def _warn_ran_out() -> None:
    _logger.warning("Your input ran out of data; interrupting training. Make sure that your dataset or generator can "
                    "generate at least `steps_per_epoch * epochs` batches. You may need to use the `.repeat()` "
                    "function when building your dataset.")
