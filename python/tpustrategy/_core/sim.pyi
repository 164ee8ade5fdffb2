"""
Cost model and step timeline (private; use tpustrategy.experimental).
"""
from __future__ import annotations
import collections.abc
import numpy
import numpy.typing
import tpustrategy._core.spmd
import typing
__all__: list[str] = ['BusBandwidth', 'CollectiveCost', 'CollectiveStat', 'CostParams', 'CriticalStep', 'OpCost', 'OpStat', 'RingAxis', 'StepEstimate', 'StepEvent', 'StepRecord', 'StepSummary', 'StepTimeline', 'TimedEvent', 'aggregate_ici_bandwidth', 'bisection_bandwidth', 'bus_bandwidth', 'collective_time', 'dcn_all_reduce_time', 'estimate_step', 'group_axes', 'host_transfer_time', 'latency_bound_threshold_bytes', 'op_time', 'record_active', 'record_num_events', 'record_spmd_call', 'record_start', 'record_stop', 'record_take', 'slice_axes']
class CostParams:
    """
    Calibration of the cost model: efficiencies against the data-sheet peaks and fixed costs. The defaults are
    calibrated on the scaling book's v5e measurements (see cpp/tpustrategy/sim/cost_params.h).
    """
    @staticmethod
    def calibrated() -> CostParams:
        """
        The calibrated defaults.
        """
    @staticmethod
    def nominal() -> CostParams:
        """
        Data-sheet peaks: efficiency 1, no latency, no overhead.
        """
    def __init__(self, *, ici_efficiency: typing.SupportsFloat | typing.SupportsIndex = 0.75, hop_latency_factor: typing.SupportsFloat | typing.SupportsIndex = 1.2, collective_overhead_us: typing.SupportsFloat | typing.SupportsIndex = 2.0, op_overhead_us: typing.SupportsFloat | typing.SupportsIndex = 1.0, mxu_efficiency: typing.SupportsFloat | typing.SupportsIndex = 1.0, hbm_efficiency: typing.SupportsFloat | typing.SupportsIndex = 1.0, pcie_efficiency: typing.SupportsFloat | typing.SupportsIndex = 1.0, dcn_efficiency: typing.SupportsFloat | typing.SupportsIndex = 1.0) -> None:
        """
        Cost-model parameters; the defaults are the calibrated ones.
        
        Args:
          ici_efficiency: fraction of an ICI link's peak rate a collective reaches, in (0, 1].
          hop_latency_factor: multiplier of the data-sheet per-hop latency.
          collective_overhead_us: fixed cost of launching one collective.
          op_overhead_us: fixed cost of launching one op.
          mxu_efficiency: fraction of the MXU's peak FLOP rate reached, in (0, 1].
          hbm_efficiency: fraction of the HBM bandwidth reached, in (0, 1].
          pcie_efficiency: fraction of the host link's bandwidth reached, in (0, 1].
          dcn_efficiency: fraction of the data-centre network's bandwidth reached, in (0, 1].
        
        Raises:
          ValueError: an efficiency outside (0, 1] or a negative factor or overhead.
        """
    def __repr__(self) -> str:
        ...
    @property
    def collective_overhead_us(self) -> float:
        ...
    @property
    def dcn_efficiency(self) -> float:
        ...
    @property
    def hbm_efficiency(self) -> float:
        ...
    @property
    def hop_latency_factor(self) -> float:
        ...
    @property
    def ici_efficiency(self) -> float:
        ...
    @property
    def mxu_efficiency(self) -> float:
        ...
    @property
    def op_overhead_us(self) -> float:
        ...
    @property
    def pcie_efficiency(self) -> float:
        ...
class RingAxis:
    """
    One torus axis a collective's group spans.
    """
    def __init__(self, size: typing.SupportsInt | typing.SupportsIndex, *, wraparound: bool = False, stride: typing.SupportsInt | typing.SupportsIndex = 1, on_chip: bool = False) -> None:
        """
        One axis of a collective's group.
        
        Args:
          size: members along the axis.
          wraparound: whether the ring closes through a wraparound link.
          stride: the distance in hops between neighbouring members.
          on_chip: whether the axis is the cores of one chip (no ICI).
        """
    def __repr__(self) -> str:
        ...
    @property
    def on_chip(self) -> bool:
        ...
    @property
    def size(self) -> int:
        ...
    @property
    def stride(self) -> int:
        ...
    @property
    def wraparound(self) -> bool:
        ...
class OpCost:
    """
    Simulated time of one op on one TF TPU device (seconds).
    """
    @property
    def compute_bound(self) -> bool:
        ...
    @property
    def compute_seconds(self) -> float:
        ...
    @property
    def memory_seconds(self) -> float:
        ...
    @property
    def overhead_seconds(self) -> float:
        ...
    @property
    def seconds(self) -> float:
        ...
class CollectiveCost:
    """
    Simulated time of one collective (seconds).
    """
    @property
    def bandwidth_seconds(self) -> float:
        ...
    @property
    def group_size(self) -> int:
        ...
    @property
    def hops(self) -> int:
        ...
    @property
    def latency_bound(self) -> bool:
        ...
    @property
    def latency_seconds(self) -> float:
        ...
    @property
    def overhead_seconds(self) -> float:
        ...
    @property
    def seconds(self) -> float:
        ...
class BusBandwidth:
    """
    nccl-tests' algorithm and bus bandwidth (bytes/s).
    """
    @property
    def algbw(self) -> float:
        ...
    @property
    def busbw(self) -> float:
        ...
class CriticalStep:
    """
    One record on a step's critical path and the core it ran on.
    """
    def __repr__(self) -> str:
        ...
    @property
    def core(self) -> int:
        ...
    @property
    def record(self) -> int:
        ...
class StepSummary:
    """
    Step time, per-core shares, MXU utilisation and critical path.
    """
    @property
    def communication(self) -> list[float]:
        ...
    @property
    def communication_share(self) -> float:
        ...
    @property
    def compute(self) -> list[float]:
        ...
    @property
    def compute_share(self) -> float:
        ...
    @property
    def critical_communication(self) -> float:
        ...
    @property
    def critical_compute(self) -> float:
        ...
    @property
    def critical_path(self) -> list[CriticalStep]:
        ...
    @property
    def idle(self) -> list[float]:
        ...
    @property
    def idle_share(self) -> float:
        ...
    @property
    def mxu_utilization(self) -> float:
        ...
    @property
    def step_time(self) -> float:
        ...
class StepTimeline:
    """
    Simulated timeline of one step over every TF TPU device of a slice preset, fed with records in program order.
    Cores are the preset's devices in task-major order (task t, device d -> core t * devices_per_host + d).
    """
    def __init__(self, slice: str, *, params: CostParams = ...) -> None:
        """
        An empty timeline over every TF TPU device of a preset.
        
        Args:
          slice: the preset's name.
          params: CostParams.
        """
    def add_collective(self, name: str, kind: str, group: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], bytes: typing.SupportsFloat | typing.SupportsIndex) -> int:
        """
        Appends one collective; it starts when the last member arrives.
        
        Args:
          name: the collective's name.
          kind: e.g. "all_reduce".
          group: the member cores.
          bytes: the buffer size as collective_time takes it.
        
        Returns:
          Its record index.
        """
    def add_op(self, core: typing.SupportsInt | typing.SupportsIndex, name: str, *, unit: str = 'vector', flops: typing.SupportsFloat | typing.SupportsIndex = 0.0, bytes: typing.SupportsFloat | typing.SupportsIndex = 0.0, dtype: str = 'bfloat16') -> int:
        """
        Appends one op on `core`.
        
        Args:
          core: the core it runs on.
          name: the op's name.
          unit: "mxu" or "vector".
          flops: its floating-point operations.
          bytes: its HBM bytes.
          dtype: the MXU dtype.
        
        Returns:
          Its record index.
        """
    def add_ops(self, cores: typing.Annotated[numpy.typing.ArrayLike, numpy.int32], flops: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], bytes: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], *, name: str = 'op', unit: str = 'mxu', dtype: str = 'bfloat16') -> None:
        """
        Appends one op per element, in order.
        
        Args:
          cores: per op, its core (numpy arrays of equal length).
          flops: per op, its floating-point operations.
          bytes: per op, its HBM bytes.
          name: every op's name.
          unit: "mxu" or "vector".
          dtype: the MXU dtype.
        
        Raises:
          ValueError: the arrays differ in length.
        """
    def record_end(self, record: typing.SupportsInt | typing.SupportsIndex) -> float:
        """
        A record's simulated end time.
        
        Args:
          record: a record index.
        """
    def record_start(self, record: typing.SupportsInt | typing.SupportsIndex) -> float:
        """
        A record's simulated start time.
        
        Args:
          record: a record index.
        """
    def summarize(self) -> StepSummary:
        """
        The step's StepSummary.
        """
    @property
    def num_cores(self) -> int:
        ...
    @property
    def num_records(self) -> int:
        ...
class StepEvent:
    """
    One recorded op or collective. Ops: slot (replica, logical core), name, input/output shapes, dtype, flops, bytes,
    unit ('mxu' or 'vector'). Collectives: name = kind, group [(replica, logical core), ...], count per member, bytes.
    """
    def __repr__(self) -> str:
        ...
    @property
    def bytes(self) -> float:
        ...
    @property
    def collective(self) -> bool:
        ...
    @property
    def count(self) -> int:
        ...
    @property
    def dtype(self) -> str:
        ...
    @property
    def flops(self) -> float:
        ...
    @property
    def group(self) -> list[tuple[int, int]]:
        ...
    @property
    def input_shapes(self) -> list[list[int]]:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def output_shapes(self) -> list[list[int]]:
        ...
    @property
    def slot(self) -> tuple[int, int]:
        ...
    @property
    def spmd(self) -> bool:
        """
        Inserted by the SPMD partitioner over one replica's logical cores.
        """
    @property
    def unit(self) -> str:
        ...
class StepRecord:
    """
    What one step did, per replica and logical core, in program order (cpp/tpustrategy/sim/step_record.h).
    Filled by the runtime recorder (record_start / record_take) or by hand (add_op / add_collective).
    """
    def __init__(self, *, name: str = '', step_num: typing.SupportsInt | typing.SupportsIndex = -1) -> None:
        """
        An empty record, filled by hand.
        
        Args:
          name: the record's name.
          step_num: the record's step number (-1: none).
        """
    def __repr__(self) -> str:
        ...
    def add_collective(self, kind: str, group: collections.abc.Sequence[tuple[typing.SupportsInt | typing.SupportsIndex, typing.SupportsInt | typing.SupportsIndex]], count: typing.SupportsInt | typing.SupportsIndex, *, dtype: typing.Any = 'float32') -> None:
        """
        Appends a collective.
        
        Args:
          kind: e.g. "all_reduce".
          group: the members, [(replica, logical core), ...].
          count: elements per member.
          dtype: the element dtype.
        """
    def add_op(self, name: str, inputs: collections.abc.Sequence[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]], outputs: collections.abc.Sequence[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]], *, dtype: typing.Any = 'float32', replica: typing.SupportsInt | typing.SupportsIndex = 0, logical_core: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
        """
        Appends an op; its FLOPs, bytes and unit are derived from its name and shapes.
        
        Args:
          name: the TF op name, e.g. "MatMul".
          inputs: the input shapes.
          outputs: the output shapes.
          dtype: the element dtype.
          replica: the replica it ran on.
          logical_core: the logical core it ran on.
        """
    def add_spmd(self, spmd_record: tpustrategy._core.spmd.SpmdRecord, *, replica: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
        """
        Appends an SPMD step's per-logical-core ops and inserted collectives as one replica's events.
        
        Args:
          spmd_record: an SpmdRecord (tpustrategy.experimental.spmd_plan().records[i]).
          replica: the replica whose events they become.
        
        Raises:
          ValueError: a negative replica.
        """
    @property
    def events(self) -> list[StepEvent]:
        ...
    @property
    def hbm(self) -> list[tuple]:
        """
        [((replica, logical core), peak bytes, capacity bytes)] while the step was recorded.
        """
    @property
    def logical_cores_per_replica(self) -> int:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def num_events(self) -> int:
        ...
    @property
    def num_replicas(self) -> int:
        ...
    @property
    def step_num(self) -> int:
        ...
class OpStat:
    """
    One op name's simulated time summed over every core.
    """
    @property
    def bytes(self) -> float:
        ...
    @property
    def count(self) -> int:
        ...
    @property
    def flops(self) -> float:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def seconds(self) -> float:
        ...
class CollectiveStat:
    """
    One recorded collective on the target slice.
    """
    @property
    def algbw(self) -> float:
        ...
    @property
    def busbw(self) -> float:
        ...
    @property
    def bytes(self) -> float:
        ...
    @property
    def event(self) -> int:
        ...
    @property
    def group_size(self) -> int:
        ...
    @property
    def hops(self) -> int:
        ...
    @property
    def instances(self) -> int:
        ...
    @property
    def kind(self) -> str:
        ...
    @property
    def latency_bound(self) -> bool:
        ...
    @property
    def seconds(self) -> float:
        ...
class TimedEvent:
    """
    One op or collective member placed on the estimated timeline.
    """
    @property
    def core(self) -> int:
        ...
    @property
    def end(self) -> float:
        ...
    @property
    def event(self) -> int:
        ...
    @property
    def start(self) -> float:
        ...
class StepEstimate:
    """
    Simulated time of a recorded step on a slice preset.
    """
    @property
    def collectives(self) -> list[CollectiveStat]:
        ...
    @property
    def cores_per_replica(self) -> int:
        ...
    @property
    def hbm_capacity(self) -> int:
        """
        HBM bytes of one TF device of the target.
        """
    @property
    def hbm_peak(self) -> list[int]:
        """
        Per core: recorded peak HBM bytes (-1 = not recorded).
        """
    @property
    def num_cores(self) -> int:
        ...
    @property
    def num_replicas(self) -> int:
        ...
    @property
    def ops(self) -> list[OpStat]:
        ...
    @property
    def slice(self) -> str:
        ...
    @property
    def summary(self) -> StepSummary:
        ...
    @property
    def timeline(self) -> tuple[list[int], list[int], list[float], list[float]]:
        ...
def aggregate_ici_bandwidth(slice: str) -> float:
    """
    Sum over chips of their ICI links' one-way rate, bytes/s (the 'all-reduce bandwidth').
    
    Args:
      slice: the preset's name.
    """
def bisection_bandwidth(slice: str) -> float:
    """
    One-way bytes/s across the narrowest cut of the slice in half.
    
    Args:
      slice: the preset's name.
    """
def bus_bandwidth(kind: str, bytes: typing.SupportsFloat | typing.SupportsIndex, group_size: typing.SupportsInt | typing.SupportsIndex, seconds: typing.SupportsFloat | typing.SupportsIndex) -> BusBandwidth:
    """
    algbw and busbw as nccl-tests reports them.
    
    Args:
      kind: the collective, e.g. "all_reduce".
      bytes: the buffer size as collective_time takes it.
      group_size: the number of members.
      seconds: the collective's time.
    
    Returns:
      BusBandwidth.
    """
def collective_time(generation: str, kind: str, bytes: typing.SupportsFloat | typing.SupportsIndex, axes: collections.abc.Sequence[RingAxis], *, params: CostParams = ...) -> CollectiveCost:
    """
    Time of one collective over the given torus axes (ring algorithms per axis).
    
    Args:
      generation: the chip generation.
      kind: "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "collective_permute" or "broadcast".
      bytes: all_reduce / all_to_all / permute / broadcast: the per-member buffer; all_gather: the gathered array;
        reduce_scatter: the array before scattering.
      axes: RingAxis per torus axis the group spans (see slice_axes / group_axes).
      params: CostParams.
    
    Returns:
      CollectiveCost.
    """
def dcn_all_reduce_time(generation: str, bytes_per_chip: typing.SupportsFloat | typing.SupportsIndex, num_slices: typing.SupportsInt | typing.SupportsIndex, *, params: CostParams = ...) -> float:
    """
    Seconds for an all-reduce across slices over DCN, each chip exchanging its own share.
    
    Args:
      generation: the chip generation.
      bytes_per_chip: each chip's share of the buffer.
      num_slices: the slices taking part.
      params: CostParams.
    """
def estimate_step(record: StepRecord, slice: str, *, params: CostParams = ..., num_replicas: typing.SupportsInt | typing.SupportsIndex = 0, core_of_slot: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex] = [], keep_timeline: bool = False) -> StepEstimate:
    """
    Simulated time of a recorded step on a slice preset (cpp/tpustrategy/sim/step_estimate.h).
    
    Args:
      record: a StepRecord.
      slice: the target preset's name.
      params: CostParams.
      num_replicas: target replicas (0: every core / logical cores per replica); replica t runs recorded replica
        t mod R's program.
      core_of_slot: target core of (replica t, logical core l) at t * C + l (default: the preset's device order).
      keep_timeline: also return one (event, core, start, end) entry per op and collective member.
    
    Returns:
      StepEstimate.
    
    Raises:
      ValueError: unknown slice, replicas that do not fit, bad core_of_slot, a subgroup that cannot be repeated.
    """
def group_axes(slice: str, members: collections.abc.Sequence[typing.Annotated[collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], "FixedSize(4)"]]) -> list[RingAxis]:
    """
    RingAxis list of the box a group's members span.
    
    Args:
      slice: the preset's name.
      members: the members' [x, y, z, core] coordinates.
    """
def host_transfer_time(generation: str, bytes: typing.SupportsFloat | typing.SupportsIndex, *, params: CostParams = ...) -> float:
    """
    Seconds to move `bytes` between host and one chip over PCIe.
    
    Args:
      generation: the chip generation.
      bytes: the bytes moved.
      params: CostParams.
    """
def latency_bound_threshold_bytes(generation: str, *, params: CostParams = ...) -> float:
    """
    Per-hop message size in bytes below which an ICI hop is latency-bound.
    
    Args:
      generation: the chip generation, e.g. "v5e".
      params: CostParams.
    """
def op_time(generation: str, unit: str, flops: typing.SupportsFloat | typing.SupportsIndex, bytes: typing.SupportsFloat | typing.SupportsIndex, *, dtype: str = 'bfloat16', params: CostParams = ...) -> OpCost:
    """
    Roofline time of one op on one TF TPU device of `generation`.
    
    Args:
      generation: "v2", "v3", "v4", "v5e", "v5p" or "v6e".
      unit: "mxu" (matmul, convolution: FLOPs at the dtype's peak) or "vector" (memory-bound).
      flops: floating-point (or int8) operations.
      bytes: HBM bytes read and written.
      dtype: "bfloat16", "float16", "float32" or "int8" (the MXU rate).
      params: CostParams.
    
    Returns:
      OpCost.
    
    Raises:
      ValueError: unknown generation, unit or dtype; negative or non-finite flops/bytes.
    """
def record_active() -> bool:
    """
    Whether the runtime recorder is recording.
    """
def record_num_events() -> int:
    """
    Events recorded since start or the last take.
    """
def record_spmd_call(ctx: tpustrategy._core.spmd.SpmdContext, fn: collections.abc.Callable, *args, **kwargs) -> typing.Any:
    """
    Runs one SPMD partitioned call and records what it appended to ctx's SpmdRecord.
    
    The record gets one entry per logical core of the bound replica, instead of its kernels and subgroup collectives.
    
    Args:
      ctx: the replica's SpmdContext.
      fn: called as fn(*args, **kwargs).
    
    Returns:
      fn's result.
    """
def record_start() -> None:
    """
    Starts recording every op and collective into the process-wide record (FailedPreconditionError if already recording).
    """
def record_stop() -> None:
    """
    Stops recording; the events stay until record_take().
    """
def record_take(*, name: str = '', step_num: typing.SupportsInt | typing.SupportsIndex = -1) -> StepRecord:
    """
    The events recorded since start or the last take, as a StepRecord (moved out).
    
    Args:
      name: the record's name.
      step_num: the record's step number (-1: none).
    """
def slice_axes(slice: str, axes: str) -> list[RingAxis]:
    """
    RingAxis list for whole axes of a preset.
    
    Args:
      slice: the preset's name.
      axes: letters of "xyzc" (c = the cores of a chip).
    
    Raises:
      ValueError: an unknown slice or axis letter.
    """
