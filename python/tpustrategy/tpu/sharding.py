"""XLA-style sharding of a replica's tensor over its logical devices (SEMANTICS.md §4).

The type is the C++ ``_core.spmd.Sharding`` (cpp/tpustrategy/spmd/sharding.h): ``replicated()``, ``maximal(d)``,
``tiled(dims, devices)`` / ``iota_tiled(dims)`` (tile ``(i0, …, ik)`` on the device at that row-major grid
position) and partially tiled layouts, with the pure tile math (``tile_index_for_device``,
``device_for_tile_index``, ``tile_offset_for_device``, …). Annotated tensors carry one (``ShardedTensor.sharding``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import SupportsInt

from tpustrategy._core.spmd import Sharding

__all__ = ["Sharding", "tile_slices"]


def tile_slices(sharding: Sharding, shape: Iterable[SupportsInt], logical_device: int) -> tuple[slice, ...]:
    """The part of a tensor of `shape` that `logical_device` holds, as numpy slices."""
    shape = [int(d) for d in shape]
    offset = sharding.tile_offset_for_device(shape, logical_device)
    limit = sharding.tile_limit_for_device(shape, logical_device)
    return tuple(slice(lo, hi) for lo, hi in zip(offset, limit, strict=True))
