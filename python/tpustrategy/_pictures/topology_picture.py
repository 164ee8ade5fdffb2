"""The Topology picture: chips with their coordinates, cores coloured by host (core 0 darker than core 1, so the
TensorCores of a chip stand apart even on a one-host slice), HBM per core, ICI links with wraparound, host
borders, and a legend."""

from __future__ import annotations

import html
from typing import Any

from tpustrategy._pictures import palette, slice_svg, slice_text
from tpustrategy._pictures.slice_view import SliceView, format_bytes, slice_view

_LEGEND_MAX_HOSTS = 32


def _core_shade(colour: str, core: int) -> str:
    return palette.shade(colour, 10 * core - 5) if core else palette.shade(colour, -8)


def _summary(view: SliceView, topology: Any) -> str:
    x, y, z = view.chip_mesh
    name = f" {view.preset}" if view.preset else ""
    devices = int(topology.device_coordinates.shape[0] * topology.device_coordinates.shape[1])
    hosts = f"{view.num_tasks} host{'s' if view.num_tasks != 1 else ''}"
    return (
        f"Topology{name}: {x}x{y}x{z} chips x {view.cores_per_chip} core(s), {hosts}, {devices} TPU devices; "
        f"{view.wraparound_text()}"
    )


def _hbm_text(view: SliceView) -> str:
    limits = {c.hbm_limit for c in view.cores.values() if c.task >= 0}
    if limits == {None}:
        return "HBM per core: unknown (no preset has this mesh)"
    if len(limits) == 1:
        return f"HBM per core: {format_bytes(limits.pop())}"
    lowered = [
        f"TPU:{c.ordinal}@h{c.task} {format_bytes(c.hbm_limit)}"
        for c in view.cores.values()
        if c.task >= 0 and c.hbm_limit != max(limits, key=lambda v: v or 0)
    ]
    return f"HBM per core: {format_bytes(max(limits, key=lambda v: v or 0))}, lowered: {', '.join(lowered)}"


def topology_text(topology: Any, max_planes: int | None = None) -> str:
    """The terminal picture (``python -m tpustrategy topology SLICE``)."""
    view = slice_view(topology)

    def chip_text(x: int, y: int, z: int) -> str:
        cores = [view.cores[(x, y, z, c)] for c in range(view.cores_per_chip)]
        ordinals = ",".join(str(c.ordinal) if c.task >= 0 else "-" for c in cores)
        return f"{slice_text.host_label(view.chip_task(x, y, z))} TPU:{ordinals}"

    lines = [_summary(view, topology), _hbm_text(view)]
    lines += slice_text.render_planes(view, chip_text, max_planes)
    lines.append(
        "legend: [hH TPU:a,b] = a chip on host H (task H); a,b = the TPU ordinals on that host of its cores "
        "(core 0 first, - = missing)"
    )
    lines.append(slice_text.LINK_LEGEND)
    return "\n".join(lines)


def topology_html(topology: Any, max_planes: int = 8) -> str:
    view = slice_view(topology)
    hosts = palette.distinct_colours(max(view.num_tasks, 1))

    def core_style(position: tuple[int, int, int, int]) -> tuple[str, str, str, str]:
        info = view.cores[position]
        if info.task < 0:
            return palette.UNUSED, "missing", "", f"no device at {position}"
        fill = _core_shade(hosts[info.task], position[3])
        name = topology.tpu_device_name_at_coordinates(position)
        usage = f"; HBM in use {format_bytes(info.hbm_current)}" if info.hbm_current is not None else ""
        tooltip = f"{name} at [x,y,z,core]={list(position)}; HBM {format_bytes(info.hbm_limit)}{usage}"
        return fill, f"h{info.task} TPU:{info.ordinal}", format_bytes(info.hbm_limit), tooltip

    entries: list[tuple[str, str]] = []
    for task in range(min(view.num_tasks, _LEGEND_MAX_HOSTS)):
        for core in range(view.cores_per_chip):
            suffix = f", core {core}" if view.cores_per_chip > 1 else ""
            entries.append((_core_shade(hosts[task], core), f"host {task}{suffix}"))
    entries += [("host:#333", "host border"), ("link", "ICI link")]
    if any(view.wraparound):
        entries.append(("wrap", "wraparound link (to the far end of the row/column)"))
    if any(c.task < 0 for c in view.cores.values()):
        entries.append((palette.UNUSED, "missing core"))
    more = max(0, view.num_tasks - _LEGEND_MAX_HOSTS) * view.cores_per_chip
    header = f"<div><b>{html.escape(_summary(view, topology))}</b><br>{html.escape(_hbm_text(view))}</div>"
    legend = slice_svg.legend(entries, more, "core label: host, TPU ordinal on that host; then its HBM")
    return (
        f'{slice_svg.STYLE}<div class="tps-pic tps-topology">{header}{legend}'
        f"{slice_svg.planes_html(view, core_style, hosts, max_planes)}</div>"
    )
