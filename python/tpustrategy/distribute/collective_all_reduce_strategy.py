"""``tf.distribute.MultiWorkerMirroredStrategy``: synchronous replicas over the workers of a cluster.

Each worker is a process (``mpirun -n P python prog.py``: one worker per MPI rank, TF_CONFIG's task index = the
rank) running its local devices' replicas; collectives span the workers through the MPI communicator (multi-
process.py). Without mpirun the strategy has one worker, this process, with MirroredStrategy's local devices,
as TF's strategy without a ``TF_CONFIG``.

With a cluster (a TF_CONFIG, or a resolver with a cluster spec) the process's devices are named
``/job:worker/replica:0/task:<index>/...`` from then on, plain eager tensors' included, as TF names a worker's.

Without mpirun, a cluster of more than one worker (a TF_CONFIG naming several, whatever this process's task index)
is a ValueError: no other process could join, where TF would wait for them.

Simulator deviation: a worker's local device is its simulated host's CPU (``/job:worker/task:<rank>/device:CPU:0``,
which needs ``TPUSTRATEGY_SLICE`` to have at least as many hosts as there are processes); TF would use its GPUs.
Variables' initial values are not broadcast from worker 0 (every process runs the same program, so they agree
unless the program makes them differ).
"""

from __future__ import annotations

from typing import Any, cast

from tpustrategy import _core, errors
from tpustrategy.distribute import distribute_lib, multi_process
from tpustrategy.distribute.cluster_resolver import TFConfigClusterResolver
from tpustrategy.distribute.collective_util import CommunicationOptions
from tpustrategy.distribute.mirrored_strategy import MirroredExtended


def _worker_devices(process_index: int, process_count: int) -> list[_core.devices.Device]:
    hosts = sorted({d.task for d in _core.devices.list_devices("CPU")})
    if process_index not in hosts:
        raise errors.InvalidArgumentError(None, None, f"MultiWorkerMirroredStrategy over {process_count} processes "
                                          f"needs a simulated host per worker; the slice has hosts {hosts} (set "
                                          "TPUSTRATEGY_SLICE to a slice with enough hosts)")
    return [_core.devices.host_cpu(process_index)]


class CollectiveAllReduceExtended(MirroredExtended):
    def __init__(
        self, container_strategy: Any, cluster_resolver: Any, communication_options: CommunicationOptions | None
    ) -> None:
        if communication_options is None:
            communication_options = CommunicationOptions()
        if not isinstance(communication_options, CommunicationOptions):
            raise ValueError("communication_options must be a tf.distribute.experimental.CommunicationOptions, got "
                             f"{type(communication_options).__name__}")
        self._communication_options = communication_options
        process_slice = multi_process.slice_for_this_process(communication_options, _worker_devices)
        if cluster_resolver is None:
            cluster_resolver = TFConfigClusterResolver()  # reads the TF_CONFIG the slice exported
        if not callable(getattr(cluster_resolver, "cluster_spec", None)):
            raise TypeError(f"cluster_resolver must be a tf.distribute.cluster_resolver.ClusterResolver, got "
                            f"{cluster_resolver!r}")
        cluster = cluster_resolver.cluster_spec().as_dict()
        workers = sum(len(cluster.get(job, ())) for job in ("chief", "worker"))
        if process_slice is None and workers > 1:
            raise ValueError(
                f"MultiWorkerMirroredStrategy: the cluster {cluster} has {workers} workers and this process is "
                f"{cluster_resolver.task_type} {cluster_resolver.task_id}, but no other worker can join a process "
                f"not started by mpirun (TF would wait for them). Run one process per worker: mpirun -n {workers} "
                "python prog.py (each process's TF_CONFIG task index is its MPI rank).")
        if cluster:
            # A worker of a cluster: TF names this process's devices (plain eager tensors' too) /job:worker/...
            _core.devices.set_job("worker")
        super().__init__(container_strategy, None if process_slice is None else process_slice.devices)
        self._process_slice = process_slice
        self._cluster_resolver = cluster_resolver
        if process_slice is not None and cluster_resolver.task_id != process_slice.process_index:
            raise ValueError(f"the cluster resolver's task_id {cluster_resolver.task_id} is not this process's MPI "
                             f"rank {process_slice.process_index}: one worker per mpirun process, in rank order")

    def _replica_devices(self) -> list[_core.devices.Device]:
        if self._process_slice is not None:
            return [self._devices[r] for r in self._process_slice.replica_ids]
        return self._devices

    @property
    def _num_workers(self) -> int:
        return 1 if self._process_slice is None else self._process_slice.process_count

    def _reduce_to(self, reduce_op: Any, value: Any, devices: Any, options: Any = None) -> Any:
        return super()._reduce_to(reduce_op, value, devices, self._communication_options.merge(options))


class CollectiveAllReduceStrategy(distribute_lib.Strategy):
    """``tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=None, communication_options=None)``."""

    def __init__(self, cluster_resolver: Any = None, communication_options: CommunicationOptions | None = None) -> None:
        super().__init__(CollectiveAllReduceExtended(self, cluster_resolver, communication_options))

    @property
    def cluster_resolver(self) -> Any:
        """The cluster resolver the strategy was built with (a TFConfigClusterResolver by default)."""
        return cast(CollectiveAllReduceExtended, self._extended)._cluster_resolver


MultiWorkerMirroredStrategy = CollectiveAllReduceStrategy

__all__ = ["CollectiveAllReduceStrategy", "MultiWorkerMirroredStrategy"]
