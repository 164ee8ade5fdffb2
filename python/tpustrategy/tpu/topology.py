"""``tf.tpu.experimental.Topology``: the physical mesh of a slice and where each TPU device sits in it.

The mesh is rank 4, ``[x, y, z, core]``. The C++ core (``_core.topology.Topology``) validates and indexes; this class
keeps TensorFlow's argument handling (``np.asarray(..., int32)``) and adds the text and HTML pictures.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tpustrategy import _core
from tpustrategy._pictures import topology_picture


def _coordinates_tuple(device_coordinates: Any) -> tuple[int, ...]:
    """The 4 mesh coordinates [x, y, z, core] as ints; TypeError naming the value for any other count."""
    coordinates = tuple(int(c) for c in np.asarray(device_coordinates).ravel())
    if len(coordinates) != 4:
        raise TypeError(f"device_coordinates must be the 4 mesh coordinates [x, y, z, core] of a TPU device, got "
                        f"{device_coordinates!r} ({len(coordinates)} values)")
    return coordinates


class Topology:
    """Describes the mesh of a TPU slice (mirrors ``tf.tpu.experimental.Topology``).

    Args:
      serialized: a serialized ``TopologyProto`` (bytes); when given, the other arguments are ignored.
      mesh_shape: 4 positive ints ``[x, y, z, cores_per_chip]``.
      device_coordinates: int array ``[num_tasks, num_tpus_per_task, 4]``: the mesh position of every TPU device.

    Raises:
      ValueError: malformed bytes, a mesh shape that is not 4 positive entries, coordinates that are not rank 3 with
        minor dimension 4, negative or out-of-mesh coordinates.
    """

    _slice_name: str | None = None  # the preset this topology was made from, if any (the pictures use it)

    def __init__(self, serialized: bytes | None = None, mesh_shape: Any = None, device_coordinates: Any = None) -> None:
        if serialized:
            self._impl = _core.topology.Topology.from_serialized(bytes(serialized))
            return
        if mesh_shape is None or device_coordinates is None:
            raise ValueError("Topology needs either `serialized` or both `mesh_shape` and `device_coordinates`")
        mesh = np.asarray(mesh_shape, dtype=np.int32)
        if mesh.ndim != 1:
            raise ValueError(f"`mesh_shape` must be a sequence of 4 positive entries; got `mesh_shape={mesh}`")
        self._impl = _core.topology.Topology(mesh, np.asarray(device_coordinates, dtype=np.int32))

    @classmethod
    def _from_core(cls, impl: _core.topology.Topology) -> Topology:
        topology = cls.__new__(cls)
        topology._impl = impl
        return topology

    @classmethod
    def _of_slice(cls, slice_name: str) -> Topology:
        """The topology of a slice preset, remembering the preset (for its generation's ICI and HBM)."""
        topology = cls._from_core(_core.topology.slice_topology(slice_name))
        topology._slice_name = _core.slice.find_slice_preset(slice_name).name
        return topology

    @property
    def mesh_shape(self) -> np.ndarray:
        """int32 ``[x, y, z, cores_per_chip]``."""
        return self._impl.mesh_shape

    @property
    def mesh_rank(self) -> int:
        """The rank of the mesh: 4 (``[x, y, z, core]``)."""
        return self._impl.mesh_rank

    @property
    def device_coordinates(self) -> np.ndarray:
        """int32 ``[num_tasks, num_tpus_per_task, 4]``: ``device_coordinates[t, d]`` is where task t's TPU:d sits."""
        return self._impl.device_coordinates

    @property
    def missing_devices(self) -> np.ndarray:
        """int32 ``[n, 4]``: mesh positions that hold no device (a degraded slice)."""
        return self._impl.missing_devices

    @property
    def num_tasks(self) -> int:
        """The number of tasks (hosts) with TPU devices."""
        return self._impl.num_tasks

    @property
    def num_tpus_per_task(self) -> int:
        """The number of TPU devices each task has."""
        return self._impl.num_tpus_per_task

    def task_ordinal_at_coordinates(self, device_coordinates: Any) -> int:
        """The task (host) of the device at ``[x, y, z, core]``; -1 if no device is there."""
        return self._impl.task_ordinal_at_coordinates(_coordinates_tuple(device_coordinates))

    def tpu_device_ordinal_at_coordinates(self, device_coordinates: Any) -> int:
        """The per-task TPU ordinal of the device at ``[x, y, z, core]``; -1 if no device is there."""
        return self._impl.tpu_device_ordinal_at_coordinates(_coordinates_tuple(device_coordinates))

    def cpu_device_name_at_coordinates(self, device_coordinates: Any, job: str | None = None) -> str:
        """The name of the host CPU of the task owning the TPU at ``[x, y, z, core]``.

        Args:
          device_coordinates: the 4 mesh coordinates of a TPU device.
          job: the job to name ("/job:<job>" prefix); None leaves the job out.

        Raises:
          ValueError: the coordinates lie outside the mesh.
          TypeError: not exactly 4 coordinates.
        """
        return self._impl.cpu_device_name_at_coordinates(_coordinates_tuple(device_coordinates), job=job)

    def tpu_device_name_at_coordinates(self, device_coordinates: Any, job: str | None = None) -> str:
        """The name of the TPU device at ``[x, y, z, core]``; arguments and errors as in
        ``cpu_device_name_at_coordinates``."""
        return self._impl.tpu_device_name_at_coordinates(_coordinates_tuple(device_coordinates), job=job)

    def serialized(self) -> bytes:
        """The ``TopologyProto`` bytes; ``Topology(serialized=t.serialized())`` round-trips byte for byte."""
        return self._impl.serialized()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Topology):
            return NotImplemented
        return self._impl == other._impl

    def __hash__(self) -> int:
        return hash((self.mesh_shape.tobytes(), self.device_coordinates.tobytes()))

    def __repr__(self) -> str:
        mesh = [int(v) for v in self.mesh_shape]
        missing = len(self.missing_devices)
        extra = f", missing_devices={missing}" if missing else ""
        return (
            f"Topology(mesh_shape={mesh}, num_tasks={self.num_tasks}, "
            f"num_tpus_per_task={self.num_tpus_per_task}{extra})"
        )

    def __str__(self) -> str:
        """The picture: one grid per z-plane, chips with host and TPU ordinals, ICI links, a legend."""
        return topology_picture.topology_text(self)

    def _repr_html_(self) -> str:
        """Jupyter: chips with coordinates, cores coloured by host, HBM per core, ICI links, host borders."""
        return topology_picture.topology_html(self)
