"""``tf.tpu.experimental.DeviceAssignment``: which physical core runs each logical core of each replica."""

from __future__ import annotations

import enum
from typing import Any

import numpy as np

from tpustrategy import _core
from tpustrategy._pictures import assignment_picture
from tpustrategy.tpu.topology import Topology


class DeviceOrderMode(enum.IntEnum):
    """How ``DeviceAssignment.build`` orders replicas: AUTO picks RING when whole chips fill the mesh."""

    AUTO = 0
    RING = 1
    MESH = 2


def _shape_argument(value: Any, name: str) -> list[int] | None:
    """None stays None (the core defaults to ones); anything else must be a flat sequence of ints."""
    if value is None:
        return None
    array = np.asarray(value)
    if array.ndim != 1:
        raise ValueError(f"{name} must have shape [4]; got {array.shape}")
    return [int(v) for v in array]


class DeviceAssignment:
    """Maps (replica, logical core) to a physical core of a Topology (mirrors ``tf.tpu.experimental.DeviceAssignment``).

    Args:
      topology: the Topology the coordinates refer to.
      core_assignment: int array ``[num_replicas, num_cores_per_replica, 4]`` of mesh coordinates.

    Raises:
      ValueError: topology is not a Topology; core_assignment is not rank 3 with minor dimension 4, or names a
        position outside the mesh.
    """

    def __init__(self, topology: Topology, core_assignment: Any) -> None:
        if not isinstance(topology, Topology):
            raise ValueError(f"topology must be a Topology object, got {type(topology)}")
        self._topology = topology
        self._impl = _core.topology.DeviceAssignment(topology._impl, np.asarray(core_assignment, dtype=np.int32))

    @classmethod
    def _from_core(cls, impl: _core.topology.DeviceAssignment, topology: Topology) -> DeviceAssignment:
        assignment = cls.__new__(cls)
        assignment._topology = topology
        assignment._impl = impl
        return assignment

    @staticmethod
    def build(
        topology: Topology | bytes,
        computation_shape: Any = None,
        computation_stride: Any = None,
        num_replicas: int = 1,
        device_order_mode: DeviceOrderMode = DeviceOrderMode.AUTO,
    ) -> DeviceAssignment:
        """Packs ``num_replicas`` blocks of ``computation_shape`` cores into ``topology`` (SEMANTICS.md §3.2).

        Args:
          topology: a Topology, or its serialized bytes.
          computation_shape: cores per replica along ``[x, y, z, core]`` (default ones).
          computation_stride: spacing of one replica's cores along each axis (default ones).
          num_replicas: replicas to place.
          device_order_mode: a DeviceOrderMode; AUTO uses rings of chips when eligible.

        Raises:
          ValueError: not a topology, bad shapes, a footprint that does not fit, too many replicas, RING when a ring
            is not possible.
        """
        if isinstance(topology, bytes):
            topology = Topology(serialized=topology)
        if not isinstance(topology, Topology):
            raise ValueError(f"`topology` is not a Topology object; got {type(topology)}")
        try:
            mode = _core.topology.DeviceOrderMode(int(DeviceOrderMode(device_order_mode)))
        except (ValueError, TypeError) as error:
            raise ValueError(f"device_order_mode must be a DeviceOrderMode; got {device_order_mode!r}") from error
        impl = _core.topology.DeviceAssignment.build(
            topology._impl,
            computation_shape=_shape_argument(computation_shape, "computation_shape"),
            computation_stride=_shape_argument(computation_stride, "computation_stride"),
            num_replicas=int(num_replicas),
            device_order_mode=mode,
        )
        return DeviceAssignment._from_core(impl, topology)

    @property
    def topology(self) -> Topology:
        """The Topology of the slice the replicas are placed on."""
        return self._topology

    @property
    def num_replicas(self) -> int:
        """The number of replicas (computations run in parallel)."""
        return self._impl.num_replicas

    @property
    def num_cores_per_replica(self) -> int:
        """The number of TPU cores (logical devices) each replica spans."""
        return self._impl.num_cores_per_replica

    @property
    def core_assignment(self) -> np.ndarray:
        """int32 ``[num_replicas, num_cores_per_replica, 4]``."""
        return self._impl.core_assignment

    def coordinates(self, replica: int, logical_core: int) -> tuple[int, int, int, int]:
        """The mesh coordinates ``(x, y, z, core)`` of ``logical_core`` of ``replica``."""
        x, y, z, core = self._impl.coordinates(replica, logical_core)
        return x, y, z, core

    def lookup_replicas(self, task_id: int, logical_core: int) -> list[int]:
        """Sorted replicas whose ``logical_core`` runs on task ``task_id`` (none → ValueError)."""
        return list(self._impl.lookup_replicas(task_id, logical_core))

    def tpu_ordinal(self, replica: int = 0, logical_core: int = 0) -> int:
        """The per-host TPU ordinal of a replica's logical core."""
        return self._impl.tpu_ordinal(replica, logical_core)

    def host_device(self, replica: int = 0, logical_core: int = 0, job: str | None = None) -> str:
        """The CPU device of the host that holds a replica's logical core."""
        return self._impl.host_device(replica, logical_core, job=job)

    def tpu_device(self, replica: int = 0, logical_core: int = 0, job: str | None = None) -> str:
        """The TPU device name of a replica's logical core, e.g. ``/job:worker/task:0/device:TPU:2``."""
        return self._impl.tpu_device(replica, logical_core, job=job)

    def host_task(self, replica: int = 0, logical_core: int = 0) -> int:
        """tpustrategy extension: the task (host) index of a replica's logical core."""
        return self._impl.host_task(replica, logical_core)

    def __repr__(self) -> str:
        mesh = [int(v) for v in self._topology.mesh_shape]
        lines = [
            f"DeviceAssignment(num_replicas={self.num_replicas}, "
            f"num_cores_per_replica={self.num_cores_per_replica}, mesh_shape={mesh})"
        ]
        shown = min(self.num_replicas, _REPR_MAX_REPLICAS)
        for replica in range(shown):
            cores = ", ".join(
                f"task:{self.host_task(replica, c)}/TPU:{self.tpu_ordinal(replica, c)} "
                f"{tuple(int(v) for v in self.coordinates(replica, c))}"
                for c in range(self.num_cores_per_replica)
            )
            lines.append(f"  replica {replica}: {cores}")
        if shown < self.num_replicas:
            lines.append(f"  ... {self.num_replicas - shown} more replicas")
        return "\n".join(lines)

    def __str__(self) -> str:
        """The picture: each core labelled with the replica and logical core it runs, replicas listed."""
        return assignment_picture.assignment_text(self)

    def _repr_html_(self) -> str:
        """Jupyter: cores coloured by replica (distinct for any count), host borders, ICI links, a legend."""
        return assignment_picture.assignment_html(self)


# Longer listings are unreadable in a terminal; the HTML picture shows every replica.
_REPR_MAX_REPLICAS = 16

device_assignment = DeviceAssignment.build
