"""The DeviceAssignment picture: every core coloured by the replica it runs (a distinct colour per replica for any
replica count), labelled ``r<replica>/c<logical core>``; unused cores grey; host borders and ICI links as in the
topology picture. A replica whose cores lie on several z-planes is one legend entry (one colour) that names
every plane it spans, and its cores carry a ``↕`` mark."""

from __future__ import annotations

import html
from collections import defaultdict
from typing import Any

from tpustrategy._pictures import palette, slice_svg, slice_text
from tpustrategy._pictures.slice_view import slice_view

_LEGEND_MAX_REPLICAS = 64


def _placement(assignment: Any) -> tuple[dict[tuple[int, ...], list[tuple[int, int]]], dict[int, set[int]]]:
    """(replica, logical core) per physical position, and the z-planes of each replica."""
    users: dict[tuple[int, ...], list[tuple[int, int]]] = defaultdict(list)
    planes: dict[int, set[int]] = defaultdict(set)
    cores = assignment.core_assignment
    for replica in range(cores.shape[0]):
        for logical in range(cores.shape[1]):
            position = tuple(int(v) for v in cores[replica, logical])
            users[position].append((replica, logical))
            planes[replica].add(position[2])
    return users, planes


def _header(assignment: Any) -> str:
    mesh = [int(v) for v in assignment.topology.mesh_shape]
    return (
        f"DeviceAssignment: {assignment.num_replicas} replica(s) x {assignment.num_cores_per_replica} logical "
        f"core(s) on mesh [x,y,z,core]={mesh}"
    )


def _replica_text(assignment: Any, replica: int, planes: set[int]) -> str:
    chips = []
    for logical in range(assignment.num_cores_per_replica):
        x, y, z, core = (int(v) for v in assignment.core_assignment[replica, logical])
        chips.append(f"({x},{y},{z})c{core}")
    span = f"; spans z={min(planes)}..{max(planes)}" if len(planes) > 1 else ""
    return f"replica {replica}: {' '.join(chips)}{span}"


def assignment_text(assignment: Any, max_planes: int | None = 4) -> str:
    view = slice_view(assignment.topology)
    users, planes = _placement(assignment)

    def chip_text(x: int, y: int, z: int) -> str:
        labels = []
        for core in range(view.cores_per_chip):
            here = users.get((x, y, z, core), [])
            labels.append("+".join(f"r{r}/c{c}" for r, c in here) or ".")
        return f"{slice_text.host_label(view.chip_task(x, y, z))} " + " ".join(labels)

    lines = [_header(assignment), view.wraparound_text()]
    lines += slice_text.render_planes(view, chip_text, max_planes)
    shown = min(assignment.num_replicas, _LEGEND_MAX_REPLICAS)
    lines += [_replica_text(assignment, r, planes[r]) for r in range(shown)]
    if shown < assignment.num_replicas:
        lines.append(f"... {assignment.num_replicas - shown} more replicas")
    lines.append("legend: [hH rR/cC ...] = a chip on host H; per core the replica R and logical core C it runs, "
                 ". = unused")
    lines.append(slice_text.LINK_LEGEND)
    return "\n".join(lines)


def assignment_html(assignment: Any, max_planes: int = 8) -> str:
    topology = assignment.topology
    view = slice_view(topology)
    users, planes = _placement(assignment)
    colours = palette.distinct_colours(assignment.num_replicas)
    hosts = palette.distinct_colours(max(view.num_tasks, 1))

    def core_style(position: tuple[int, int, int, int]) -> tuple[str, str, str, str]:
        info = view.cores[position]
        device = f"h{info.task} TPU:{info.ordinal}" if info.task >= 0 else "missing"
        here = users.get(position, [])
        if not here:
            return palette.UNUSED, "unused", device, f"{device}: no replica"
        replica, logical = here[0]
        mark = " ↕" if len(planes[replica]) > 1 else ""
        label = "+".join(f"r{r}/c{c}" for r, c in here)
        tooltip = f"replica {replica}, logical core {logical} on {device} at [x,y,z,core]={list(position)}"
        if len(planes[replica]) > 1:
            tooltip += f"; replica {replica} spans z={min(planes[replica])}..{max(planes[replica])}"
        return colours[replica], label + mark, device, tooltip

    shown = min(assignment.num_replicas, _LEGEND_MAX_REPLICAS)
    entries = [(colours[r], _replica_text(assignment, r, planes[r])) for r in range(shown)]
    entries += [(palette.UNUSED, "unused core"), ("host:#333", "host border"), ("link", "ICI link")]
    if any(view.wraparound):
        entries.append(("wrap", "wraparound link"))
    extra = "core label: rR/cC = replica R, logical core C; ↕ = the replica continues on another z-plane"
    legend = slice_svg.legend(entries, assignment.num_replicas - shown, extra)
    header = f"<div><b>{html.escape(_header(assignment))}</b><br>{html.escape(view.wraparound_text())}</div>"
    return (
        f'{slice_svg.STYLE}<div class="tps-pic tps-assignment">{header}{legend}'
        f"{slice_svg.planes_html(view, core_style, hosts, max_planes)}</div>"
    )
