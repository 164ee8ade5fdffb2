"""``tf.distribute.cluster_resolver.ClusterResolver`` (the abstract base) and ``SimpleClusterResolver``."""

from __future__ import annotations

import abc
import collections

from tpustrategy import _core
from tpustrategy.train.cluster_spec import ClusterSpec


def format_master_url(master: str, rpc_layer: str | None = None) -> str:
    """``"{rpc_layer}://{master}"`` when an rpc layer is set, else ``master`` unchanged."""
    return f"{rpc_layer}://{master}" if rpc_layer else master


def local_accelerator_counts(task_id: int | None = None) -> dict[str, int]:
    """Accelerators (TPU, GPU) of one task of the active simulated slice, by device type; CPUs are not counted."""
    counts: dict[str, int] = collections.Counter()
    for device in _core.devices.list_devices(""):
        if device.device_type == "TPU" and f"/task:{task_id or 0}/" not in device.name:
            continue
        if device.device_type in ("TPU", "GPU"):
            counts[device.device_type] += 1
    return dict(counts)


class ClusterResolver(abc.ABC):
    """Tells a distribution strategy which tasks form the cluster and where this process sits in it.

    Subclasses implement ``cluster_spec()`` and ``master()``; ``task_type`` / ``task_id`` are settable.
    """

    @abc.abstractmethod
    def cluster_spec(self) -> ClusterSpec:
        """The cluster, as a ``tf.train.ClusterSpec``."""

    @abc.abstractmethod
    def master(self, task_type: str | None = None, task_id: int | None = None, rpc_layer: str | None = None) -> str:
        """The address of the master (or of the given task), prefixed ``rpc_layer://`` when given."""

    def num_accelerators(self, task_type: str | None = None, task_id: int | None = None,
                         config_proto: object = None) -> dict[str, int]:
        """Accelerators per type on one task; here the simulated devices of the active slice."""
        return local_accelerator_counts(task_id)

    @property
    def environment(self) -> str:
        """Where the cluster runs: "" (the default) or a platform name such as "google"."""
        return ""

    @property
    def task_type(self) -> str | None:
        """This process's job in the cluster ("worker", "chief", ...), None when not set."""
        return getattr(self, "_task_type", None)

    @task_type.setter
    def task_type(self, task_type: str | None) -> None:
        self._task_type = task_type

    @property
    def task_id(self) -> int | None:
        """This process's index within its job, None when not set."""
        return getattr(self, "_task_id", None)

    @task_id.setter
    def task_id(self, task_id: int | None) -> None:
        self._task_id = task_id


class SimpleClusterResolver(ClusterResolver):
    """A resolver that returns what it was given.

    Raises:
      TypeError: ``cluster_spec`` is not a ClusterSpec or ``master`` is not a string.
    """

    def __init__(
        self,
        cluster_spec: ClusterSpec,
        master: str = "",
        task_type: str | None = None,
        task_id: int | None = None,
        environment: str = "",
        num_accelerators: dict[str, int] | None = None,
        rpc_layer: str | None = None,
    ) -> None:
        if not isinstance(cluster_spec, ClusterSpec):
            raise TypeError("cluster_spec must be a `tf.train.ClusterSpec`.")
        if not isinstance(master, str):
            raise TypeError("master must be a string.")
        self._cluster_spec = cluster_spec
        self._master = master
        self._task_type = task_type
        self._task_id = task_id
        self._environment = environment
        self._num_accelerators = num_accelerators
        self._rpc_layer = rpc_layer

    def cluster_spec(self) -> ClusterSpec:
        return self._cluster_spec

    def master(self, task_type: str | None = None, task_id: int | None = None, rpc_layer: str | None = None) -> str:
        """The address of (task_type, task_id) when both are given, else the stored master."""
        if task_type is not None and task_id is not None:
            master = self.cluster_spec().task_address(task_type, task_id)
        else:
            master = self._master
        return format_master_url(master, rpc_layer=rpc_layer or self._rpc_layer)

    @property
    def environment(self) -> str:
        """The ``environment`` given to the constructor."""
        return self._environment

    def num_accelerators(self, task_type: str | None = None, task_id: int | None = None,
                         config_proto: object = None) -> dict[str, int]:
        """The ``num_accelerators`` given to the constructor ({} when None)."""
        return self._num_accelerators or {}

    @property
    def rpc_layer(self) -> str | None:
        """The protocol prefixed to master addresses ("grpc", ...), None for none; settable."""
        rpc_layer: str | None = self._rpc_layer
        return rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer: str | None) -> None:
        self._rpc_layer = rpc_layer
