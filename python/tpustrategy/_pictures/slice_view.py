"""What a slice picture needs to know about a Topology: where each core is, its host, HBM and the ICI wraparound.

A Topology from ``initialize_tpu_system`` or a resolver's metadata knows its slice preset (hence the generation's
ICI wraparound and HBM per core). One built by hand or from serialized bytes does not, and different generations
share meshes (v2-8 and v3-8), so the preset is guessed: the active slice if its mesh and device placement are the
same, else the first preset that matches (``preset`` says which; None when none does, and then no wraparound is
drawn and HBM is unknown).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from tpustrategy import _core


@dataclasses.dataclass(frozen=True)
class CoreInfo:
    """One core of the mesh: ``task`` / ``ordinal`` are -1 where the topology has no device."""

    position: tuple[int, int, int, int]
    task: int
    ordinal: int
    hbm_limit: int | None
    hbm_current: int | None


@dataclasses.dataclass(frozen=True)
class SliceView:
    mesh_shape: tuple[int, int, int, int]
    cores: dict[tuple[int, int, int, int], CoreInfo]
    wraparound: tuple[bool, bool, bool]
    num_tasks: int
    preset: str | None

    @property
    def chip_mesh(self) -> tuple[int, int, int]:
        return self.mesh_shape[0], self.mesh_shape[1], self.mesh_shape[2]

    @property
    def cores_per_chip(self) -> int:
        return self.mesh_shape[3]

    def chip_task(self, x: int, y: int, z: int) -> int:
        """The host of a chip (its first present core's task), -1 if the chip has no device."""
        for core in range(self.cores_per_chip):
            task = self.cores[(x, y, z, core)].task
            if task >= 0:
                return task
        return -1

    def wraparound_text(self) -> str:
        axes = [axis for axis, wraps in zip("xyz", self.wraparound, strict=True) if wraps]
        if self.preset is None:
            return "ICI wraparound unknown (no preset has this mesh): none drawn"
        return f"ICI wraparound on {', '.join(axes)}" if axes else "no ICI wraparound (open mesh)"


def _matching_preset(mesh: tuple[int, ...], coordinates: np.ndarray) -> Any:
    active = _core.slice.active_slice()
    candidates = [active] + [p for p in _core.slice.slice_presets() if p.name != active.name]
    for preset in candidates:
        if tuple(preset.mesh_shape) != mesh:
            continue
        if preset.name == active.name or preset.num_devices <= 4096:
            topology = _core.topology.slice_topology(preset.name)
            if np.array_equal(topology.device_coordinates, coordinates):
                return preset
    return None


def slice_view(topology: Any) -> SliceView:
    """The picture's view of a ``tpustrategy.tpu.experimental.Topology``."""
    x, y, z, c = (int(v) for v in topology.mesh_shape)
    mesh = (x, y, z, c)
    coordinates = np.asarray(topology.device_coordinates)
    named = getattr(topology, "_slice_name", None)
    preset = _core.slice.find_slice_preset(named) if named else _matching_preset(mesh, coordinates)
    live = {}
    if preset is not None and preset.name == _core.slice.active_slice().name:
        for device in _core.devices.list_devices("TPU"):
            live[tuple(device.coordinates)] = device.memory_info()
    per_core = preset.chip.hbm_bytes_per_device if preset is not None else None
    where = {}
    for task in range(coordinates.shape[0]):
        for ordinal in range(coordinates.shape[1]):
            where[tuple(int(v) for v in coordinates[task, ordinal])] = (task, ordinal)
    cores = {}
    for x in range(mesh[0]):
        for y in range(mesh[1]):
            for z in range(mesh[2]):
                for core in range(mesh[3]):
                    position = (x, y, z, core)
                    task, ordinal = where.get(position, (-1, -1))
                    info = live.get(position)
                    limit = info["limit"] if info else (per_core if task >= 0 else None)
                    current = info["current"] if info else None
                    cores[position] = CoreInfo(position, task, ordinal, limit, current)
    wx, wy, wz = (bool(w) for w in preset.wraparound) if preset is not None else (False, False, False)
    wraparound = (wx, wy, wz)
    return SliceView(mesh, cores, wraparound, int(coordinates.shape[0]), preset.name if preset else None)


def format_bytes(count: int | None) -> str:
    """Binary units as TF's memory stats are read: 16 GiB, 1.5 MiB, 12 B."""
    if count is None:
        return "?"
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift:
            value = count / (1 << shift)
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{count} B"
