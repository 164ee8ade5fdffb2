"""
Sharding and the SPMD partitioner (private; use the tpustrategy facade).
"""
from __future__ import annotations
import collections.abc
import tpustrategy._core.devices
import tpustrategy._core.tensor
import typing
__all__: list[str] = ['ShardedTensor', 'Sharding', 'SpmdContext', 'SpmdEntry', 'SpmdRecord', 'binary', 'binary_grad', 'concat', 'conv2d', 'conv2d_filter_grad', 'conv2d_input_grad', 'depthwise_conv2d', 'depthwise_conv2d_filter_grad', 'depthwise_conv2d_input_grad', 'from_tape_tensor', 'gather', 'gather_grad', 'halo_exchange', 'matmul', 'matmul_grad', 'new_value', 'reduce', 'reduce_grad', 'reshape', 'reshard', 'shard_recorded', 'slice', 'slice_grad', 'softmax', 'sparse_softmax_cross_entropy', 'sparse_softmax_cross_entropy_grad', 'tape_tensor', 'transpose', 'unary', 'unary_grad']
class Sharding:
    """
    How a tensor is laid out over a replica's logical devices (modelled on XLA's HloSharding): replicated,
    maximal (one device), tiled (a row-major grid of tiles, tile i on tile_assignment_devices[i]) or partially
    tiled (a trailing grid dimension of replicas). Tiles use ceil division; last tiles may be short or empty.
    """
    @staticmethod
    def iota_tiled(tile_assignment_dims: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], *, last_tile_dim_replicate: bool = False) -> Sharding:
        """
        A grid of tiles on devices 0, 1, ... in row-major order.
        
        Args:
          tile_assignment_dims: the tile grid's shape.
          last_tile_dim_replicate: the grid's last dimension counts replicas of each tile (partial tiling).
        """
    @staticmethod
    def maximal(device: typing.SupportsInt | typing.SupportsIndex) -> Sharding:
        """
        The whole tensor on one logical device.
        
        Args:
          device: the logical device index.
        """
    @staticmethod
    def replicated() -> Sharding:
        """
        A full copy on every logical device.
        """
    @staticmethod
    def split(shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], partition_dimensions: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], num_logical_devices: typing.SupportsInt | typing.SupportsIndex) -> Sharding:
        """
        TF's split_to_logical_devices: validation (rank, divisibility, product) and row-major tiling.
        
        Args:
          shape: the tensor's shape.
          partition_dimensions: the number of pieces along each axis.
          num_logical_devices: the replica's logical devices; the product of partition_dimensions must equal it.
        
        Raises:
          ValueError: a rank mismatch, an axis the pieces do not divide, or a product other than num_logical_devices.
        """
    @staticmethod
    def tiled(tile_assignment_dims: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], devices: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], *, last_tile_dim_replicate: bool = False) -> Sharding:
        """
        A grid of tiles with an explicit device per tile.
        
        Args:
          tile_assignment_dims: the tile grid's shape (one entry per tensor axis, plus the replication dimension).
          devices: the logical device of each tile, row-major over the grid.
          last_tile_dim_replicate: the grid's last dimension counts replicas of each tile (partial tiling).
        
        Raises:
          ValueError: devices do not match the grid, or repeat.
        """
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
    def device_for_tile_index(self, index: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], *, replica: typing.SupportsInt | typing.SupportsIndex = 0) -> int:
        """
        The device holding the tile at a grid index.
        
        Args:
          index: the tile-grid index (without the replication dimension).
          replica: which copy, for a partially tiled sharding.
        """
    def device_groups_along(self, grid_dim: typing.SupportsInt | typing.SupportsIndex) -> list[list[int]]:
        """
        Devices differing only along a tile-grid dimension: a collective's participants.
        
        Args:
          grid_dim: the tile-grid dimension.
        """
    def devices_for_tile_index(self, index: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> list[int]:
        """
        Every device holding the tile at a grid index (its copies).
        
        Args:
          index: the tile-grid index (without the replication dimension).
        """
    def divides_evenly(self, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> bool:
        """
        Whether every tile of `shape` has the same extent.
        
        Args:
          shape: the global tensor's shape.
        """
    def holds_data(self, device: typing.SupportsInt | typing.SupportsIndex) -> bool:
        """
        Whether `device` holds a tile.
        
        Args:
          device: a logical device index.
        """
    def logical_devices(self, num_logical_devices: typing.SupportsInt | typing.SupportsIndex) -> list[int]:
        """
        The logical devices that hold data.
        
        Args:
          num_logical_devices: how many logical devices the replica has.
        """
    def tile_index_for_device(self, device: typing.SupportsInt | typing.SupportsIndex) -> tuple:
        """
        The tile-grid index of `device`'s tile.
        
        Args:
          device: a logical device index.
        """
    def tile_limit_for_device(self, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], device: typing.SupportsInt | typing.SupportsIndex) -> tuple:
        """
        Where `device`'s tile ends (exclusive) in the global tensor.
        
        Args:
          shape: the global tensor's shape.
          device: a logical device index.
        """
    def tile_offset_for_device(self, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], device: typing.SupportsInt | typing.SupportsIndex) -> tuple:
        """
        Where `device`'s tile starts in the global tensor.
        
        Args:
          shape: the global tensor's shape.
          device: a logical device index.
        """
    def tile_shape(self, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> tuple:
        """
        The full tile's shape (ceil division; last tiles may be shorter).
        
        Args:
          shape: the global tensor's shape.
        """
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
    def shard(tensor: typing.Any, sharding: Sharding, logical_devices: collections.abc.Sequence[tpustrategy._core.devices.Device]) -> ShardedTensor:
        """
        Cuts a global tensor into its shards, each allocated on its logical device.
        
        Args:
          tensor: a Tensor or a value convertible to one.
          sharding: the Sharding.
          logical_devices: the replica's logical devices, logical device k at index k.
        """
    def assemble(self, device: tpustrategy._core.devices.Device = None) -> tpustrategy._core.tensor.Tensor:
        """
        The global tensor rebuilt from the shards; recorded on the tapes that track the sharded value.
        
        Args:
          device: where the result goes; None = the current device.
        """
    @property
    def _shape_tuple(self) -> tuple:
        ...
    @property
    def bytes_per_device(self) -> list[int]:
        ...
    @property
    def dtype(self) -> tpustrategy._core.tensor.DType:
        ...
    @property
    def logical_devices(self) -> list[tpustrategy._core.devices.Device]:
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
class SpmdEntry:
    """
    One partitioned op, inserted collective or note of an SPMD step.
    """
    @property
    def bytes(self) -> list[int]:
        ...
    @property
    def dimension(self) -> int:
        ...
    @property
    def dtype(self) -> tpustrategy._core.tensor.DType:
        ...
    @property
    def flops(self) -> list[int]:
        ...
    @property
    def groups(self) -> list[list[int]]:
        ...
    @property
    def kind(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def operand_shape(self) -> tuple:
        ...
    @property
    def pairs(self) -> list[tuple[int, int]]:
        ...
    @property
    def reduction(self) -> str:
        ...
    @property
    def rule(self) -> str:
        ...
    @property
    def shard_shapes(self) -> list:
        ...
    @property
    def sharding(self) -> str:
        ...
class SpmdRecord:
    """
    What one SPMD step ran on each logical core, in program order.
    """
    def collective_bytes(self, core: typing.SupportsInt | typing.SupportsIndex) -> int:
        """
        Bytes one logical core sends in the inserted collectives.
        
        Args:
          core: the logical core.
        """
    def to_text(self) -> str:
        """
        The record as text, one line per entry (as spmd_plan() prints it).
        """
    def total_flops(self, core: typing.SupportsInt | typing.SupportsIndex) -> int:
        """
        FLOPs of the ops recorded on one logical core.
        
        Args:
          core: the logical core.
        """
    @property
    def entries(self) -> list[SpmdEntry]:
        ...
    @property
    def num_cores(self) -> int:
        ...
class SpmdContext:
    """
    One replica's logical cores for the partitioner: the devices shards live on, an in-process Communicator over
    them (subgroups by split) and the record of the current step.
    
    Args:
      logical_devices: the replica's cores, logical core k at index k.
    """
    def __init__(self, logical_devices: collections.abc.Sequence[tpustrategy._core.devices.Device]) -> None:
        """
        A context over the replica's cores.
        
        Args:
          logical_devices: the replica's cores, logical core k at index k.
        """
    def note(self, text: str) -> None:
        """
        Adds a note entry to the current record.
        
        Args:
          text: the note.
        """
    def take_record(self) -> SpmdRecord:
        """
        The step's record; starts a new one.
        """
    @property
    def num_cores(self) -> int:
        ...
    @property
    def record(self) -> SpmdRecord:
        ...
    @property
    def windowed_einsum_threshold_bytes(self) -> int:
        """
        A dot whose all-gathered operand reaches this size runs as XLA's windowed einsum loop (default 256 MiB, XLA's threshold_for_windowed_einsum_mib).
        """
    @windowed_einsum_threshold_bytes.setter
    def windowed_einsum_threshold_bytes(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
def binary(ctx: SpmdContext, op: str, a: ShardedTensor, b: ShardedTensor) -> ShardedTensor:
    """
    A partitioned elementwise binary op; operands are resharded to agree first.
    
    Args:
      ctx: the replica's SpmdContext.
      op: the op's name in _core.ops, e.g. "add".
      a: the first ShardedTensor.
      b: the second ShardedTensor.
    """
def binary_grad(ctx: SpmdContext, op: str, a: ShardedTensor, b: ShardedTensor, dy: ShardedTensor) -> tuple[ShardedTensor, ShardedTensor]:
    """
    The partitioned gradients (da, db) of a binary op, reduced over broadcast axes.
    
    Args:
      ctx: the replica's SpmdContext.
      op: the op's name.
      a: its first input.
      b: its second input.
      dy: the gradient of its output.
    """
def concat(ctx: SpmdContext, values: collections.abc.Sequence[ShardedTensor], axis: typing.SupportsInt | typing.SupportsIndex) -> ShardedTensor:
    """
    A partitioned concat.
    
    Args:
      ctx: the replica's SpmdContext.
      values: the ShardedTensors.
      axis: the axis to concatenate along.
    """
def conv2d(ctx: SpmdContext, x: ShardedTensor, filter: ShardedTensor, padding: str = 'SAME', *, strides: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"] = [1, 1], dilations: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"] = [1, 1], explicit_paddings: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"] = [0, 0, 0, 0]) -> ShardedTensor:
    """
    NHWC x HWIO; spatially tiled inputs exchange halos by collective-permute (misaligned strides gather).
    
    Args:
      ctx: the replica's SpmdContext.
      x: the NHWC input ShardedTensor.
      filter: the filter ShardedTensor.
      padding: "SAME", "VALID" or "EXPLICIT".
      strides, dilations: (height, width) steps and rates.
      explicit_paddings: (top, bottom, left, right), read when padding is "EXPLICIT".
    """
def conv2d_filter_grad(ctx: SpmdContext, x: ShardedTensor, filter: ShardedTensor, dy: ShardedTensor, padding: str = 'SAME', *, strides: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"] = [1, 1], dilations: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"] = [1, 1], explicit_paddings: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"] = [0, 0, 0, 0]) -> ShardedTensor:
    """
    d filter of a partitioned conv2d, replicated.
    
    Args:
      ctx: the replica's SpmdContext.
      x: the convolution's input ShardedTensor.
      filter: its filter ShardedTensor.
      dy: the gradient of its output.
      padding: "SAME", "VALID" or "EXPLICIT".
      strides, dilations: (height, width) steps and rates.
      explicit_paddings: (top, bottom, left, right), read when padding is "EXPLICIT".
    """
def conv2d_input_grad(ctx: SpmdContext, x: ShardedTensor, filter: ShardedTensor, dy: ShardedTensor, padding: str = 'SAME', *, strides: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"] = [1, 1], dilations: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"] = [1, 1], explicit_paddings: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"] = [0, 0, 0, 0]) -> ShardedTensor:
    """
    d input of a partitioned convolution, in x's sharding.
    
    Args:
      ctx: the replica's SpmdContext.
      x: the convolution's input ShardedTensor.
      filter: its filter ShardedTensor.
      dy: the gradient of its output.
      padding: "SAME", "VALID" or "EXPLICIT".
      strides, dilations: (height, width) steps and rates.
      explicit_paddings: (top, bottom, left, right), read when padding is "EXPLICIT".
    """
def depthwise_conv2d(ctx: SpmdContext, x: ShardedTensor, filter: ShardedTensor, padding: str = 'SAME', *, strides: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"] = [1, 1], dilations: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"] = [1, 1], explicit_paddings: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"] = [0, 0, 0, 0]) -> ShardedTensor:
    """
    NHWC x [kh, kw, in, multiplier]; spatial tiles exchange halos, channel tiles stay local.
    
    Args:
      ctx: the replica's SpmdContext.
      x: the NHWC input ShardedTensor.
      filter: the filter ShardedTensor.
      padding: "SAME", "VALID" or "EXPLICIT".
      strides, dilations: (height, width) steps and rates.
      explicit_paddings: (top, bottom, left, right), read when padding is "EXPLICIT".
    """
def depthwise_conv2d_filter_grad(ctx: SpmdContext, x: ShardedTensor, filter: ShardedTensor, dy: ShardedTensor, padding: str = 'SAME', *, strides: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"] = [1, 1], dilations: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"] = [1, 1], explicit_paddings: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"] = [0, 0, 0, 0]) -> ShardedTensor:
    """
    d filter of a partitioned depthwise_conv2d, in the filter's sharding.
    
    Args:
      ctx: the replica's SpmdContext.
      x: the convolution's input ShardedTensor.
      filter: its filter ShardedTensor.
      dy: the gradient of its output.
      padding: "SAME", "VALID" or "EXPLICIT".
      strides, dilations: (height, width) steps and rates.
      explicit_paddings: (top, bottom, left, right), read when padding is "EXPLICIT".
    """
def depthwise_conv2d_input_grad(ctx: SpmdContext, x: ShardedTensor, filter: ShardedTensor, dy: ShardedTensor, padding: str = 'SAME', *, strides: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"] = [1, 1], dilations: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"] = [1, 1], explicit_paddings: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"] = [0, 0, 0, 0]) -> ShardedTensor:
    """
    d input of a partitioned convolution, in x's sharding.
    
    Args:
      ctx: the replica's SpmdContext.
      x: the convolution's input ShardedTensor.
      filter: its filter ShardedTensor.
      dy: the gradient of its output.
      padding: "SAME", "VALID" or "EXPLICIT".
      strides, dilations: (height, width) steps and rates.
      explicit_paddings: (top, bottom, left, right), read when padding is "EXPLICIT".
    """
def from_tape_tensor(tensor: tpustrategy._core.tensor.Tensor) -> ShardedTensor | None:
    """
    The ShardedTensor a tape tensor stands for (a gradient of a partitioned value), or None.
    
    Args:
      tensor: a Tensor from a tape.
    """
def gather(ctx: SpmdContext, table: ShardedTensor, ids: ShardedTensor) -> ShardedTensor:
    """
    A partitioned gather of table rows (axis 0), e.g. an embedding lookup.
    
    Args:
      ctx: the replica's SpmdContext.
      table: the ShardedTensor.
      ids: the integer ShardedTensor of row ids.
    """
def gather_grad(ctx: SpmdContext, table: ShardedTensor, ids: ShardedTensor, dy: ShardedTensor) -> ShardedTensor:
    """
    d table of a partitioned gather (axis 0).
    
    Args:
      ctx: the replica's SpmdContext.
      table: the gathered ShardedTensor.
      ids: the row ids.
      dy: the gradient of the gathered rows.
    """
def halo_exchange(ctx: SpmdContext, x: ShardedTensor, dim: typing.SupportsInt | typing.SupportsIndex, before: typing.SupportsInt | typing.SupportsIndex, after: typing.SupportsInt | typing.SupportsIndex) -> list[tpustrategy._core.tensor.Tensor]:
    """
    Each shard extended by its neighbours' edges along `dim` (collective-permutes).
    
    Args:
      ctx: the replica's SpmdContext.
      x: the ShardedTensor.
      dim: the split dimension.
      before: elements taken from the previous shard.
      after: elements taken from the next shard.
    """
def matmul(ctx: SpmdContext, a: ShardedTensor, b: ShardedTensor, *, out_sharding: Sharding | None = None) -> ShardedTensor:
    """
    A partitioned matmul (XLA's dot rules: local, all-reduce, all-gather or windowed einsum).
    
    Args:
      ctx: the replica's SpmdContext.
      a: the left ShardedTensor.
      b: the right ShardedTensor.
      out_sharding: the result's Sharding; None lets the rules choose.
    """
def matmul_grad(ctx: SpmdContext, a: ShardedTensor, b: ShardedTensor, dy: ShardedTensor, *, want_a: bool = True, want_b: bool = True) -> tuple[ShardedTensor | None, ShardedTensor | None]:
    """
    (da, db) of y = a @ b; a gradient not wanted is None and costs nothing.
    
    Args:
      ctx: the replica's SpmdContext.
      a: the left operand.
      b: the right operand.
      dy: the gradient of y.
      want_a: compute da.
      want_b: compute db.
    """
def new_value(x: ShardedTensor) -> ShardedTensor:
    """
    The same shards as a new value to tapes (each read of a variable's copies is its own tensor).
    
    Args:
      x: the ShardedTensor.
    """
def reduce(ctx: SpmdContext, kind: str, x: ShardedTensor, axes: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], *, keepdims: bool = False) -> ShardedTensor:
    """
    A partitioned reduction: local reductions, then an all-reduce over split reduced axes.
    
    Args:
      ctx: the replica's SpmdContext.
      kind: "sum", "mean", "max", "min", "prod", "any" or "all".
      x: the ShardedTensor.
      axes: the axes to reduce.
      keepdims: keep reduced axes with length 1.
    """
def reduce_grad(ctx: SpmdContext, kind: str, x: ShardedTensor, axes: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], dy: ShardedTensor) -> ShardedTensor:
    """
    The partitioned gradient of a reduction.
    
    Args:
      ctx: the replica's SpmdContext.
      kind: the reduction, e.g. "sum".
      x: its input.
      axes: the reduced axes.
      dy: the gradient of its output.
    """
def reshape(ctx: SpmdContext, x: ShardedTensor, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> ShardedTensor:
    """
    A partitioned reshape (resharding where the split axes do not carry over).
    
    Args:
      ctx: the replica's SpmdContext.
      x: the ShardedTensor.
      shape: the new shape.
    """
def reshard(ctx: SpmdContext, x: ShardedTensor, sharding: Sharding, *, why: str = 'reshard') -> ShardedTensor:
    """
    Moves `x` to `sharding` with XLA's collectives (recorded in ctx and on the tapes).
    
    Args:
      ctx: the replica's SpmdContext.
      x: the ShardedTensor.
      sharding: the target Sharding.
      why: the reason, shown in the record.
    """
def shard_recorded(ctx: SpmdContext, tensor: typing.Any, sharding: Sharding) -> ShardedTensor:
    """
    `tensor` laid out on ctx's cores, recorded on the tapes (its gradient is the partitioned one assembled).
    
    Args:
      ctx: the replica's SpmdContext.
      tensor: a Tensor or a value convertible to one.
      sharding: the Sharding.
    """
def slice(ctx: SpmdContext, x: ShardedTensor, begin: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], size: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> ShardedTensor:
    """
    A partitioned tf.slice.
    
    Args:
      ctx: the replica's SpmdContext.
      x: the ShardedTensor.
      begin: the start index per axis.
      size: the extent per axis; -1 means to the end.
    """
def slice_grad(ctx: SpmdContext, x: ShardedTensor, begin: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], dy: ShardedTensor) -> ShardedTensor:
    """
    d x of a partitioned slice: dy padded back into x's shape.
    
    Args:
      ctx: the replica's SpmdContext.
      x: the slice's input.
      begin: the slice's start per axis.
      dy: the gradient of the slice.
    """
def softmax(ctx: SpmdContext, logits: ShardedTensor, axis: typing.SupportsInt | typing.SupportsIndex = -1) -> ShardedTensor:
    """
    A partitioned softmax (max and sum all-reduced when `axis` is split).
    
    Args:
      ctx: the replica's SpmdContext.
      logits: the ShardedTensor.
      axis: the axis to normalise over.
    """
def sparse_softmax_cross_entropy(ctx: SpmdContext, logits: ShardedTensor, labels: ShardedTensor) -> ShardedTensor:
    """
    Partitioned per-example sparse softmax cross-entropy.
    
    Args:
      ctx: the replica's SpmdContext.
      logits: [batch, classes] ShardedTensor.
      labels: [batch] integer ShardedTensor.
    """
def sparse_softmax_cross_entropy_grad(ctx: SpmdContext, logits: ShardedTensor, labels: ShardedTensor, dloss: ShardedTensor) -> ShardedTensor:
    """
    d logits of sparse softmax cross-entropy.
    
    Args:
      ctx: the replica's SpmdContext.
      logits: [batch, classes] ShardedTensor.
      labels: [batch] integer ShardedTensor.
      dloss: the gradient of the per-example loss.
    """
def tape_tensor(ctx: SpmdContext, x: ShardedTensor) -> tpustrategy._core.tensor.Tensor:
    """
    The tensor standing for `x` on gradient tapes (a proxy bound to ctx; copies of x share it).
    
    Args:
      ctx: the replica's SpmdContext.
      x: the ShardedTensor.
    """
def transpose(ctx: SpmdContext, x: ShardedTensor, perm: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> ShardedTensor:
    """
    A partitioned transpose: the sharding's grid is permuted with the axes.
    
    Args:
      ctx: the replica's SpmdContext.
      x: the ShardedTensor.
      perm: a permutation of the axes.
    """
def unary(ctx: SpmdContext, op: str, x: ShardedTensor) -> ShardedTensor:
    """
    A partitioned elementwise unary op: each shard by itself.
    
    Args:
      ctx: the replica's SpmdContext.
      op: the op's name in _core.ops, e.g. "exp".
      x: the ShardedTensor.
    """
def unary_grad(ctx: SpmdContext, op: str, x: ShardedTensor, dy: ShardedTensor) -> ShardedTensor:
    """
    The partitioned gradient of a unary op.
    
    Args:
      ctx: the replica's SpmdContext.
      op: the op's name.
      x: its input.
      dy: the gradient of its output.
    """
