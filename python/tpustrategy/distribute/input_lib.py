"""Distributed datasets and iterators (``tf.distribute.DistributedDataset`` / ``DistributedIterator``).

A distributed dataset holds one pipeline per input worker (host); see input_pipeline.py for how the
pipelines are cut. Each step takes one element per replica from its host's pipeline, already in that
replica's device memory, and returns them as a PerReplica (the bare element for one replica).

Partial batches: when the strategy has ``experimental_enable_get_next_as_optional`` set (TPU and
Mirrored do) and the dataset is finite and not statically shaped, a step ends the iteration only when
*every* replica is exhausted; exhausted replicas receive a dummy whose batch dimension is 0. Otherwise
the first exhausted replica ends it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from tpustrategy import _core, errors
from tpustrategy._pictures import distribute_pictures
from tpustrategy.data import _structure
from tpustrategy.data._structure import Leaf, Nest, Spec
from tpustrategy.data.dataset_ops import INFINITE, Dataset, not_a_dataset
from tpustrategy.data.iterator_ops import Optional
from tpustrategy.distribute import distribution_strategy_context as ds_context
from tpustrategy.distribute import input_pipeline
from tpustrategy.distribute import values as values_lib
from tpustrategy.distribute.distribute_options import InputContext, InputOptions, InputReplicationMode
from tpustrategy.distribute.distributed_interfaces import DistributedDatasetInterface, DistributedIteratorInterface
from tpustrategy.framework import device_scope
from tpustrategy.framework.tensor_shape import TensorShape

if TYPE_CHECKING:
    from tpustrategy.distribute.distribute_lib import StrategyBase


def validate_options(options: object, from_function: bool) -> None:
    """The InputOptions checks TF makes before distributing anything."""
    if options is None:
        return
    if not isinstance(options, InputOptions):
        raise TypeError(f"`options` must be a tf.distribute.InputOptions, got {type(options).__name__}")
    per_replica = options.experimental_replication_mode == InputReplicationMode.PER_REPLICA
    if per_replica and not from_function:
        raise NotImplementedError("InputReplicationMode.PER_REPLICA is only supported in "
                                  "`distribute_datasets_from_function`.")
    if per_replica and options.experimental_fetch_to_device and options.experimental_place_dataset_on_device:
        raise ValueError("`experimental_place_dataset_on_device` can not be set to True when "
                         "experimental_fetch_to_device is True and replication mode is set to `PER_REPLICA`")
    if options.experimental_place_dataset_on_device and not per_replica:
        raise ValueError("`experimental_place_dataset_on_device` can only be set to True when replication mode "
                         "is set to `PER_REPLICA`")
    if int(options.experimental_per_replica_buffer_size) < 0:
        raise ValueError("`experimental_per_replica_buffer_size` must be >= 0, got "
                         f"{options.experimental_per_replica_buffer_size}")


def _is_statically_shaped(spec: Spec) -> bool:
    return all(s.shape.is_fully_defined() for s in _structure.flatten(spec))


def _relax_batch_dim(spec: Spec) -> Spec:
    shape = spec.shape
    if shape.rank is None or shape.rank == 0:
        return spec
    return _structure.with_shape(spec, [None, *shape.as_list()[1:]])


class _DistributedDatasetBase(DistributedDatasetInterface):
    """What both distributed datasets share: pipelines, the replica layout and the partial-batch rule."""

    def __init__(self, strategy: StrategyBase, workers: input_pipeline.InputWorkers, pipelines: list[Any],
                 cardinality: int) -> None:
        self._strategy = strategy
        self._workers = workers
        self._pipelines = pipelines
        spec = pipelines[0].element_spec
        extended = strategy.extended
        self._enable_get_next_as_optional = (
            bool(getattr(extended, "experimental_enable_get_next_as_optional", False))
            and cardinality != INFINITE and not _is_statically_shaped(spec))
        if self._enable_get_next_as_optional:
            spec = _structure.map_structure(_relax_batch_dim, spec)
        self._replica_spec = spec
        self._cardinality: np.int64 = np.int64(cardinality)

    @property
    def cardinality(self) -> np.int64:
        """The cardinality of the input dataset (of the first host's dataset for
        ``distribute_datasets_from_function``), as TF's property gives it: a numpy int64, INFINITE (-1) or
        UNKNOWN (-2) where not known."""
        return self._cardinality

    def reduce(self, initial_state: Any, reduce_fn: Callable[[Any, Any], Any]) -> Any:
        """``state = reduce_fn(state, element)`` over every step of the input, from `initial_state`."""
        state = initial_state
        iterator = iter(self)
        while True:
            optional = iterator.get_next_as_optional()
            if not optional.has_value():
                return state
            state = reduce_fn(state, optional.get_value())

    @property
    def element_spec(self) -> Spec:
        """The spec of one step: per leaf a PerReplicaSpec for N > 1 replicas, the replica's spec for one."""
        n = self._workers.num_replicas
        if n == 1:
            return self._replica_spec
        return _structure.map_structure(lambda s: values_lib.PerReplicaSpec(*[s] * n), self._replica_spec)

    def __iter__(self) -> DistributedIterator:
        return DistributedIterator(self)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} element_spec={self.element_spec}>"

    def _repr_html_(self) -> str:
        """Jupyter: the per-replica batch sizes of the next steps (host-side preview; no iterator advances)."""
        return distribute_pictures.dataset_html(self)


class DistributedDataset(_DistributedDatasetBase):
    """``strategy.experimental_distribute_dataset(dataset)``: a global-batch dataset split over replicas."""

    def __init__(self, strategy: StrategyBase, dataset: Dataset, options: InputOptions | None = None) -> None:
        if not isinstance(dataset, Dataset):
            raise not_a_dataset(dataset, "experimental_distribute_dataset's `dataset`")
        process_slice = strategy.extended._process_slice
        if process_slice is None:
            workers = input_pipeline.InputWorkers(_input_devices(strategy, options))
            pipelines = input_pipeline.build_pipelines(dataset, workers)
        else:
            # TF's rules over the whole slice (one input worker per host), then this process's hosts only.
            workers, pipelines = process_slice.local_pipelines(dataset, _input_devices(strategy, options),
                                                               on_host=_on_host(options))
        super().__init__(strategy, workers, pipelines, dataset._compute_cardinality())
        self._dataset = dataset


class DistributedDatasetsFromFunction(_DistributedDatasetBase):
    """``strategy.distribute_datasets_from_function(dataset_fn)``: one dataset per host (or per replica)."""

    def __init__(self, strategy: StrategyBase, dataset_fn: Callable[[InputContext], Dataset],
                 options: InputOptions | None = None) -> None:
        workers = input_pipeline.InputWorkers(_input_devices(strategy, options))
        # The InputContexts are the whole slice's (as TF's, one input pipeline per host); in a multi-process
        # slice this process builds its own hosts' pipelines only (TF's multi-worker strategies: each worker its
        # own, with its input_pipeline_id).
        process_slice = strategy.extended._process_slice
        every = workers if process_slice is None else input_pipeline.InputWorkers(process_slice.devices)
        n, w = every.num_replicas, every.num_workers
        per_replica = options is not None and options.experimental_replication_mode == InputReplicationMode.PER_REPLICA
        pipelines: list[Any] = []
        for i in range(workers.num_workers):
            host = workers.host_devices[i]
            pipeline_id = every.hosts.index(workers.hosts[i])
            with device_scope.device_scope(host):  # dataset_fn runs on the host's CPU, like TF
                if per_replica:
                    datasets = [_call_dataset_fn(dataset_fn, InputContext(n, r, n))
                                for r in every.replica_ids[pipeline_id]]
                else:
                    datasets = [_call_dataset_fn(dataset_fn, InputContext(w, pipeline_id, n))]
            pipelines.append(input_pipeline.StreamPipeline(datasets, workers.devices_of(i), host, per_replica))
        super().__init__(strategy, workers, pipelines, pipelines[0].datasets[0]._compute_cardinality())


def _input_devices(strategy: StrategyBase, options: InputOptions | None) -> list[_core.devices.Device]:
    """Where each replica's input lands: its device, or its host's CPU with experimental_fetch_to_device=False
    (TF's host input workers)."""
    devices = strategy.extended._replica_devices()
    if _on_host(options):
        return [_core.devices.host_cpu(d.task) for d in devices]
    return devices


def _on_host(options: InputOptions | None) -> bool:
    return options is not None and options.experimental_fetch_to_device is False


def _call_dataset_fn(dataset_fn: Callable[[InputContext], Dataset], context: InputContext) -> Dataset:
    dataset = dataset_fn(context)
    if not isinstance(dataset, Dataset):
        raise not_a_dataset(dataset, "what `dataset_fn` returns")
    return dataset


class DistributedIterator(DistributedIteratorInterface):
    """Steps through a distributed dataset: ``get_next``, ``get_next_as_optional``, ``next(it)``."""

    def __init__(self, distributed_dataset: _DistributedDatasetBase) -> None:
        self._dataset = distributed_dataset
        self._strategy = distributed_dataset._strategy
        self._workers = distributed_dataset._workers
        self._steps = [p.steps() for p in distributed_dataset._pipelines]
        self._exhausted = [False] * len(self._steps)

    @property
    def element_spec(self) -> Spec:
        return self._dataset.element_spec

    def __iter__(self) -> DistributedIterator:
        return self

    def __next__(self) -> Any:
        value = self._next_step(dummies=self._dataset._enable_get_next_as_optional)
        if value is _END:
            raise errors.EndOfSequence
        return value

    def get_next(self, name: str | None = None) -> Any:
        """The next PerReplica input; OutOfRangeError at the end."""
        value = self._next_step(dummies=self._dataset._enable_get_next_as_optional)
        if value is _END:
            raise errors.OutOfRangeError(None, None, "End of sequence")
        return value

    def get_next_as_optional(self) -> Optional:
        """An Optional holding the next input (dummies for exhausted replicas), empty at the end."""
        value = self._next_step(dummies=True)
        return Optional() if value is _END else Optional.from_value(value)

    def _check_context(self) -> None:
        mode = ds_context.current_mode()
        if ds_context.has_strategy() and mode.strategy is not self._strategy:
            raise RuntimeError(f"Mixing different tf.distribute.Strategy objects: {mode.strategy} is not "
                               f"{self._strategy}")
        if mode.replica_context is not None and not ds_context.is_default_mode(mode):
            raise ValueError("next(iterator) should be called from outside of replica_fn. e.g. "
                             "strategy.run(replica_fn, args=(next(iterator),))")

    def _next_step(self, dummies: bool) -> Any:
        self._check_context()
        workers = self._workers
        per_replica: list[Any] = [None] * workers.num_replicas
        for w, steps in enumerate(self._steps):
            if self._exhausted[w]:
                continue
            step = next(steps, None)
            if step is None:
                self._exhausted[w] = True
                continue
            for replica_id, element in zip(workers.replica_ids[w], step, strict=True):
                per_replica[replica_id] = element
        missing = [r for r, e in enumerate(per_replica) if e is None]
        process_slice = self._strategy.extended._process_slice
        if process_slice is not None:  # the step ends in every process or in none (TF: an all-reduce too)
            if not process_slice.any_process(len(missing) < len(per_replica)):
                return _END
            if missing and not dummies:
                raise errors.OutOfRangeError(None, None, "this process's input ended while other processes' did not; "
                                             "iterate with get_next_as_optional to pad the exhausted replicas")
        if len(missing) == len(per_replica) and process_slice is None or (missing and not dummies):
            return _END
        for replica_id in missing:
            per_replica[replica_id] = self._dummy(replica_id)
        per_replica = [_structure.to_public(element) for element in per_replica]  # strings: host StringTensors
        if len(per_replica) == 1:
            return per_replica[0]
        if not _structure.is_structure(per_replica[0]):
            return values_lib.PerReplica(per_replica)  # the common case: one tensor per replica
        return values_lib.regroup(per_replica, always_wrap=True)

    def _dummy(self, replica_id: int) -> Nest:
        """An element of the replica's spec with batch dimension 0 (unknown dims 0), on its device."""
        device = self._workers.replica_devices[replica_id]
        with device_scope.device_scope(device):
            return _structure.map_structure(_zeros_like_spec, self._dataset._replica_spec)

    def __repr__(self) -> str:
        return f"<DistributedIterator element_spec={self.element_spec}>"


def _zeros_like_spec(spec: Spec) -> Leaf:
    shape = spec.shape if spec.shape.rank is not None else TensorShape([None])
    dims = [0 if d is None else d for d in shape.as_list()]
    if dims:
        dims[0] = 0
    if _structure.is_string_spec(spec):
        return np.empty(dims, dtype=object)
    return _core.tensor.constant(np.zeros(dims, dtype=spec.dtype.as_numpy_dtype), spec.dtype)


class DistributedIteratorV1(DistributedIteratorInterface):
    """compat.v1 iterators (``make_dataset_iterator`` / ``make_input_fn_iterator``): adds ``initialize``."""

    def __init__(self, iterable: _DistributedDatasetBase) -> None:
        self._iterable = iterable
        self._iterator = iter(iterable)

    def initialize(self) -> list[Any]:
        """Restarts the iteration; returns the (empty) list of initializer ops, as eager TF does."""
        self._iterator = iter(self._iterable)
        return []

    @property
    def element_spec(self) -> Spec:
        return self._iterator.element_spec

    def get_next(self, name: str | None = None) -> Any:
        return self._iterator.get_next()

    def get_next_as_optional(self) -> Optional:
        return self._iterator.get_next_as_optional()

    def __iter__(self) -> DistributedIteratorV1:
        return self

    def __next__(self) -> Any:
        return next(self._iterator)


def make_numpy_dataset(numpy_input: Any) -> Dataset:
    """``experimental_make_numpy_dataset``: a host copy of the arrays, sliced along dim 0 (lists are stacked)."""

    def host_copy(value: Any) -> _core.tensor.Tensor:
        if type(value) is list:  # lists are values in tf.data: a list of arrays is stacked
            value = np.stack([np.asarray(v) for v in value])
        copy: _core.tensor.Tensor = _core.tensor.constant(np.array(value))
        return copy

    with device_scope.device_scope(_core.devices.host_cpu(0)):
        copied = _structure.map_structure(host_copy, numpy_input)
    return Dataset.from_tensor_slices(copied)


_END = object()
