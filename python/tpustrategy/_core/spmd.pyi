"""
The SPMD partitioner (private; use the tpustrategy facade).
"""
from __future__ import annotations
import collections.abc
import tpustrategy._core
import typing
__all__: list[str] = ['SpmdContext', 'SpmdEntry', 'SpmdRecord', 'binary', 'binary_grad', 'concat', 'conv2d', 'conv2d_filter_grad', 'conv2d_input_grad', 'gather', 'gather_grad', 'halo_exchange', 'matmul', 'matmul_grad', 'reduce', 'reduce_grad', 'reshape', 'reshard', 'slice', 'slice_grad', 'softmax', 'sparse_softmax_cross_entropy', 'sparse_softmax_cross_entropy_grad', 'transpose', 'unary', 'unary_grad']
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
    def dtype(self) -> tpustrategy._core.DType:
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
        ...
    def to_text(self) -> str:
        ...
    def total_flops(self, core: typing.SupportsInt | typing.SupportsIndex) -> int:
        ...
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
    def __init__(self, logical_devices: collections.abc.Sequence[tpustrategy._core.Device]) -> None:
        ...
    def note(self, text: str) -> None:
        ...
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
def binary(ctx: SpmdContext, op: str, a: tpustrategy._core.ShardedTensor, b: tpustrategy._core.ShardedTensor) -> tpustrategy._core.ShardedTensor:
    ...
def binary_grad(ctx: SpmdContext, op: str, a: tpustrategy._core.ShardedTensor, b: tpustrategy._core.ShardedTensor, dy: tpustrategy._core.ShardedTensor) -> tuple[tpustrategy._core.ShardedTensor, tpustrategy._core.ShardedTensor]:
    ...
def concat(ctx: SpmdContext, values: collections.abc.Sequence[tpustrategy._core.ShardedTensor], axis: typing.SupportsInt | typing.SupportsIndex) -> tpustrategy._core.ShardedTensor:
    ...
def conv2d(ctx: SpmdContext, x: tpustrategy._core.ShardedTensor, filter: tpustrategy._core.ShardedTensor, padding: str = 'SAME', *, strides: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"] = [1, 1], dilations: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"] = [1, 1]) -> tpustrategy._core.ShardedTensor:
    """
    NHWC x HWIO; spatially tiled inputs exchange halos by collective-permute (misaligned strides gather).
    """
def conv2d_filter_grad(ctx: SpmdContext, x: tpustrategy._core.ShardedTensor, filter: tpustrategy._core.ShardedTensor, dy: tpustrategy._core.ShardedTensor, padding: str = 'SAME', *, strides: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"] = [1, 1], dilations: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"] = [1, 1]) -> tpustrategy._core.ShardedTensor:
    """
    d filter of a partitioned conv2d, replicated.
    """
def conv2d_input_grad(ctx: SpmdContext, x: tpustrategy._core.ShardedTensor, filter: tpustrategy._core.ShardedTensor, dy: tpustrategy._core.ShardedTensor, padding: str = 'SAME', *, strides: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"] = [1, 1], dilations: typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(2)"] = [1, 1]) -> tpustrategy._core.ShardedTensor:
    """
    d input of a partitioned conv2d, in x's sharding.
    """
def gather(ctx: SpmdContext, table: tpustrategy._core.ShardedTensor, ids: tpustrategy._core.ShardedTensor) -> tpustrategy._core.ShardedTensor:
    ...
def gather_grad(ctx: SpmdContext, table: tpustrategy._core.ShardedTensor, ids: tpustrategy._core.ShardedTensor, dy: tpustrategy._core.ShardedTensor) -> tpustrategy._core.ShardedTensor:
    """
    d table of a partitioned gather (axis 0).
    """
def halo_exchange(ctx: SpmdContext, x: tpustrategy._core.ShardedTensor, dim: typing.SupportsInt | typing.SupportsIndex, before: typing.SupportsInt | typing.SupportsIndex, after: typing.SupportsInt | typing.SupportsIndex) -> list[tpustrategy._core.Tensor]:
    ...
def matmul(ctx: SpmdContext, a: tpustrategy._core.ShardedTensor, b: tpustrategy._core.ShardedTensor, *, out_sharding: tpustrategy._core.Sharding | None = None) -> tpustrategy._core.ShardedTensor:
    ...
def matmul_grad(ctx: SpmdContext, a: tpustrategy._core.ShardedTensor, b: tpustrategy._core.ShardedTensor, dy: tpustrategy._core.ShardedTensor, *, want_a: bool = True, want_b: bool = True) -> tuple[tpustrategy._core.ShardedTensor | None, tpustrategy._core.ShardedTensor | None]:
    """
    (da, db) of y = a @ b; a gradient not wanted is None and costs nothing.
    """
def reduce(ctx: SpmdContext, kind: str, x: tpustrategy._core.ShardedTensor, axes: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], keepdims: bool = False) -> tpustrategy._core.ShardedTensor:
    ...
def reduce_grad(ctx: SpmdContext, kind: str, x: tpustrategy._core.ShardedTensor, axes: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], dy: tpustrategy._core.ShardedTensor) -> tpustrategy._core.ShardedTensor:
    ...
def reshape(ctx: SpmdContext, x: tpustrategy._core.ShardedTensor, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> tpustrategy._core.ShardedTensor:
    ...
def reshard(ctx: SpmdContext, x: tpustrategy._core.ShardedTensor, sharding: tpustrategy._core.Sharding, *, why: str = 'reshard') -> tpustrategy._core.ShardedTensor:
    """
    Moves `x` to `sharding` with XLA's collectives (recorded in ctx).
    """
def slice(ctx: SpmdContext, x: tpustrategy._core.ShardedTensor, begin: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], size: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> tpustrategy._core.ShardedTensor:
    ...
def slice_grad(ctx: SpmdContext, x: tpustrategy._core.ShardedTensor, begin: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], dy: tpustrategy._core.ShardedTensor) -> tpustrategy._core.ShardedTensor:
    ...
def softmax(ctx: SpmdContext, logits: tpustrategy._core.ShardedTensor, axis: typing.SupportsInt | typing.SupportsIndex = -1) -> tpustrategy._core.ShardedTensor:
    ...
def sparse_softmax_cross_entropy(ctx: SpmdContext, logits: tpustrategy._core.ShardedTensor, labels: tpustrategy._core.ShardedTensor) -> tpustrategy._core.ShardedTensor:
    ...
def sparse_softmax_cross_entropy_grad(ctx: SpmdContext, logits: tpustrategy._core.ShardedTensor, labels: tpustrategy._core.ShardedTensor, dloss: tpustrategy._core.ShardedTensor) -> tpustrategy._core.ShardedTensor:
    ...
def transpose(ctx: SpmdContext, x: tpustrategy._core.ShardedTensor, perm: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> tpustrategy._core.ShardedTensor:
    ...
def unary(ctx: SpmdContext, op: str, x: tpustrategy._core.ShardedTensor) -> tpustrategy._core.ShardedTensor:
    ...
def unary_grad(ctx: SpmdContext, op: str, x: tpustrategy._core.ShardedTensor, dy: tpustrategy._core.ShardedTensor) -> tpustrategy._core.ShardedTensor:
    ...
