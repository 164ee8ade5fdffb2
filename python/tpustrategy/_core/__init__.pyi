"""
tpustrategy C++ core (private; use the tpustrategy package)
"""
from __future__ import annotations
import collections.abc
import numpy
import numpy.typing
from tpustrategy import Tensor
import typing
from . import ops
from . import autodiff
from . import summary
from . import checkpoint
from . import spmd
from . import sim
from . import mpi
__all__: list[str] = ['ChipSpec', 'CollectiveCounter', 'DType', 'Device', 'DeviceAssignment', 'DeviceOrderMode', 'ExecutionContext', 'ReplicaRendezvous', 'ShardedTensor', 'Sharding', 'SlicePreset', 'Tensor', 'Topology', 'activate_slice', 'active_slice', 'all_gather', 'all_reduce', 'autodiff', 'bfloat16', 'bool', 'broadcast', 'buffer_cache_limit', 'cached_memory_bytes', 'checkpoint', 'chip_specs', 'constant', 'convert_to_tensor', 'current_context', 'current_device', 'find_device', 'find_slice_preset', 'float16', 'float32', 'float64', 'host_cpu', 'int32', 'int64', 'list_devices', 'mpi', 'ops', 'parse_device_spec', 'reduce_scatter', 'release_cached_memory', 'set_buffer_cache_limit', 'set_current_context', 'set_current_device', 'set_logical_cpu_count', 'set_logical_gpu_count', 'sim', 'slice_presets', 'slice_topology', 'spmd', 'summary', 'switch_round']
class DType:
    """
    A tensor element type (mirrors tf.DType).
    """
    def __eq__(self, arg0: typing.Any) -> bool:
        ...
    def __getstate__(self) -> str:
        ...
    def __hash__(self) -> int:
        ...
    def __init__(self, type_value: typing.Any) -> None:
        ...
    def __ne__(self, arg0: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, arg0: str) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def as_numpy_dtype(self) -> ...:
        ...
    @property
    def base_dtype(self) -> DType:
        ...
    @property
    def is_bool(self) -> bool:
        ...
    @property
    def is_floating(self) -> bool:
        ...
    @property
    def is_integer(self) -> bool:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def size(self) -> int:
        ...
class Device:
    """
    A simulated device: a TPU core, a host CPU or a logical device.
    """
    def __eq__(self, arg0: Device) -> bool:
        ...
    def __hash__(self) -> int:
        ...
    def __repr__(self) -> str:
        ...
    def memory_info(self) -> dict:
        ...
    def reset_memory_stats(self) -> None:
        ...
    def set_memory_limit(self, bytes: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def coordinates(self) -> typing.Annotated[list[int], "FixedSize(4)"]:
        ...
    @property
    def default_memory_limit(self) -> int:
        ...
    @property
    def device_type(self) -> str:
        ...
    @property
    def host_index(self) -> int:
        ...
    @property
    def index(self) -> int:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def task(self) -> int:
        ...
class ChipSpec:
    """
    Figures of one TPU chip generation (cost model presets).
    """
    def __repr__(self) -> str:
        ...
    @property
    def bf16_tflops_per_chip(self) -> float:
        ...
    @property
    def chips_per_host(self) -> int:
        ...
    @property
    def cores_per_chip(self) -> int:
        ...
    @property
    def dcn_gbps(self) -> float:
        ...
    @property
    def f32_tflops_per_chip(self) -> float:
        ...
    @property
    def hbm_bytes_per_chip(self) -> int:
        ...
    @property
    def hbm_bytes_per_device(self) -> int:
        ...
    @property
    def hbm_gbps(self) -> float:
        ...
    @property
    def ici_gbps_per_link(self) -> float:
        ...
    @property
    def ici_hop_latency_us(self) -> float:
        ...
    @property
    def ici_links_per_chip(self) -> int:
        ...
    @property
    def ici_torus_dims(self) -> int:
        ...
    @property
    def int8_tops_per_chip(self) -> float:
        ...
    @property
    def max_slice_shape(self) -> typing.Annotated[list[int], "FixedSize(3)"]:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def pcie_gbps(self) -> float:
        ...
    @property
    def pod_shape(self) -> typing.Annotated[list[int], "FixedSize(3)"]:
        ...
    @property
    def tensorcores_per_chip(self) -> int:
        ...
class SlicePreset:
    """
    A named simulated TPU slice such as 'v3-8'.
    """
    def __repr__(self) -> str:
        ...
    @property
    def chip(self) -> ChipSpec:
        ...
    @property
    def devices_per_host(self) -> int:
        ...
    @property
    def generation(self) -> str:
        ...
    @property
    def host_shape(self) -> typing.Annotated[list[int], "FixedSize(3)"]:
        ...
    @property
    def mesh_shape(self) -> typing.Annotated[list[int], "FixedSize(4)"]:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def num_chips(self) -> int:
        ...
    @property
    def num_devices(self) -> int:
        ...
    @property
    def num_hosts(self) -> int:
        ...
    @property
    def twisted(self) -> bool:
        ...
    @property
    def wraparound(self) -> typing.Annotated[list[bool], "FixedSize(3)"]:
        """
        Per chip axis [x, y, z]: whether the ring closes through a wraparound link.
        """
class Topology:
    """
    The physical mesh of a TPU slice and where each TPU device sits in it.
    """
    __hash__: typing.ClassVar[None] = None
    @staticmethod
    def from_serialized(serialized: bytes) -> Topology:
        """
        Parses a serialized TopologyProto (ValueError if malformed).
        """
    def __eq__(self, arg0: Topology) -> bool:
        ...
    def __init__(self, mesh_shape: typing.Annotated[numpy.typing.ArrayLike, numpy.int32], device_coordinates: typing.Annotated[numpy.typing.ArrayLike, numpy.int32]) -> None:
        """
        Builds a topology from a [4] mesh shape and a [tasks, devices, 4] coordinate array (ValueError if either is malformed).
        """
    def cpu_device_name_at_coordinates(self, device_coordinates: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"], job: str | None = None) -> str:
        ...
    def serialized(self) -> bytes:
        """
        The TopologyProto bytes (the parsed bytes as given, else a fresh encoding).
        """
    def task_ordinal_at_coordinates(self, device_coordinates: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"]) -> int:
        ...
    def tpu_device_name_at_coordinates(self, device_coordinates: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"], job: str | None = None) -> str:
        ...
    def tpu_device_ordinal_at_coordinates(self, device_coordinates: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"]) -> int:
        ...
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
    def build(topology: Topology, computation_shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex] | None = None, computation_stride: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex] | None = None, num_replicas: typing.SupportsInt | typing.SupportsIndex = 1, device_order_mode: DeviceOrderMode = ...) -> DeviceAssignment:
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
        ...
    def coordinates(self, replica: typing.SupportsInt | typing.SupportsIndex, logical_core: typing.SupportsInt | typing.SupportsIndex) -> typing.Annotated[list[int], "FixedSize(4)"]:
        ...
    def host_device(self, replica: typing.SupportsInt | typing.SupportsIndex = 0, logical_core: typing.SupportsInt | typing.SupportsIndex = 0, job: str | None = None) -> str:
        ...
    def host_task(self, replica: typing.SupportsInt | typing.SupportsIndex = 0, logical_core: typing.SupportsInt | typing.SupportsIndex = 0) -> int:
        ...
    def lookup_replicas(self, task_id: typing.SupportsInt | typing.SupportsIndex, logical_core: typing.SupportsInt | typing.SupportsIndex) -> list[int]:
        ...
    def tpu_device(self, replica: typing.SupportsInt | typing.SupportsIndex = 0, logical_core: typing.SupportsInt | typing.SupportsIndex = 0, job: str | None = None) -> str:
        ...
    def tpu_ordinal(self, replica: typing.SupportsInt | typing.SupportsIndex = 0, logical_core: typing.SupportsInt | typing.SupportsIndex = 0) -> int:
        ...
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
class _DataRowBuffer:
    """
    Rows of a stream of batches, handed out in batches of any size.
    """
    def __init__(self) -> None:
        ...
    def pop(self, rows: typing.SupportsInt | typing.SupportsIndex) -> list[Tensor]:
        ...
    def push(self, components: collections.abc.Sequence) -> None:
        ...
    @property
    def has_layout(self) -> bool:
        ...
    @property
    def rows_available(self) -> int:
        ...
class _TFRecordReader:
    """
    Streams the records of an uncompressed TFRecord file.
    """
    def __init__(self, path: str) -> None:
        ...
    def read(self) -> typing.Any:
        """
        The next record as bytes, or None at the end of the file.
        
        Raises:
          DataLossError: a corrupted or truncated record (naming the file and offset).
        """
    @property
    def offset(self) -> int:
        ...
class _TFRecordWriter:
    """
    Writes records to an uncompressed TFRecord file.
    """
    def __init__(self, path: str) -> None:
        ...
    def close(self) -> None:
        ...
    def flush(self) -> None:
        ...
    def write(self, record: bytes) -> None:
        ...
    @property
    def closed(self) -> bool:
        ...
class Sharding:
    """
    How a tensor is laid out over a replica's logical devices (modelled on XLA's HloSharding): replicated,
    maximal (one device), tiled (a row-major grid of tiles, tile i on tile_assignment_devices[i]) or partially
    tiled (a trailing grid dimension of replicas). Tiles use ceil division; last tiles may be short or empty.
    """
    @staticmethod
    def iota_tiled(tile_assignment_dims: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], last_tile_dim_replicate: bool = False) -> Sharding:
        ...
    @staticmethod
    def maximal(device: typing.SupportsInt | typing.SupportsIndex) -> Sharding:
        ...
    @staticmethod
    def replicated() -> Sharding:
        ...
    @staticmethod
    def split(shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], partition_dimensions: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], num_logical_devices: typing.SupportsInt | typing.SupportsIndex) -> Sharding:
        """
        TF's split_to_logical_devices validation (rank, divisibility, product) and row-major tiling.
        """
    @staticmethod
    def tiled(tile_assignment_dims: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], devices: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], last_tile_dim_replicate: bool = False) -> Sharding:
        ...
    @typing.overload
    def __eq__(self, arg0: Sharding) -> bool:
        ...
    @typing.overload
    def __eq__(self, arg0: typing.Any) -> bool:
        ...
    def __getstate__(self) -> tuple[str, int, list[int], list[int]]:
        ...
    def __hash__(self) -> int:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, arg0: tuple) -> None:
        ...
    def __str__(self) -> str:
        ...
    def device_for_tile_index(self, index: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], replica: typing.SupportsInt | typing.SupportsIndex = 0) -> int:
        ...
    def device_groups_along(self, grid_dim: typing.SupportsInt | typing.SupportsIndex) -> list[list[int]]:
        """
        Devices differing only along a tile-grid dimension: a collective's participants.
        """
    def devices_for_tile_index(self, index: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> list[int]:
        ...
    def divides_evenly(self, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> bool:
        ...
    def holds_data(self, device: typing.SupportsInt | typing.SupportsIndex) -> bool:
        ...
    def logical_devices(self, num_logical_devices: typing.SupportsInt | typing.SupportsIndex) -> list[int]:
        """
        The logical devices (of num_logical_devices) that hold data.
        """
    def tile_index_for_device(self, device: typing.SupportsInt | typing.SupportsIndex) -> tuple:
        ...
    def tile_limit_for_device(self, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], device: typing.SupportsInt | typing.SupportsIndex) -> tuple:
        ...
    def tile_offset_for_device(self, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], device: typing.SupportsInt | typing.SupportsIndex) -> tuple:
        ...
    def tile_shape(self, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> tuple:
        ...
    @property
    def is_maximal(self) -> bool:
        ...
    @property
    def is_replicated(self) -> bool:
        ...
    @property
    def is_tiled(self) -> bool:
        ...
    @property
    def kind(self) -> str:
        ...
    @property
    def maximal_device(self) -> int:
        ...
    @property
    def num_tiles(self) -> int:
        ...
    @property
    def replicate_on_last_tile_dim(self) -> bool:
        ...
    @property
    def replication_factor(self) -> int:
        ...
    @property
    def tile_assignment(self) -> typing.Any:
        ...
    @property
    def tile_assignment_devices(self) -> list[int]:
        ...
    @property
    def tile_assignment_dims(self) -> tuple:
        ...
    @property
    def tiled_rank(self) -> int:
        ...
class ShardedTensor:
    """
    A global tensor's shards on a replica's logical devices: shard k is a Tensor on logical_devices[k] (None where
    the sharding places nothing), so each core's memory is charged for exactly what it holds.
    """
    @staticmethod
    def shard(tensor: typing.Any, sharding: Sharding, logical_devices: collections.abc.Sequence[Device]) -> ShardedTensor:
        ...
    def assemble(self, device: Device = None) -> Tensor:
        """
        The global tensor rebuilt from the shards (on `device` or the current).
        """
    @property
    def _shape_tuple(self) -> tuple:
        ...
    @property
    def bytes_per_device(self) -> list[int]:
        ...
    @property
    def dtype(self) -> DType:
        ...
    @property
    def logical_devices(self) -> list[Device]:
        ...
    @property
    def num_logical_devices(self) -> int:
        ...
    @property
    def sharding(self) -> Sharding:
        ...
    @property
    def shards(self) -> list:
        ...
    @property
    def total_bytes(self) -> int:
        ...
class CollectiveCounter:
    """
    While entered, counts every collective that passes the Communicator hook point, by kind.
    """
    def __enter__(self) -> CollectiveCounter:
        ...
    def __exit__(self, *args) -> None:
        ...
    def __init__(self) -> None:
        ...
    @property
    def counts(self) -> dict[str, int]:
        ...
class ExecutionContext:
    """
    The per-replica C++ context: the device new tensors land on, the mode and the replica id (and slots
    that later layers fill). One is current per thread; the scheduler switches it at every greenlet switch.
    """
    device: Device
    mode: str
    def __init__(self, device: Device = None, replica_id: typing.SupportsInt | typing.SupportsIndex = -1, num_replicas: typing.SupportsInt | typing.SupportsIndex = 1, mode: str = 'cross_replica') -> None:
        ...
    @property
    def logical_core(self) -> int:
        ...
    @logical_core.setter
    def logical_core(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def num_replicas(self) -> int:
        ...
    @num_replicas.setter
    def num_replicas(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def replica_id(self) -> int:
        ...
    @replica_id.setter
    def replica_id(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class ReplicaRendezvous:
    """
    The synchronisation points of one Strategy.run (the cooperative front end of the C++ Rendezvous).
    """
    def __init__(self, num_replicas: typing.SupportsInt | typing.SupportsIndex, communicator: ... = None) -> None:
        """
        `communicator`: the group the replicas belong to (default: all of them, in process); the run's positions are its local ranks.
        """
    def arrive(self, replica: typing.SupportsInt | typing.SupportsIndex, kind: str, tensors: collections.abc.Sequence[Tensor], op: str = '', axis: typing.SupportsInt | typing.SupportsIndex = 0, structure: str = '', ragged: bool = True, groups: collections.abc.Sequence[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]] = [], split_axis: typing.SupportsInt | typing.SupportsIndex = 0, pairs: collections.abc.Sequence[tuple[typing.SupportsInt | typing.SupportsIndex, typing.SupportsInt | typing.SupportsIndex]] = []) -> bool:
        """
        Replica `replica` reaches a synchronisation point; True when every replica has. `ragged`: an
        all_gather's tensors may differ in size along `axis`; `groups`: TF's group_assignment (the collective
        runs within each group); `split_axis`: all_to_all's split dimension (`axis` its concat dimension);
        `pairs`: collective_permute's (source, target) replica ids. Raises at once,
        naming the replicas, when it does not match what the others do (InvalidArgumentError; ValueError
        for nests of different structure), or when a replica it waits for has finished.
        """
    def arrived(self) -> list[int]:
        ...
    def cancel(self, reason: str) -> None:
        ...
    def complete(self, devices: collections.abc.Sequence[Device] = []) -> list[list[Tensor] | None]:
        """
        Runs the full synchronisation point; one list of result tensors per replica (None for merge_call).
        """
    def depart(self, replica: typing.SupportsInt | typing.SupportsIndex) -> bool:
        """
        Replica `replica` finished; True if that failed a synchronisation point others wait at.
        """
    def raise_if_failed(self) -> None:
        ...
    def reset(self) -> None:
        ...
    @property
    def num_replicas(self) -> int:
        ...
    @property
    def replica_ids(self) -> list[int]:
        ...
def _copy_to_device(tensor: Tensor, device: str) -> Tensor:
    ...
def _crc32c(data: bytes, crc: typing.SupportsInt | typing.SupportsIndex = 0) -> int:
    """
    CRC32C (Castagnoli) of `data`, continuing from `crc`.
    """
def _data_concat_rows(parts: collections.abc.Sequence) -> Tensor:
    """
    Concatenates tensors along dim 0.
    """
def _data_slice_rows(batch: Tensor, begin: typing.SupportsInt | typing.SupportsIndex, count: typing.SupportsInt | typing.SupportsIndex) -> Tensor:
    """
    Rows [begin, begin + count) of a batch.
    """
def _data_slice_rows_to_devices(batch: Tensor, begins: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], counts: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], devices: collections.abc.Sequence[Device]) -> list[Tensor]:
    """
    Row ranges [begins[i], begins[i] + counts[i]) of a batch, range i allocated on devices[i] (one copy).
    """
def _data_split_rows(batch: Tensor, sizes: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> list[Tensor]:
    """
    Consecutive slices of a batch along dim 0 with the given sizes.
    """
def _data_stack_batch(elements: collections.abc.Sequence, component: typing.SupportsInt | typing.SupportsIndex = 0) -> Tensor:
    """
    Stacks tensors of equal dtype and shape S into one tensor of shape [N] + S.
    """
def _data_unstack_rows(batch: Tensor) -> list[Tensor]:
    """
    The rows of a batch (rank >= 1) as tensors of shape batch.shape[1:].
    """
def _example_parse(serialized: bytes) -> dict:
    """
    Parses a tf.train.Example into {key: (kind, values)}; InvalidArgumentError if malformed.
    """
def _example_serialize(features: dict) -> bytes:
    """
    Serializes {key: (kind, values)} as a tf.train.Example (kind: 1 bytes, 2 float, 3 int64).
    """
def _mask_crc(crc: typing.SupportsInt | typing.SupportsIndex) -> int:
    ...
def _parse_examples(serialized: collections.abc.Sequence, configs: collections.abc.Sequence) -> list:
    """
    Parses serialized Examples into one (values, row_lengths or None) per config.
    """
def _parse_sequence_feature_lists(serialized: collections.abc.Sequence, configs: collections.abc.Sequence) -> list:
    """
    Parses the feature_lists of serialized SequenceExamples: one (values, steps per example, values per step,
    present per example) per config (key, kind, var_len, shape, default).
    """
def _sequence_example_parse(serialized: bytes) -> tuple[dict, dict]:
    ...
def _sequence_example_serialize(context: dict, feature_lists: dict) -> bytes:
    ...
def _tfrecord_encode(record: bytes) -> bytes:
    """
    The TFRecord framing of one record.
    """
def _tfrecord_parse(contents: bytes, name: str) -> list:
    """
    Every record of an in-memory TFRecord file; DataLossError on corruption or truncation.
    """
def activate_slice(name: str) -> None:
    """
    Replaces the simulated devices with those of the named slice (unknown → ValueError).
    """
def active_slice() -> SlicePreset:
    ...
def all_gather(tensors: collections.abc.Sequence[Tensor], axis: typing.SupportsInt | typing.SupportsIndex, devices: collections.abc.Sequence[Device] | None = None) -> list[Tensor]:
    """
    Concatenates every replica's tensor along `axis` (replica order) and delivers it to each device.
    
    Sizes along `axis` may differ; every other dimension, the rank and the dtype must match; rank 0 is an error.
    """
def all_reduce(tensors: collections.abc.Sequence[Tensor], op: str, devices: collections.abc.Sequence[Device] | None = None) -> list[Tensor]:
    """
    Reduces every replica's tensor element-wise and delivers the result to each device.
    
    Args:
      tensors: one Tensor per replica, all of the same dtype and shape.
      op: "SUM", "MEAN", "MAX", "MIN" or "PROD" (any case).
      devices: where results go (one result each); None = each input's device.
    
    Returns:
      A list with one Tensor per device; they share one buffer, each charged to its device.
    
    Raises:
      InvalidArgumentError: dtypes or shapes differ (the message names the replica).
    """
def broadcast(tensor: Tensor, devices: collections.abc.Sequence[Device]) -> list[Tensor]:
    """
    The same value on each device (one shared buffer, charged to every device).
    """
def buffer_cache_limit() -> int:
    """
    The most host bytes the tensor-buffer caches keep together.
    """
def cached_memory_bytes() -> int:
    """
    Host bytes held by the tensor-buffer caches.
    """
def chip_specs() -> list[ChipSpec]:
    """
    Every chip generation the simulator knows.
    """
def constant(value: typing.Any, dtype: typing.Any = None) -> typing.Any:
    """
    Creates a Tensor holding a copy of `value`.
    """
def convert_to_tensor(value: typing.Any, dtype: typing.Any = None) -> typing.Any:
    """
    Converts a Python value, numpy array or Tensor to a Tensor.
    """
def current_context() -> ExecutionContext:
    """
    This thread's current context.
    """
def current_device() -> Device:
    """
    The device new tensors are placed on (None = host CPU 0).
    """
def find_device(name: str) -> Device:
    """
    Resolves a full or partial TF device name (e.g. 'TPU:3') to a simulated device.
    """
def find_slice_preset(name: str) -> SlicePreset:
    ...
def host_cpu(task: typing.SupportsInt | typing.SupportsIndex = 0) -> Device:
    ...
def list_devices(device_type: str = '') -> list[Device]:
    """
    Devices of the simulated slice, TPU cores first, in ordinal order.
    """
def parse_device_spec(name: str) -> dict:
    ...
def reduce_scatter(tensors: collections.abc.Sequence[Tensor], op: str, devices: collections.abc.Sequence[Device] | None = None) -> list[Tensor]:
    """
    Replica j receives the reduction of every replica's j-th slice along axis 0.
    """
def release_cached_memory() -> int:
    """
    Returns the host memory the tensor-buffer caches hold (freed buffers kept for reuse) to the OS.
    
    Returns:
      The bytes freed. HBM accounting is unaffected: cached blocks are charged to no device.
    """
def set_buffer_cache_limit(bytes: typing.SupportsInt | typing.SupportsIndex) -> None:
    """
    Sets the buffer caches' limit (0 disables caching); drops the caches when over it.
    """
def set_current_context(context: ExecutionContext) -> None:
    """
    Makes `context` this thread's current context (None: the thread's default).
    """
def set_current_device(device: Device) -> None:
    ...
def set_logical_cpu_count(count: typing.SupportsInt | typing.SupportsIndex) -> None:
    ...
def set_logical_gpu_count(count: typing.SupportsInt | typing.SupportsIndex, memory_limit_bytes: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
    ...
def slice_presets() -> list[SlicePreset]:
    """
    Every named slice the simulator knows.
    """
def slice_topology(name: str) -> Topology:
    """
    The Topology of the named slice preset (unknown name -> ValueError listing presets).
    """
def switch_round(workers: list, contexts: list, values: list, fresh: bool, parked: typing.Any, done: typing.Any) -> tuple:
    """
    One round of the replica scheduler: switches into each worker with its context current (scheduler.py).
    """
bfloat16: DType
bool: DType
float16: DType
float32: DType
float64: DType
int32: DType
int64: DType
