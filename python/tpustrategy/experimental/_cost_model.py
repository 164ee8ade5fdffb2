"""The cost-model helpers of tpustrategy.experimental: thin wrappers over _core.sim with slice defaults."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from tpustrategy import _core

_sim = _core.sim
CostParams = _sim.CostParams
StepTimeline = _sim.StepTimeline


class CollectiveEstimate(NamedTuple):
    """Simulated time of one collective, with nccl-tests' bandwidths."""

    seconds: float
    bandwidth_seconds: float
    latency_seconds: float
    hops: int
    group_size: int
    latency_bound: bool
    algbw: float  # bytes / s
    busbw: float  # bytes / s


def _slice_name(slice: str | None) -> str:  # noqa: A002 (TF-style keyword)
    return _core.slice.active_slice().name if slice is None else _core.slice.find_slice_preset(str(slice)).name


def _default_axes(preset: _core.slice.SlicePreset) -> str:
    """Every axis of the slice with more than one member: chip axes x, y, z, and c for two-core chips."""
    letters = "".join(axis for axis, size in zip("xyz", list(preset.mesh_shape)[:3], strict=True) if size > 1)
    return letters + ("c" if preset.mesh_shape[3] > 1 else "")


def estimate_collective(kind: str, bytes: float, *, slice: str | None = None, axes: str | None = None,  # noqa: A002
                        group: Sequence[Sequence[int]] | None = None,
                        params: CostParams | None = None) -> CollectiveEstimate:
    """Estimates one collective on a slice preset.

    Args:
      kind: "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "collective_permute" or "broadcast".
      bytes: all_reduce / all_to_all / permute / broadcast: the per-member buffer; all_gather: the gathered
        array; reduce_scatter: the array before scattering (nccl-tests' sizes).
      slice: a preset name such as "v5p-128" (default: the active slice).
      axes: whole mesh axes the group spans, letters of "xyzc" (c = the two cores of a v2/v3 chip); default
        every axis of the slice. Not together with `group`.
      group: the members' mesh coordinates [[x, y, z, core], ...] instead of `axes`.
      params: CostParams (default: the calibrated ones).

    Returns:
      CollectiveEstimate.

    Raises:
      ValueError: unknown slice or kind, bad axes, coordinates outside the slice, negative bytes.
    """
    name = _slice_name(slice)
    preset = _core.slice.find_slice_preset(name)
    if axes is not None and group is not None:
        raise ValueError("estimate_collective: give axes or group, not both")
    if group is not None:
        ring_axes = _sim.group_axes(name, [list(map(int, c)) for c in group])
    else:
        ring_axes = _sim.slice_axes(name, _default_axes(preset) if axes is None else str(axes))
    params = CostParams.calibrated() if params is None else params
    cost = _sim.collective_time(preset.generation, kind, float(bytes), ring_axes, params=params)
    bw = _sim.bus_bandwidth(kind, float(bytes), cost.group_size, cost.seconds) if cost.seconds > 0 else None
    return CollectiveEstimate(cost.seconds, cost.bandwidth_seconds, cost.latency_seconds, cost.hops,
                              cost.group_size, cost.latency_bound, bw.algbw if bw else 0.0, bw.busbw if bw else 0.0)


def estimate_collective_time(kind: str, bytes: float, *, slice: str | None = None,  # noqa: A002
                             axes: str | None = None, group: Sequence[Sequence[int]] | None = None,
                             params: CostParams | None = None) -> float:
    """Seconds one collective takes on the slice (see estimate_collective for the arguments)."""
    return estimate_collective(kind, bytes, slice=slice, axes=axes, group=group, params=params).seconds


def estimate_op_time(flops: float = 0.0, bytes: float = 0.0, *, dtype: str = "bfloat16",  # noqa: A002
                     unit: str = "mxu", slice: str | None = None, generation: str | None = None,  # noqa: A002
                     params: CostParams | None = None) -> float:
    """Seconds one op takes on one TF TPU device: max(FLOPs / peak(dtype), bytes / HBM bandwidth) + overhead.

    Args:
      flops: operations (for a matmul [m, k] x [k, n]: 2 m k n).
      bytes: HBM bytes read and written.
      dtype: "bfloat16", "float16", "float32" (one bf16 MXU pass, XLA's default) or "int8".
      unit: "mxu" for matmuls and convolutions, "vector" for everything else (memory-bound).
      slice: a preset name (default: the active slice); or `generation` ("v5e", ...) instead.
      params: CostParams.
    """
    if generation is None:
        generation = _core.slice.find_slice_preset(_slice_name(slice)).generation
    elif slice is not None:
        raise ValueError("estimate_op_time: give slice or generation, not both")
    params = CostParams.calibrated() if params is None else params
    return _sim.op_time(str(generation), unit, float(flops), float(bytes), dtype=dtype, params=params).seconds


def slice_bandwidths(slice: str | None = None) -> dict[str, float]:  # noqa: A002
    """ICI figures of a slice in bytes/s: 'all_reduce' (sum of the chips' link rates, as the cloud pages quote
    "all-reduce bandwidth per Pod") and 'bisection' (across the narrowest cut in half)."""
    name = _slice_name(slice)
    return {"all_reduce": _sim.aggregate_ici_bandwidth(name), "bisection": _sim.bisection_bandwidth(name)}
