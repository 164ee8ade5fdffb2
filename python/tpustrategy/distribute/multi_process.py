"""Multi-process slices over MPI: this process's share of a slice launched with ``mpirun``.

``mpirun -n P python prog.py`` with ``TPUSTRATEGY_SLICE=v4-32`` (4 hosts) splits the slice's hosts evenly over
the P processes (P = 4: one host each; P = 2: two each). Every process runs the same program
(multi-controller, as TF's MultiWorkerMirroredStrategy and JAX multi-host): it runs the replicas of its own
hosts, and collectives span processes through the MPI Communicator (``_core.mpi``), which checks that every
process is in the same collective, aborts everywhere when a replica fails, and never waits past
``TPUSTRATEGY_MPI_TIMEOUT_SECONDS``.

Replica ids are global: host h's replicas keep the ids they have in a single-process run of the same slice,
so process k hosts a contiguous block of ids. The process index equals the MPI rank and the ``TF_CONFIG``
task index of this process.

A strategy made under mpirun (``TPUStrategy``, ``MultiWorkerMirroredStrategy``) takes this process's
ProcessSlice (``slice_for_this_process``): its ``run`` executes the local replicas with the one replica engine
(the C++ Rendezvous over the MPI communicator: positions are this process's replicas, collectives span the
processes), and reductions, gathers and ``experimental_distribute_dataset`` go through the slice.
"""

from __future__ import annotations

import atexit
import json
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from greenlet import GreenletExit

from tpustrategy import _core, errors
from tpustrategy.distribute.collective_util import CommunicationOptions
from tpustrategy.distribute.reduce_util import ReduceOp, as_reduce_op
from tpustrategy.distribute.scheduler import _add_note

if TYPE_CHECKING:
    from tpustrategy.data.dataset_ops import Dataset
    from tpustrategy.distribute.input_pipeline import InputWorkers, SplitPipeline, StreamPipeline

_MPI_SIZE_VARIABLES = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK")


def launched_by_mpirun() -> bool:
    """True when this process was started by ``mpirun`` / ``mpiexec`` (Open MPI, MPICH or PMIx)."""
    return any(name in os.environ for name in _MPI_SIZE_VARIABLES)


def _mpirun_size() -> int:
    for name in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE"):
        if name in os.environ:
            return int(os.environ[name])
    _core.mpi.initialize()
    atexit.register(_core.mpi.finalize)
    return int(_core.mpi.world_size())


def mpi_available() -> bool:
    """True when tpustrategy was built with MPI."""
    return bool(_core.mpi.available())


def _local_replicas(devices: Sequence[_core.devices.Device], hosts: Sequence[int]) -> list[int]:
    wanted = set(hosts)
    return [r for r, d in enumerate(devices) if d.task in wanted]


def plan_hosts(num_hosts: int, process_count: int, process_index: int) -> list[int]:
    """The simulated hosts (tasks) process `process_index` of `process_count` simulates: an even, contiguous share.

    Raises:
      ValueError: the hosts cannot be split evenly (each process simulates whole hosts).
    """
    if process_count < 1 or num_hosts % process_count != 0:
        raise ValueError(f"a slice of {num_hosts} hosts cannot be split over {process_count} processes: each "
                         "process simulates whole hosts, so the number of processes must divide the number of hosts")
    per = num_hosts // process_count
    return list(range(process_index * per, (process_index + 1) * per))


class ProcessSlice:
    """This process's hosts, replicas and the MPI communicator of the whole slice's replicas.

    Every process must create it (collectively), after the slice is active. `communication_options`
    (``tf.distribute.experimental.CommunicationOptions``): its ``timeout_seconds`` bounds every collective's wait
    (None or 0: ``TPUSTRATEGY_MPI_TIMEOUT_SECONDS``); a collective's own options take precedence.

    Raises:
      UnimplementedError: tpustrategy was built without MPI.
      ValueError: the slice's hosts cannot be split evenly over the processes.
    """

    def __init__(self, communication_options: CommunicationOptions | None = None,
                 devices: Sequence[_core.devices.Device] | None = None) -> None:
        mpi = _core.mpi
        if not mpi.available():
            raise errors.UnimplementedError(None, None, "tpustrategy was built without MPI: install Open MPI "
                                            "(libopenmpi-dev, openmpi-bin; tools/bootstrap.sh) and rebuild")
        if not mpi.initialized():
            mpi.initialize()
            atexit.register(mpi.finalize)
        self.process_index = int(mpi.world_rank())
        self.process_count = int(mpi.world_size())
        # The replicas' devices over the whole slice (default: every TPU core), replica ids by (task, index).
        self.devices = sorted(devices or _core.devices.list_devices("TPU"), key=lambda d: (d.task, d.index))
        num_hosts = len({d.task for d in self.devices})
        self.hosts = plan_hosts(num_hosts, self.process_count, self.process_index)
        self.replica_ids = _local_replicas(self.devices, self.hosts)
        self.communicator = mpi.make_communicator(len(self.replica_ids))
        self._default_timeout = float(self.communicator.timeout_seconds)
        self.communication_options = CommunicationOptions().merge(communication_options)
        self._apply_options(None)  # the strategy's collectives wait at most the options' timeout too
        if list(self.communicator.local_ranks) != self.replica_ids:  # every process must see the same slice
            raise errors.InternalError(None, None, f"process {self.process_index}: MPI ranks "
                                       f"{list(self.communicator.local_ranks)} but replicas {self.replica_ids}")

    @property
    def num_replicas_in_sync(self) -> int:
        return int(self.communicator.size)

    def tf_config(self, base_port: int = 8470) -> dict[str, Any]:
        """The ``TF_CONFIG`` of this process: one worker task per process, task index = MPI rank."""
        workers = [f"localhost:{base_port + p}" for p in range(self.process_count)]
        return {"cluster": {"worker": workers}, "task": {"type": "worker", "index": self.process_index}}

    def export_tf_config(self) -> None:
        """Sets ``TF_CONFIG`` for this process (TFConfigClusterResolver's task_id then equals the MPI rank)."""
        os.environ["TF_CONFIG"] = json.dumps(self.tf_config())

    def _apply_options(self, options: CommunicationOptions | None) -> None:
        """Sets the communicator's timeout from the merged options (TF: None / 0 = no timeout; here the default)."""
        timeout = self.communication_options.merge(options).timeout_seconds
        self.communicator.timeout_seconds = float(timeout) if timeout else self._default_timeout

    # ---- collectives over this process's local values (one per local replica, in replica order) ----
    def all_reduce(self, reduce_op: ReduceOp | str, local_values: Sequence[Any],
                   options: CommunicationOptions | None = None) -> Any:
        """The reduction over every replica of every process; one tensor (the shared result).

        MEAN of integers is TF's truediv (float64), as in process.
        """
        op = as_reduce_op(reduce_op)
        arrays = [np.asarray(_core.tensor.convert_to_tensor(v)) for v in local_values]
        self._apply_options(options)
        if op == ReduceOp.MEAN and arrays and np.issubdtype(arrays[0].dtype, np.integer):
            total = self.communicator.all_reduce(arrays, "SUM")
            return _core.tensor.convert_to_tensor(total / self.num_replicas_in_sync)
        return _core.tensor.convert_to_tensor(self.communicator.all_reduce(arrays, op.value))

    def reduce(self, reduce_op: ReduceOp | str, local_values: Sequence[Any], axis: Any = None,
               options: CommunicationOptions | None = None) -> Any:
        """``Strategy.reduce`` across processes: with `axis`, each replica first sums along it, and MEAN divides
        by the global number of elements along `axis` (TF's truediv: integers give floats)."""
        from tpustrategy.distribute import cross_replica_ops
        from tpustrategy.ops import math_ops

        op = as_reduce_op(reduce_op)
        if axis is None:
            return self.all_reduce(op, local_values, options)
        shares = [cross_replica_ops._sum_and_count(_core.tensor.convert_to_tensor(v), axis) for v in local_values]
        total = self.all_reduce(ReduceOp.SUM, [s for s, _ in shares], options)
        if op == ReduceOp.SUM:
            return total
        count = self.all_reduce(ReduceOp.SUM, [c for _, c in shares], options)
        return math_ops.divide(total, math_ops.cast(count, total.dtype))

    def all_gather(self, local_values: Sequence[Any], axis: int = 0,
                   options: CommunicationOptions | None = None) -> Any:
        """Every replica's value concatenated along `axis`, in global replica order (equal shapes required)."""
        arrays = [np.asarray(_core.tensor.convert_to_tensor(v)) for v in local_values]
        if not arrays or arrays[0].ndim == 0:
            raise ValueError("all_gather cannot gather rank-0 (scalar) values; expand them to rank 1 first")
        moved = [np.ascontiguousarray(np.moveaxis(a, axis, 0)) for a in arrays]
        self._apply_options(options)
        flat = self.communicator.all_gather(moved)
        shape = (moved[0].shape[0] * self.num_replicas_in_sync, *moved[0].shape[1:])
        return _core.tensor.convert_to_tensor(np.moveaxis(flat.reshape(shape), 0, axis))

    def broadcast(self, local_values: Sequence[Any], root: int = 0) -> Any:
        """Replica `root`'s value, in every process."""
        arrays = [np.asarray(_core.tensor.convert_to_tensor(v)) for v in local_values]
        return _core.tensor.convert_to_tensor(self.communicator.broadcast(arrays, root)[0])

    def broadcast_initial_value(self, value: Any) -> Any:
        """Process 0's `value` (a tensor), in every process: a variable's initial value, as MultiWorkerMirroredStrategy
        broadcasts it from the chief, so that random initialisers agree."""
        value = _core.tensor.convert_to_tensor(value)
        # A different dtype or size in another process: InvalidArgumentError naming the processes.
        return self.broadcast([value] * len(self.replica_ids), root=0)

    def barrier(self) -> None:
        self.communicator.barrier()

    def abort(self, replica_id: int, error: BaseException) -> bool:
        """Tells every other process that local replica `replica_id` raised `error` (their collective raises
        AbortedError naming this process and replica)."""
        message = f"replica {replica_id} raised {type(error).__name__}: {error}"
        return bool(self.communicator.abort(replica_id, message))

    # ---- input ----
    def any_process(self, flag: bool) -> bool:
        """True when `flag` is true in some process (collective)."""
        votes = [np.array([1 if flag else 0], np.int32)] * len(self.replica_ids)
        return bool(np.asarray(self.communicator.all_reduce(votes, "MAX"))[0])

    def local_pipelines(self, dataset: Dataset, local_devices: Sequence[_core.devices.Device], on_host: bool = False
                        ) -> tuple[InputWorkers, list[StreamPipeline | SplitPipeline]]:
        """``experimental_distribute_dataset``'s input workers and pipelines for this process: the pipelines
        over the whole slice (one per host, TF's auto-shard and rebatch rules), this process's hosts' only.
        `on_host` (``InputOptions(experimental_fetch_to_device=False)``): each replica's input stays on its
        host's CPU, as `local_devices` (those CPUs) say."""
        from tpustrategy.distribute import input_pipeline

        every = [_core.devices.host_cpu(d.task) for d in self.devices] if on_host else self.devices
        workers = input_pipeline.InputWorkers(every)
        pipelines = input_pipeline.build_pipelines(dataset, workers)
        local = input_pipeline.InputWorkers(local_devices)
        if list(local.hosts) != list(self.hosts):
            raise errors.InternalError(None, None, f"process {self.process_index} runs hosts {local.hosts}, "
                                       f"expected {self.hosts}")
        return local, [pipelines[workers.hosts.index(h)] for h in self.hosts]

    def distribute_dataset(self, dataset: Dataset) -> Iterator[list[Any]]:
        """Yields, per step, this process's replicas' elements (local replica order; None once a replica's input
        is exhausted), until every local replica's input is.

        The pipelines are those of ``experimental_distribute_dataset`` over the whole slice (one per host, with
        TF's auto-shard and rebatch rules); this process iterates only its own hosts', so the union over the
        processes is what a single-process strategy feeds its replicas.
        """
        from tpustrategy.distribute import input_pipeline

        workers = input_pipeline.InputWorkers(self.devices)
        pipelines = input_pipeline.build_pipelines(dataset, workers)
        mine = [pipelines[workers.hosts.index(h)].steps() for h in self.hosts]
        for per_host in zip(*mine, strict=True):  # steps() never ends: it yields Nones once exhausted
            step = [element for elements in per_host for element in elements]
            if all(element is None for element in step):
                return
            yield step

    # ---- running the local replicas (Strategy.run drives them; see extended._call_for_each_replica) ----
    def run_replica(self, replica_id: int, fn: Callable[..., Any], args: Sequence[Any] = (),
                    kwargs: dict[str, Any] | None = None) -> Any:
        """Runs local replica `replica_id`'s function. If it raises, every other process is told first (their
        collective raises AbortedError naming this process and the replica), then the error goes on here."""
        try:
            return fn(*args, **(kwargs or {}))
        except (errors.AbortedError, errors.DeadlineExceededError, errors.CancelledError, GreenletExit):
            raise  # another process failed (and told everyone), or the scheduler cancelled this replica
        except BaseException as error:
            self.abort(replica_id, error)
            _add_note(error, f"(replica {replica_id} of process {self.process_index}; every other process was told "
                      "to abort)")  # BaseException.add_note is new in Python 3.11
            raise


def slice_for_this_process(
        communication_options: CommunicationOptions | None = None,
        devices_of_process: Callable[[int, int], Sequence[_core.devices.Device]] | None = None) -> ProcessSlice | None:
    """The ProcessSlice a strategy made now should run on: one when launched by mpirun with more than one
    process (tpustrategy built with MPI), else None (every replica runs in this process).

    ``TPUSTRATEGY_MULTI_PROCESS=0`` keeps a strategy single-process under mpirun. `devices_of_process`: a
    function of (process index, process count) giving that process's replica devices (default: the TPU cores of
    its share of the slice's hosts).
    """
    if os.environ.get("TPUSTRATEGY_MULTI_PROCESS", "1") == "0" or not launched_by_mpirun():
        return None
    if not mpi_available():
        raise errors.UnimplementedError(None, None, "launched by mpirun, but tpustrategy was built without MPI: "
                                        "install Open MPI (tools/bootstrap.sh) and rebuild, or set "
                                        "TPUSTRATEGY_MULTI_PROCESS=0 to run every replica in each process")
    devices = None
    if devices_of_process is not None:
        count = int(_core.mpi.world_size()) if _core.mpi.initialized() else _mpirun_size()
        devices = [d for p in range(count) for d in devices_of_process(p, count)]
    process_slice = ProcessSlice(communication_options, devices)
    if process_slice.process_count == 1:
        return None
    process_slice.export_tf_config()
    return process_slice


__all__ = ["ProcessSlice", "launched_by_mpirun", "mpi_available", "plan_hosts", "slice_for_this_process"]
