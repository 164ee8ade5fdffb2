"""The TPU strategies' extended: replicas from a DeviceAssignment, logical devices, TPU regrouping.

Without a device assignment every TPU core of the slice is one replica (task-major, then ordinal). With one,
replica r's logical core c runs on ``device_assignment.tpu_device(r, c)``; replica functions, inputs and variables
use logical core 0 unless ``experimental_logical_device(k)`` is active. In SPMD mode each replica's variables are
replicated on all its logical cores instead. Logical-device annotations lay a tensor out over the cores of the
current replica (replica 0 in cross-replica context) as a ShardedTensor.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, cast

from tpustrategy import _core, nest
from tpustrategy.distribute import cross_replica_ops
from tpustrategy.distribute import distribution_strategy_context as ds_context
from tpustrategy.distribute import values as values_lib
from tpustrategy.distribute.cluster_resolver import ClusterResolver, TPUClusterResolver
from tpustrategy.distribute.distribute_options import InputReplicationMode
from tpustrategy.distribute.distribution_strategy_context import current_logical_device
from tpustrategy.distribute.extended import StrategyExtendedV1, require_cross_replica
from tpustrategy.distribute.replica_context import ReplicaContext
from tpustrategy.distribute.tpu_replicated_variable import LogicallyReplicatedVariable
from tpustrategy.framework import device_scope
from tpustrategy.tpu import spmd_partitioner, tpu_system
from tpustrategy.tpu.device_assignment import DeviceAssignment
from tpustrategy.tpu.sharded_tensor import ShardedTensor

if TYPE_CHECKING:
    from tpustrategy.data.dataset_ops import Dataset
    from tpustrategy.distribute.distribute_options import InputContext, InputOptions
    from tpustrategy.distribute.multi_process import ProcessSlice

Device = _core.devices.Device


def _slice_devices(topology_device_assignment: DeviceAssignment | None) -> list[list[Device]]:
    """``[replica][logical core] -> _core.devices.Device`` of the active slice."""
    by_task_ordinal = {(d.task, d.index): d for d in _core.devices.list_devices("TPU")}
    if topology_device_assignment is None:
        return [[by_task_ordinal[key]] for key in sorted(by_task_ordinal)]
    da = topology_device_assignment
    grid = []
    for replica in range(da.num_replicas):
        cores = []
        for core in range(da.num_cores_per_replica):
            key = (da.host_task(replica, core), da.tpu_ordinal(replica, core))
            if key not in by_task_ordinal:
                raise ValueError(f"device assignment names {da.tpu_device(replica, core)}, not a core of the slice")
            cores.append(by_task_ordinal[key])
        grid.append(cores)
    return grid


def _check_logical_device(logical_device_id: int, count: int) -> None:
    if not 0 <= logical_device_id < count:
        raise ValueError(
            f"`logical_device_id` not in range (was {logical_device_id}, but there are only {count} logical "
            "devices per replica)."
        )


def _as_replica_output(value: Any) -> Any:
    """TPU computations return tensors: Python values become tensors; None and variables pass through."""
    if value is None or values_lib.is_distributed_variable(value) or hasattr(value, "_distributed_container"):
        return value
    return _core.tensor.convert_to_tensor(value)


def _multi_process_slice(device_assignment: DeviceAssignment | None) -> ProcessSlice | None:
    """This process's share of the slice when launched by mpirun (multi_process.py), else None."""
    from tpustrategy.distribute import multi_process

    process_slice = multi_process.slice_for_this_process()
    if process_slice is not None and device_assignment is not None:
        raise NotImplementedError("a TPUStrategy split over processes (mpirun) runs one replica per core: "
                                  "experimental_device_assignment is not supported there")
    return process_slice


class TPUReplicaContext(ReplicaContext):
    """A TPU replica's context: adds ``experimental_logical_device``."""

    @contextlib.contextmanager
    def experimental_logical_device(self, logical_device_id: int) -> Iterator[None]:
        """Places the ops of the block on this replica's logical core `logical_device_id`."""
        extended = cast(TPUExtended, self._strategy.extended)
        _check_logical_device(logical_device_id, extended._num_logical_devices)
        token = current_logical_device.set(logical_device_id)
        try:
            with device_scope.device_scope(extended._logical_grid[self._replica_id][logical_device_id]):
                yield
        finally:
            current_logical_device.reset(token)


class TPUExtended(StrategyExtendedV1):
    _creates_tpu_variables = True  # TPUMirroredVariable / TPUSyncOnReadVariable, as TF names them

    def __init__(self, container_strategy: Any, cluster_resolver: ClusterResolver | None,
                 device_assignment: DeviceAssignment | None = None, steps_per_run: int | None = 1,
                 spmd: bool = False) -> None:
        super().__init__(container_strategy)
        # Checked before anything changes (TF 2.21 fails later with AttributeError, or builds a strategy).
        if cluster_resolver is None:
            cluster_resolver = TPUClusterResolver("")
        elif not isinstance(cluster_resolver, ClusterResolver):
            raise TypeError(
                "TPUStrategy: `tpu_cluster_resolver` must be a tf.distribute.cluster_resolver.TPUClusterResolver "
                f"(or None), got {type(cluster_resolver).__name__}: {cluster_resolver!r}"
            )
        if device_assignment is not None and not isinstance(device_assignment, DeviceAssignment):
            raise TypeError(
                "TPUStrategy: `experimental_device_assignment` must be a tf.tpu.experimental.DeviceAssignment "
                f"(or None), got {type(device_assignment).__name__}: {device_assignment!r}"
            )
        tpu_system.connect_to_cluster(cluster_resolver)
        self._tpu_cluster_resolver = cluster_resolver
        self._device_assignment = device_assignment
        self._logical_grid = _slice_devices(device_assignment)
        self._num_logical_devices = device_assignment.num_cores_per_replica if device_assignment else 1
        self._spmd = bool(spmd)
        if self._spmd and self._num_logical_devices > 1:
            spmd_partitioner.activate()
        self.steps_per_run = 1 if steps_per_run is None else int(steps_per_run)
        self._process_slice = _multi_process_slice(device_assignment)
        if self._process_slice is not None:  # TF_CONFIG's task, the MPI rank and the resolver's task agree
            cluster_resolver.task_id = self._process_slice.process_index
        self.experimental_enable_get_next_as_optional = True

    @property
    def experimental_require_static_shapes(self) -> bool:
        """True, as TF's TPU strategies say (XLA compiles a step for fixed shapes); programs read it to choose
        ``drop_remainder``. Steps here run eagerly, so a dynamic batch still runs."""
        return True

    @property
    def _logical_grid(self) -> list[list[Device]]:
        return self._logical_grid_value

    @_logical_grid.setter
    def _logical_grid(self, grid: list[list[Device]]) -> None:
        # A new device assignment invalidates the per-logical-core device lists built from the old one.
        self._logical_grid_value = grid
        self._replica_devices_by_core: dict[int, list[Device]] = {}

    # ---- hooks of the strategy engine ----
    def _replica_devices(self) -> list[Device]:
        """This process's replicas' devices (all of them unless the slice is split over processes).

        Called by every replica of every step: built once per logical core, not per call (O(n) each)."""
        logical = current_logical_device.get()
        devices = self._replica_devices_by_core.get(logical)
        if devices is None:
            if self._process_slice is not None:
                devices = [self._logical_grid[r][logical] for r in self._process_slice.replica_ids]
            else:
                devices = [cores[logical] for cores in self._logical_grid]
            self._replica_devices_by_core[logical] = devices
        return devices

    def _devices_of_replica(self, replica_id: int) -> tuple[str, ...]:
        return tuple(d.name for d in self._logical_grid[replica_id])

    def _make_replica_context(self, replica_id: int) -> TPUReplicaContext:
        return TPUReplicaContext(self._container_strategy(), replica_id_in_sync_group=replica_id)

    def _call_for_each_replica(self, fn: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        def tpu_computation(*replica_args: Any, **replica_kwargs: Any) -> Any:
            # fn() when there are no arguments: less C stack for the scheduler's greenlet switches (scheduler.py).
            outputs = fn(*replica_args, **replica_kwargs) if replica_args or replica_kwargs else fn()
            if not nest.is_nested(outputs):  # one output (or None): no nest walk per replica
                return _as_replica_output(outputs)
            return nest.map_structure(_as_replica_output, outputs)

        if not (self._spmd and self._num_logical_devices > 1):
            return super()._call_for_each_replica(tpu_computation, args, kwargs)
        spmd_partitioner.begin_step()  # one plan per step: tpustrategy.experimental.spmd_plan()
        try:
            return super()._call_for_each_replica(tpu_computation, args, kwargs)
        finally:
            spmd_partitioner.end_step()

    def _regroup_run_results(self, results: list[Any]) -> Any:
        """Every output is a tensor, so N > 1 replicas always give PerReplica (None stays None)."""
        if all(r is None for r in results):
            return None
        regrouped = values_lib.regroup(results)
        if len(results) == 1:
            return regrouped

        def wrap_shared(leaf: Any) -> Any:
            # regroup unwraps one object shared by every replica; a TPU returns one tensor per replica.
            if isinstance(leaf, values_lib.DistributedValues) or leaf is None:
                return leaf
            return values_lib.PerReplica([leaf] * len(results))

        return nest.map_structure(wrap_shared, regrouped)

    def _experimental_distribute_dataset(self, dataset: Any, options: InputOptions | None) -> Any:
        distributed = super()._experimental_distribute_dataset(dataset, options)  # checks `dataset` is one
        if _fetches_to_device(options):
            _check_fetchable_spec(dataset.element_spec)
        return distributed

    def _distribute_datasets_from_function(self, dataset_fn: Callable[[InputContext], Dataset],
                                           options: InputOptions | None) -> Any:
        if options is not None and options.experimental_replication_mode == InputReplicationMode.PER_REPLICA:
            raise NotImplementedError("InputReplicationMode.PER_REPLICA is only supported in "
                                      "`distribute_datasets_from_function` of tf.distribute.MirroredStrategy")
        if _fetches_to_device(options):
            user_fn = dataset_fn

            def dataset_fn(context: InputContext) -> Dataset:
                dataset = user_fn(context)
                _check_fetchable_spec(dataset.element_spec)
                return dataset

        return super()._distribute_datasets_from_function(dataset_fn, options)

    def _check_gather_participants(self, tensors: list[_core.tensor.Tensor], axis: int) -> None:
        # TF's TPUStrategy.gather concatenates the components on the host: sizes along `axis` may differ, and
        # other differences raise what its concat raises.
        cross_replica_ops.check_gather_shapes(tensors, axis, cross_replica_ops.concat_shape_mismatch)

    def call_for_each_replica(self, fn: Callable[..., Any], args: Sequence[Any] = (),
                              kwargs: dict[str, Any] | None = None) -> Any:
        """On TPU (the Keras path) `fn` runs once, as replica 0 on its core."""
        require_cross_replica(self)
        strategy = self._container_strategy()
        with strategy.scope(), device_scope.device_scope(self._replica_devices()[0]):
            with TPUReplicaContext(strategy, replica_id_in_sync_group=0):
                return fn(*args, **(kwargs or {}))

    def _create_variable(self, next_creator: Callable[..., Any], **kwargs: Any) -> Any:
        if not self._spmd or self._num_logical_devices == 1:
            return super()._create_variable(next_creator, **kwargs)

        def replicated_creator(**component_kwargs: Any) -> LogicallyReplicatedVariable:
            # The generic code places component r under replica r's current logical core; find that replica.
            current = device_scope.current_device()
            cores = next((c for c in self._logical_grid if current in c), self._logical_grid[0])
            return LogicallyReplicatedVariable(cores, **component_kwargs)

        return super()._create_variable(replicated_creator, **kwargs)

    # ---- logical-device annotations (SEMANTICS.md §4) ----
    def _current_replica_id(self) -> int:
        """The replica running now (replica 0 in cross-replica context or under another strategy)."""
        context = ds_context.get_replica_context()
        if context is not None and context.strategy is self._container_strategy():
            return context._replica_id
        return 0

    def _annotate(self, tensor: Any, sharding: _core.spmd.Sharding) -> ShardedTensor:
        """`tensor` laid out by `sharding` over the current replica's logical cores (each charged its shard).

        In SPMD mode the result is partitioned: ops on it run shard by shard; annotating a partitioned
        intermediate reshards it with XLA's collectives (recorded in the step's plan)."""
        partitioned = self._spmd and self._num_logical_devices > 1
        cores = self._logical_grid[self._current_replica_id()]
        if partitioned and (getattr(tensor, "_spmd_partitioned", False) or values_lib.is_distributed_variable(tensor)
                            or hasattr(tensor, "_copies")):
            return spmd_partitioner.reshard(tensor, sharding, cores)
        return ShardedTensor.shard(tensor, sharding, cores, spmd=partitioned)

    # ---- TPU members ----
    @property
    def num_hosts(self) -> int:
        return len({cores[0].task for cores in self._logical_grid})

    @property
    def num_replicas_per_host(self) -> int:
        per_host: dict[int, int] = {}
        for cores in self._logical_grid:
            per_host[cores[0].task] = per_host.get(cores[0].task, 0) + 1
        return max(per_host.values())

    @property
    def experimental_spmd_xla_partitioning(self) -> bool:
        return self._spmd

    @contextlib.contextmanager
    def experimental_logical_device(self, logical_device_id: int) -> Iterator[None]:
        """Places variables and ops of the block on logical core `logical_device_id` of every replica."""
        _check_logical_device(logical_device_id, self._num_logical_devices)
        token = current_logical_device.set(logical_device_id)
        try:
            yield
        finally:
            current_logical_device.reset(token)


def _fetches_to_device(options: InputOptions | None) -> bool:
    # InputOptions' experimental_fetch_to_device defaults to True (None here means the default).
    return options is None or options.experimental_fetch_to_device is not False


def _check_fetchable_spec(element_spec: Any) -> None:
    """TF's TPUStrategy rejects sparse and ragged components when prefetching to the TPU; dense (string
    included) components pass."""
    from tpustrategy.framework.sparse_tensor import SparseTensorSpec
    from tpustrategy.ops.ragged.ragged_tensor import RaggedTensorSpec

    if isinstance(element_spec, values_lib.PerReplicaSpec):
        element_spec = element_spec._component_specs
    for path, spec in _joined_paths(element_spec, ""):
        if isinstance(spec, (SparseTensorSpec, RaggedTensorSpec)):
            raise ValueError(
                f"Found tensor {path} with spec {type(spec)}. TPUStrategy does not support distributed datasets with "
                "device prefetch when using sparse or ragged tensors. If you intend to use sparse or ragged tensors, "
                "please pass a tf.distribute.InputOptions object with experimental_fetch_to_device set to False to "
                "your dataset distribution function.")


def _joined_paths(structure: Any, prefix: str) -> Iterator[tuple[str, Any]]:
    """(path, leaf) pairs with TF's joined string paths ("a/0/b"); dicts in sorted key order."""
    fields: Any = getattr(structure, "_fields", None)  # a namedtuple's
    items: list[tuple[Any, Any]]
    if isinstance(structure, dict):
        items = sorted(structure.items())
    elif isinstance(structure, (list, tuple)) and fields is None:
        items = list(enumerate(structure))
    elif isinstance(structure, tuple):
        items = list(zip(fields, structure, strict=True))
    else:
        yield prefix, structure
        return
    for key, value in items:
        yield from _joined_paths(value, f"{prefix}/{key}" if prefix else str(key))
