"""
Topology and DeviceAssignment (private; use tpustrategy.tpu).
"""
from __future__ import annotations
import collections.abc
import numpy
import numpy.typing
import typing
__all__: list[str] = ['DeviceAssignment', 'DeviceOrderMode', 'Topology', 'slice_topology']
class Topology:
    """
    The physical mesh of a TPU slice and where each TPU device sits in it.
    """
    __hash__: typing.ClassVar[None] = None
    @staticmethod
    def from_serialized(serialized: bytes) -> Topology:
        """
        Parses a serialized TopologyProto.
        
        Args:
          serialized: the TopologyProto bytes.
        
        Raises:
          ValueError: malformed bytes or an inconsistent topology.
        """
    def __eq__(self, arg0: Topology) -> bool:
        ...
    def __init__(self, mesh_shape: typing.Annotated[numpy.typing.ArrayLike, numpy.int32], device_coordinates: typing.Annotated[numpy.typing.ArrayLike, numpy.int32]) -> None:
        """
        Builds a topology from arrays.
        
        Args:
          mesh_shape: int32 [4]: chips along x, y, z and cores per chip.
          device_coordinates: int32 [tasks, devices per task, 4]: each TPU device's mesh coordinates.
        
        Raises:
          ValueError: either array is malformed, or coordinates repeat or fall outside the mesh.
        """
    def cpu_device_name_at_coordinates(self, device_coordinates: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"], *, job: str | None = None) -> str:
        """
        The name of the host CPU of the device at mesh coordinates.
        
        Args:
          device_coordinates: [x, y, z, core].
          job: the job in the name; None gives a name without one.
        
        Raises:
          ValueError: no device at those coordinates.
        """
    def serialized(self) -> bytes:
        """
        The TopologyProto bytes (the parsed bytes as given, else a fresh encoding).
        """
    def task_ordinal_at_coordinates(self, device_coordinates: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"]) -> int:
        """
        The task (host) of the device at mesh coordinates.
        
        Args:
          device_coordinates: [x, y, z, core].
        
        Raises:
          ValueError: no device at those coordinates.
        """
    def tpu_device_name_at_coordinates(self, device_coordinates: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"], *, job: str | None = None) -> str:
        """
        The name of the TPU device at mesh coordinates.
        
        Args:
          device_coordinates: [x, y, z, core].
          job: the job in the name; None gives a name without one.
        
        Raises:
          ValueError: no device at those coordinates.
        """
    def tpu_device_ordinal_at_coordinates(self, device_coordinates: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"]) -> int:
        """
        The TPU ordinal within its task of the device at mesh coordinates.
        
        Args:
          device_coordinates: [x, y, z, core].
        
        Raises:
          ValueError: no device at those coordinates.
        """
    @property
    def device_coordinates(self) -> numpy.typing.NDArray[numpy.int32]:
        """
        int32 array [num_tasks, num_tpus_per_task, 4].
        """
    @property
    def mesh_rank(self) -> int:
        ...
    @property
    def mesh_shape(self) -> numpy.typing.NDArray[numpy.int32]:
        ...
    @property
    def missing_devices(self) -> numpy.typing.NDArray[numpy.int32]:
        """
        int32 array [n, 4] of mesh positions without a device, in row-major mesh order.
        """
    @property
    def num_tasks(self) -> int:
        ...
    @property
    def num_tpus_per_task(self) -> int:
        ...
class DeviceOrderMode:
    """
    How DeviceAssignment.build orders replicas.
    
    Members:
    
      AUTO
    
      RING
    
      MESH
    """
    AUTO: typing.ClassVar[DeviceOrderMode]
    MESH: typing.ClassVar[DeviceOrderMode]
    RING: typing.ClassVar[DeviceOrderMode]
    __members__: typing.ClassVar[dict[str, DeviceOrderMode]]
    @typing.overload
    def __eq__(self, other: DeviceOrderMode) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: DeviceOrderMode) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class DeviceAssignment:
    """
    Which physical TPU core runs each logical core of each replica.
    """
    @staticmethod
    def build(topology: Topology, *, computation_shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex] | None = None, computation_stride: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex] | None = None, num_replicas: typing.SupportsInt | typing.SupportsIndex = 1, device_order_mode: DeviceOrderMode = ...) -> DeviceAssignment:
        """
        Packs num_replicas copies of a computation_shape block of cores into the topology.
        
        Args:
          topology: the Topology.
          computation_shape: [4] cores per replica along x, y, z, core (default ones).
          computation_stride: [4] distance between a replica's cores (default ones).
          num_replicas: how many replicas to place.
          device_order_mode: AUTO, RING or MESH.
        
        Raises:
          ValueError: when the shapes are invalid or the replicas do not fit.
        """
    def __init__(self, topology: Topology, core_assignment: typing.Annotated[numpy.typing.ArrayLike, numpy.int32]) -> None:
        """
        A device assignment from an explicit array.
        
        Args:
          topology: the Topology.
          core_assignment: int32 [replicas, cores per replica, 4]: each logical core's mesh coordinates.
        
        Raises:
          ValueError: a malformed array, or coordinates without a device or used twice.
        """
    def coordinates(self, replica: typing.SupportsInt | typing.SupportsIndex, logical_core: typing.SupportsInt | typing.SupportsIndex) -> typing.Annotated[list[int], "FixedSize(4)"]:
        """
        The mesh coordinates [x, y, z, core] of a replica's logical core.
        
        Args:
          replica: the replica.
          logical_core: the logical core within the replica.
        
        Raises:
          ValueError: replica or logical_core out of range.
        """
    def host_device(self, replica: typing.SupportsInt | typing.SupportsIndex = 0, logical_core: typing.SupportsInt | typing.SupportsIndex = 0, *, job: str | None = None) -> str:
        """
        The host CPU device name of a replica's logical core.
        
        Args:
          replica: the replica.
          logical_core: the logical core within the replica.
          job: the job in the name; None gives a name without one.
        
        Raises:
          ValueError: replica or logical_core out of range.
        """
    def host_task(self, replica: typing.SupportsInt | typing.SupportsIndex = 0, logical_core: typing.SupportsInt | typing.SupportsIndex = 0) -> int:
        """
        The task (host) of a replica's logical core.
        
        Args:
          replica: the replica.
          logical_core: the logical core within the replica.
        
        Raises:
          ValueError: replica or logical_core out of range.
        """
    def lookup_replicas(self, task_id: typing.SupportsInt | typing.SupportsIndex, logical_core: typing.SupportsInt | typing.SupportsIndex) -> list[int]:
        """
        The replicas whose `logical_core` runs on task `task_id`.
        
        Args:
          task_id: the task (host).
          logical_core: the logical core within a replica.
        
        Raises:
          ValueError: no replica has that logical core on that task.
        """
    def tpu_device(self, replica: typing.SupportsInt | typing.SupportsIndex = 0, logical_core: typing.SupportsInt | typing.SupportsIndex = 0, *, job: str | None = None) -> str:
        """
        The TPU device name of a replica's logical core.
        
        Args:
          replica: the replica.
          logical_core: the logical core within the replica.
          job: the job in the name; None gives a name without one.
        
        Raises:
          ValueError: replica or logical_core out of range.
        """
    def tpu_ordinal(self, replica: typing.SupportsInt | typing.SupportsIndex = 0, logical_core: typing.SupportsInt | typing.SupportsIndex = 0) -> int:
        """
        The TPU ordinal within its task of a replica's logical core.
        
        Args:
          replica: the replica.
          logical_core: the logical core within the replica.
        
        Raises:
          ValueError: replica or logical_core out of range.
        """
    @property
    def core_assignment(self) -> numpy.typing.NDArray[numpy.int32]:
        """
        int32 array [num_replicas, num_cores_per_replica, 4].
        """
    @property
    def num_cores_per_replica(self) -> int:
        ...
    @property
    def num_replicas(self) -> int:
        ...
    @property
    def topology(self) -> Topology:
        ...
def slice_topology(name: str) -> Topology:
    """
    The Topology of the named slice preset.
    
    Args:
      name: a preset name such as "v4-32".
    
    Raises:
      ValueError: an unknown name (the message lists the presets).
    """
