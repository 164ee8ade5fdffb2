"""XLA-style sharding annotations of a replica's tensor over its logical devices (SEMANTICS.md §4).

``maximal``: the whole tensor on one logical device. ``tiled``: the tensor split into a grid of tiles, tile
``(i0, …, ik)`` on logical device ``tile_assignment[i0, …, ik]``. ``replicated``: a full copy on every logical
device. The TPU strategies attach one of these to the tensor they return (``tensor._sharding``).
"""

from __future__ import annotations

import numpy as np


class Sharding:
    """How one tensor is laid out over the ``num_logical_devices`` cores of a replica."""

    MAXIMAL = "maximal"
    TILED = "tiled"
    REPLICATED = "replicated"

    def __init__(self, kind: str, num_logical_devices: int, tile_assignment=None, device: int | None = None):
        self.kind = kind
        self.num_logical_devices = num_logical_devices
        self.tile_assignment = None if tile_assignment is None else np.asarray(tile_assignment, dtype=np.int64)
        self.device = device

    @classmethod
    def maximal(cls, device: int, num_logical_devices: int) -> Sharding:
        return cls(cls.MAXIMAL, num_logical_devices, device=device)

    @classmethod
    def tiled(cls, partition_dimensions, num_logical_devices: int) -> Sharding:
        """Row-major tile assignment: ``arange(L).reshape(partition_dimensions)``."""
        grid = np.arange(num_logical_devices).reshape([int(p) for p in partition_dimensions])
        return cls(cls.TILED, num_logical_devices, tile_assignment=grid)

    @classmethod
    def replicated(cls, num_logical_devices: int) -> Sharding:
        return cls(cls.REPLICATED, num_logical_devices)

    def logical_devices(self) -> list[int]:
        """The logical devices that hold (part of) the tensor."""
        if self.kind == self.MAXIMAL:
            return [self.device]
        return list(range(self.num_logical_devices))

    def tile_index_of(self, logical_device: int) -> tuple[int, ...]:
        """The tile (grid index) a logical device holds under a tiled sharding."""
        if self.kind != self.TILED:
            raise ValueError(f"a {self.kind} sharding has no tiles")
        index = np.argwhere(self.tile_assignment == logical_device)
        if len(index) == 0:
            raise ValueError(f"logical device {logical_device} holds no tile")
        return tuple(int(i) for i in index[0])

    def tile_slices(self, shape, logical_device: int) -> tuple[slice, ...]:
        """The part of a tensor of `shape` that `logical_device` holds (tiled: its tile; otherwise all)."""
        if self.kind != self.TILED:
            return tuple(slice(0, int(d)) for d in shape)
        index = self.tile_index_of(logical_device)
        grid = self.tile_assignment.shape
        return tuple(
            slice(i * (int(d) // g), (i + 1) * (int(d) // g)) for i, g, d in zip(index, grid, shape, strict=True)
        )

    def __eq__(self, other) -> bool:
        if not isinstance(other, Sharding):
            return NotImplemented
        same_tiles = (self.tile_assignment is None and other.tile_assignment is None) or (
            self.tile_assignment is not None
            and other.tile_assignment is not None
            and np.array_equal(self.tile_assignment, other.tile_assignment)
        )
        return (self.kind, self.num_logical_devices, self.device) == (
            other.kind,
            other.num_logical_devices,
            other.device,
        ) and same_tiles

    __hash__ = None

    def __repr__(self) -> str:
        if self.kind == self.MAXIMAL:
            return f"Sharding(maximal, device={self.device})"
        if self.kind == self.TILED:
            return f"Sharding(tiled, tile_assignment={self.tile_assignment.tolist()})"
        return f"Sharding(replicated, num_logical_devices={self.num_logical_devices})"
