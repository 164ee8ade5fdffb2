"""``tf.distribute.StrategyExtended``: the device-level API every strategy shares.

A concrete strategy's extended provides ``_replica_devices()`` (one simulated device per replica, in
replica order); everything else here works from that. TPU strategies override the hooks:
``_devices_of_replica``, ``_make_replica_context``, ``_regroup_run_results``, ``_create_variable``,
``_check_gather_components`` / ``_check_gather_participants``.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from tpustrategy import _core, nest
from tpustrategy.distribute import collective_util, cross_replica_ops, distributed_variables, input_lib
from tpustrategy.distribute import distribution_strategy_context as ds_context
from tpustrategy.distribute import values as values_lib
from tpustrategy.distribute.distribute_options import ValueContext
from tpustrategy.distribute.distribution_strategy_context import colocation_variable, update_replica_id
from tpustrategy.distribute.reduce_util import as_reduce_op
from tpustrategy.distribute.replica_context import ReplicaContext
from tpustrategy.distribute.scheduler import ReplicaRun
from tpustrategy.framework import device_scope

if TYPE_CHECKING:
    from tpustrategy.distribute.collective_util import CommunicationOptions
    from tpustrategy.distribute.distribution_strategy_context import _Mode
    from tpustrategy.distribute.multi_process import ProcessSlice
    from tpustrategy.distribute.reduce_util import ReduceOp

Device = _core.devices.Device
Tensor = _core.tensor.Tensor
ExecutionContext = _core.runtime.ExecutionContext
# The per-thread replica contexts of a strategy: ReplicaContexts, C++ execution contexts, mode frames.
_ReplicaContexts = tuple[list[ReplicaContext], list[ExecutionContext], list["_Mode"]]

_CROSS_REPLICA_REQUIRED = "Method requires being in cross-replica context, use get_replica_context().merge_call()"


def require_cross_replica(extended: StrategyExtendedV2, error_message: str = _CROSS_REPLICA_REQUIRED) -> None:
    """Passes in this strategy's cross-replica context or in the default mode; otherwise raises the
    mixing error (another strategy is current) or RuntimeError(error_message) (replica context)."""
    mode = ds_context.current_mode()
    if mode.cross_replica_context is not None and mode.cross_replica_context.extended is extended:
        return
    if ds_context.is_default_mode(mode):
        return
    strategy = extended._container_strategy()
    if mode.strategy is not strategy:
        if not ds_context.has_strategy():
            raise RuntimeError(f"Need to be inside \"with strategy.scope()\" for {strategy}")
        raise RuntimeError(f"Mixing different tf.distribute.Strategy objects: {mode.strategy} is not {strategy}")
    raise RuntimeError(error_message)


class StrategyExtendedV2:
    """Device-level operations of a strategy (``strategy.extended``)."""

    def __init__(self, container_strategy: Any) -> None:
        self._container_strategy_ref = container_strategy
        # A multi-process slice (multi_process.ProcessSlice) when launched by mpirun: this process runs only
        # its own replicas and collectives span the processes. None: every replica runs here.
        self._process_slice: ProcessSlice | None = None

    def _container_strategy(self) -> Any:
        return self._container_strategy_ref

    # ---- hooks ----
    def _replica_devices(self) -> list[Device]:
        """One simulated device (``_core.devices.Device``) per replica, in replica order."""
        raise NotImplementedError

    @property
    def _num_replicas_in_sync(self) -> int:
        if self._process_slice is not None:
            return self._process_slice.num_replicas_in_sync
        return len(self._replica_devices())

    def _local_replica_ids(self) -> list[int]:
        """The replica ids run in this process, in the order of ``_replica_devices()``."""
        if self._process_slice is not None:
            return list(self._process_slice.replica_ids)
        return list(range(len(self._replica_devices())))

    def _devices_of_replica(self, replica_id: int) -> tuple[str, ...]:
        return (self._replica_devices()[replica_id].name,)

    def _make_replica_context(self, replica_id: int) -> ReplicaContext:
        return ReplicaContext(self._container_strategy(), replica_id_in_sync_group=replica_id)

    def _regroup_run_results(self, results: list[Any]) -> Any:
        return values_lib.regroup(results)

    # In a replica's all_gather, may sizes along the axis differ between replicas? (Not on TPU.)
    def _check_gather_components(self, tensors: list[Tensor], axis: int) -> None:
        """Called per replica before an all_gather."""

    def _check_gather_participants(self, tensors: list[Tensor], axis: int) -> None:
        """Called once with every replica's tensor before ``Strategy.gather``: TF's collective gather rejects
        ranks or non-axis sizes that differ with InvalidArgumentError "Shape mismatch"."""
        cross_replica_ops.check_gather_shapes(tensors, axis, cross_replica_ops.collective_shape_mismatch)

    def _create_variable(self, next_creator: Callable[..., Any], **kwargs: Any) -> Any:
        return distributed_variables.create_distributed_variable(self, next_creator, **kwargs)

    # ---- running replicas ----
    def _call_for_each_replica(self, fn: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        devices = self._replica_devices()
        count = len(devices)
        contexts, execution_contexts, modes = self._cached_replica_contexts(devices)
        process_slice = self._process_slice
        communicator = None if process_slice is None else process_slice.communicator
        run = ReplicaRun(count, execution_contexts, communicator, modes, self._replica_devices)
        outer_runs = [c._run for c in contexts]  # non-None only for a run nested in a merge_fn
        for context in contexts:
            context._run = run
        # Flat arguments (the common case): each replica's components picked once per step, not by a nest walk.
        distributed_inputs, flat_inputs = values_lib.replica_arguments(args, kwargs, count) if args or kwargs else \
            (False, None)
        try:
            # What each replica runs, in its greenlet, with its C++ execution context current (device, mode stack:
            # the scheduler pushes the replica's mode for the job and unwinds it at its end, whatever the job left
            # open; the context outlives the run, and a run nested in a merge_fn reuses it).
            if count > 1 and process_slice is None and not distributed_inputs:
                results = run.execute([(fn, args, kwargs)] * count)
            elif count > 1 and process_slice is None and flat_inputs is not None:
                results = run.execute([(fn, replica_args, replica_kwargs)
                                       for replica_args, replica_kwargs in flat_inputs])
            else:
                results = self._call_in_replicas(run, fn, args, kwargs, devices, contexts, execution_contexts,
                                                 distributed_inputs, flat_inputs)
        except BaseException:
            nested = any(outer is not None for outer in outer_runs)
            for execution_context, device in zip(execution_contexts, devices, strict=True):
                execution_context.device = device  # a device scope a failed replica left open is forgotten
                if not nested:
                    execution_context.clear_modes()  # and so is what an abandoned replica left on its mode stack
            raise
        finally:
            for context, outer in zip(contexts, outer_runs, strict=True):
                context._run = outer
        return self._regroup_run_results(results)

    def _call_in_replicas(self, run: ReplicaRun, fn: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any],
                          devices: list[Device], contexts: list[ReplicaContext],
                          execution_contexts: list[ExecutionContext], distributed_inputs: bool,
                          flat_inputs: list[tuple[Sequence[Any], dict[str, Any]]] | None) -> list[Any]:
        """``_call_for_each_replica`` for one replica, a multi-process slice, or nested distributed arguments."""
        process_slice = self._process_slice

        def inputs_of(replica_id: int) -> tuple[Sequence[Any], dict[str, Any]]:
            if not distributed_inputs:
                return args, kwargs
            if flat_inputs is not None:
                return flat_inputs[replica_id]
            return values_lib.select_replica(replica_id, args), values_lib.select_replica(replica_id, kwargs)

        def call(position: int, replica_args: Sequence[Any], replica_kwargs: dict[str, Any]) -> Any:
            if process_slice is None:
                return fn(*replica_args, **replica_kwargs)
            # A replica that raises tells the other processes first (they stop with an error naming it).
            return process_slice.run_replica(contexts[position]._replica_id, fn, replica_args, replica_kwargs)

        if len(devices) > 1:
            # Arguments selected in the replica: a missing component raises there.
            def replica_main(position: int) -> Any:
                return call(position, *inputs_of(position))

            return run.execute([(replica_main, (position,), {}) for position in range(len(devices))])
        replica_args, replica_kwargs = inputs_of(0)
        # One replica runs in the caller's C++ context; while a step is recorded, that context names the
        # replica so its ops and SPMD partitioned calls are the replica's, not host code.
        recorded = _core.sim.record_active()
        caller = _core.runtime.current_context() if recorded else None
        outer_id = caller.replica_id if caller is not None else -1
        if caller is not None:
            caller.replica_id = execution_contexts[0].replica_id
        try:
            with device_scope.device_scope(devices[0]), contexts[0]:
                return [call(0, replica_args, replica_kwargs)]
        finally:
            if caller is not None:
                caller.replica_id = outer_id

    def _cached_replica_contexts(self, devices: list[Device]) -> _ReplicaContexts:
        """The replicas' ReplicaContexts, C++ execution contexts (placed on `devices`) and mode frames, built once
        per thread: they carry the thread's current run, so two threads running the same strategy at once must
        not share them."""
        by_thread: dict[int, _ReplicaContexts] = self.__dict__.setdefault("_replica_contexts_by_thread", {})
        key = threading.get_ident()
        cached = by_thread.get(key)
        count = len(devices)
        if cached is None or len(cached[0]) != count:
            ids, in_sync = self._local_replica_ids(), self._num_replicas_in_sync
            contexts = [self._make_replica_context(r) for r in ids]
            execution_contexts = [_core.runtime.ExecutionContext(d, r, in_sync, "replica") for r, d in zip(ids, devices,
                                                                                                    strict=True)]
            for position, context in enumerate(contexts):
                context._position = position
            cached = by_thread[key] = (contexts, execution_contexts, [context._mode for context in contexts])
        return cached

    def call_for_each_replica(self, fn: Callable[..., Any], args: Sequence[Any] = (),
                              kwargs: dict[str, Any] | None = None) -> Any:
        """Runs `fn` once per replica (cross-replica context required); like ``Strategy.run``."""
        require_cross_replica(self)
        with self._container_strategy().scope():
            return self._call_for_each_replica(fn, args, kwargs or {})

    # ---- properties ----
    @property
    def worker_devices(self) -> tuple[str, ...]:
        """The names of the devices the replicas run on, one per replica, in replica order."""
        return tuple(d.name for d in self._replica_devices())

    @property
    def parameter_devices(self) -> tuple[str, ...]:
        """The names of the devices holding variables: here the replicas' devices (``worker_devices``)."""
        return self.worker_devices

    @property
    def experimental_require_static_shapes(self) -> bool:
        """False, as TF's strategies other than the TPU ones say (TPUStrategy's extended overrides it with True)."""
        return False

    # ---- reductions ----
    def _reduce(self, reduce_op: ReduceOp, value: Any) -> Any:
        return self._reduce_to(reduce_op, value, [cross_replica_ops.current_device()])

    def _reduce_to(self, reduce_op: Any, value: Any, devices: Any, options: Any = None) -> Any:
        process_slice, components = self._process_slice, self._process_components(value)
        if process_slice is not None and components is not None:
            total = process_slice.all_reduce(reduce_op, components, options)
            return _copies_on(total, devices)
        return cross_replica_ops.reduce_to(reduce_op, value, devices, self._num_replicas_in_sync)

    def _process_components(self, value: Any) -> list[Any] | None:
        """In a multi-process slice, this process's components of `value` (a plain value is the component of a
        process running one replica, as merge_call hands it); None otherwise."""
        if self._process_slice is None:
            return None
        if isinstance(value, values_lib.DistributedValues):
            return list(value.values)
        if len(self._replica_devices()) == 1 and not (isinstance(value, (int, float)) and value == 0):
            return [value]
        return None

    def _reduce_with_axis(self, reduce_op: ReduceOp, value: Any, axis: Any) -> Any:
        """``Strategy.reduce`` with an axis: each replica's value summed along it, then across replicas."""
        process_slice, components = self._process_slice, self._process_components(value)
        if process_slice is not None and components is not None:
            total = process_slice.reduce(reduce_op, components, axis=axis)
            return _copies_on(total, [cross_replica_ops.current_device()])
        return cross_replica_ops.reduce_with_axis(reduce_op, value, axis, self._num_replicas_in_sync)

    def reduce_to(self, reduce_op: ReduceOp | str, value: Any, destinations: Any,
                  options: CommunicationOptions | None = None) -> Any:
        """Reduces `value` onto `destinations` (a device string, tensor, variable or DistributedValues)."""
        require_cross_replica(self)
        reduce_op = as_reduce_op(reduce_op)
        options = collective_util.check_options(options, "reduce_to")
        return self._reduce_to(reduce_op, value, cross_replica_ops.destination_devices(destinations), options)

    def batch_reduce_to(self, reduce_op: ReduceOp | str, value_destination_pairs: Sequence[tuple[Any, Any]],
                        options: CommunicationOptions | None = None) -> list[Any]:
        """``reduce_to`` over a list of (value, destinations) pairs."""
        require_cross_replica(self)
        reduce_op = as_reduce_op(reduce_op)
        options = collective_util.check_options(options, "batch_reduce_to")
        return [self._reduce_to(reduce_op, v, cross_replica_ops.destination_devices(d), options)
                for v, d in value_destination_pairs]

    def _gather_to(self, value: Any, axis: int, devices: list[Device]) -> Any:
        if isinstance(value, values_lib.DistributedValues):
            self._check_gather_participants([_as_tensor(v) for v in value.values], axis)
            if self._process_slice is not None:
                return _copies_on(self._process_slice.all_gather(value.values, axis), devices)
        return cross_replica_ops.gather_to(value, axis, devices)

    def _local_results(self, value: Any) -> tuple[Any, ...]:
        if isinstance(value, values_lib.DistributedValues):
            return value.values
        if nest.is_nested(value) and values_lib.contains_distributed_values(value):
            n = len(self._replica_devices())  # this process's replicas
            return tuple(values_lib.select_replica(i, value) for i in range(n))
        return (value,)

    def _distribute_values_from_function(self, value_fn: Callable[[ValueContext], Any]) -> Any:
        devices = self._replica_devices()
        results = []
        for i, device in enumerate(devices):
            with device_scope.device_scope(device):
                results.append(value_fn(ValueContext(i, len(devices))))
        return values_lib.regroup(results, always_wrap=True)

    # ---- input ----
    def _experimental_distribute_dataset(self, dataset: Any, options: Any) -> input_lib.DistributedDataset:
        return input_lib.DistributedDataset(self._container_strategy(), dataset, options)

    def _distribute_datasets_from_function(self, dataset_fn: Callable[..., Any],
                                           options: Any) -> input_lib.DistributedDatasetsFromFunction:
        return input_lib.DistributedDatasetsFromFunction(self._container_strategy(), dataset_fn, options)

    # ---- variables ----
    def update(self, var: Any, fn: Callable[..., Any], args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None,
               group: bool = True) -> Any:
        """Calls ``fn(component, *select_replica(i, args))`` for each component of `var` in cross-replica
        context; returns the results as Mirrored (a list when `group` is False)."""
        require_cross_replica(self)
        if not getattr(var, "_is_variable", False):
            raise TypeError(f"update: `var` must be a variable, got {type(var).__name__}: {var!r}")
        if not callable(fn):
            raise TypeError(f"update: `fn` must be callable, got {type(fn).__name__}: {fn!r}")
        kwargs = kwargs or {}
        components = var.values if values_lib.is_distributed_variable(var) else (var,)
        results = []
        for i, component in enumerate(components):
            token = update_replica_id.set(i)
            try:
                with device_scope.device(component.device or None):
                    results.append(fn(component, *values_lib.select_replica(i, tuple(args)),
                                      **values_lib.select_replica(i, kwargs)))
            finally:
                update_replica_id.reset(token)
        if not group:
            return tuple(results)
        return values_lib.regroup(results, wrap_class=values_lib.Mirrored)

    def value_container(self, value: Any) -> Any:
        """The distributed variable `value` is a component of, else `value`."""
        return getattr(value, "_distributed_container", None) or value

    def variable_created_in_scope(self, v: object) -> bool:
        """Whether `v` was created under this strategy's ``scope()``."""
        return getattr(v, "_distribute_strategy", None) is self._container_strategy()

    @contextlib.contextmanager
    def colocate_vars_with(self, colocate_with_variable: Any) -> Iterator[None]:
        """Variables created in the block are placed with `colocate_with_variable`."""
        token = colocation_variable.set(colocate_with_variable)
        try:
            yield
        finally:
            colocation_variable.reset(token)


class StrategyExtendedV1(StrategyExtendedV2):
    """The compat.v1 extended members."""

    def broadcast_to(self, tensor: Any, destinations: Any) -> Any:
        """The same `tensor` on every destination device."""
        require_cross_replica(self)
        return cross_replica_ops.broadcast_to(tensor, cross_replica_ops.destination_devices(destinations))

    def read_var(self, v: Any) -> Any:
        """The cross-replica value of variable `v` (aggregated for sync-on-read variables)."""
        reader = getattr(v, "_read_cross_replica", None)
        return reader() if reader is not None else _as_tensor(v)

    def non_slot_devices(self, var_list: Any) -> Any:
        """Where state that belongs to no variable (e.g. an optimizer's step) lives: every replica device."""
        return self.worker_devices

    def update_non_slot(self, colocate_with: tuple[Any, ...], fn: Callable[..., Any], args: Sequence[Any] = (),
                        kwargs: dict[str, Any] | None = None, group: bool = True) -> Any:
        """Calls ``fn(*select_replica(i, args))`` once per device of `colocate_with` (what ``non_slot_devices``
        returned), on that device and in its update context; returns Mirrored (a tuple when `group` is False)."""
        require_cross_replica(self)
        if not isinstance(colocate_with, tuple):  # TF asserts (AssertionError); a typed error here, as bad input
            raise TypeError("update_non_slot: `colocate_with` must be what non_slot_devices returned (a tuple of "
                            f"devices), got {type(colocate_with).__name__}: {colocate_with!r}")
        if not callable(fn):
            raise TypeError(f"update_non_slot: `fn` must be callable, got {type(fn).__name__}: {fn!r}")
        kwargs = kwargs or {}
        results = []
        for i, device in enumerate(colocate_with):
            token = update_replica_id.set(i)
            try:
                with device_scope.device(device):
                    results.append(fn(*values_lib.select_replica(i, tuple(args)),
                                      **values_lib.select_replica(i, kwargs)))
            finally:
                update_replica_id.reset(token)
        if not group:
            return tuple(results)
        return values_lib.regroup(results, wrap_class=values_lib.Mirrored)

    def experimental_make_numpy_dataset(self, numpy_input: Any, session: object = None) -> Any:
        """A dataset of the rows of `numpy_input` (copied to the host; lists of arrays are stacked)."""
        return input_lib.make_numpy_dataset(numpy_input)

    @property
    def experimental_between_graph(self) -> bool:
        return False

    @property
    def experimental_should_init(self) -> bool:
        return True

    @property
    def should_checkpoint(self) -> bool:
        return True

    @property
    def should_save_summary(self) -> bool:
        return True


def _as_tensor(value: object) -> Tensor:
    from tpustrategy import _core

    tensor: Tensor = _core.tensor.convert_to_tensor(value)
    return tensor


def _copies_on(tensor: Any, devices: Sequence[Any]) -> Any:
    """`tensor` on each of `devices`: one Tensor for one device, else Mirrored (as a reduce_to result)."""
    from tpustrategy.ops import array_ops

    copies = []
    for device in devices:
        with device_scope.device_scope(device):
            copies.append(array_ops.identity(tensor))
    return copies[0] if len(copies) == 1 else values_lib.Mirrored(copies)
