"""HTML pictures of a slice for Jupyter: one table per z-plane, a cell per chip listing its cores.

Topology: every core shows its TPU ordinal, coloured by host (task). DeviceAssignment: every core shows which
replica and logical core it runs, coloured by replica; cores the assignment does not use are grey.
"""

from __future__ import annotations

import html
from collections import defaultdict

_UNUSED = "#e0e0e0"
_STYLE = (
    "<style>.tps-mesh td{border:1px solid #999;padding:2px 4px;vertical-align:top;font:11px monospace}"
    ".tps-mesh .tps-core{margin:1px 0;padding:0 3px;border-radius:3px}"
    ".tps-mesh caption{font-weight:bold;text-align:left}</style>"
)


def colour(index: int) -> str:
    """A distinct light colour per index (golden-angle hue steps keep neighbours apart)."""
    return f"hsl({(index * 137.508) % 360:.0f}, 70%, 82%)"


def _core_div(text: str, background: str, title: str) -> str:
    return (
        f'<div class="tps-core" style="background:{background}" title="{html.escape(title)}">{html.escape(text)}</div>'
    )


def _mesh_tables(mesh_shape, header: str, chip_cell) -> str:
    """One table per z-plane (rows y, columns x); ``chip_cell(x, y, z)`` returns a cell's inner HTML."""
    size_x, size_y, size_z = (int(v) for v in mesh_shape[:3])
    parts = [_STYLE, f"<div><b>{html.escape(header)}</b></div>"]
    for z in range(size_z):
        rows = []
        for y in range(size_y):
            cells = "".join(f"<td>{chip_cell(x, y, z)}</td>" for x in range(size_x))
            rows.append(f"<tr><th>y={y}</th>{cells}</tr>")
        columns = "".join(f"<th>x={x}</th>" for x in range(size_x))
        parts.append(
            f'<table class="tps-mesh"><caption>z = {z}</caption><tr><th></th>{columns}</tr>{"".join(rows)}</table>'
        )
    return "".join(parts)


def topology_html(topology) -> str:
    """Chips as cells; each core shows ``task:T TPU:d`` on its host's colour, missing cores grey."""
    mesh = topology.mesh_shape
    cores_per_chip = int(mesh[3])
    where = {}
    coordinates = topology.device_coordinates
    for task in range(coordinates.shape[0]):
        for device in range(coordinates.shape[1]):
            where[tuple(int(v) for v in coordinates[task, device])] = (task, device)

    def chip_cell(x, y, z):
        cores = []
        for core in range(cores_per_chip):
            found = where.get((x, y, z, core))
            if found is None:
                cores.append(_core_div(f"core {core}: missing", _UNUSED, "no device"))
            else:
                task, device = found
                name = topology.tpu_device_name_at_coordinates((x, y, z, core))
                cores.append(_core_div(f"task:{task} TPU:{device}", colour(task), name))
        return f"chip ({x},{y},{z})" + "".join(cores)

    return _mesh_tables(mesh, repr(topology), chip_cell)


def device_assignment_html(assignment) -> str:
    """Chips as cells; each core shows ``replica r / core c`` on the replica's colour and its host and ordinal."""
    topology = assignment.topology
    mesh = topology.mesh_shape
    cores_per_chip = int(mesh[3])
    users = defaultdict(list)
    core_assignment = assignment.core_assignment
    for replica in range(core_assignment.shape[0]):
        for logical_core in range(core_assignment.shape[1]):
            users[tuple(int(v) for v in core_assignment[replica, logical_core])].append((replica, logical_core))
    header = (
        f"DeviceAssignment: {assignment.num_replicas} replicas x {assignment.num_cores_per_replica} logical cores "
        f"on mesh {[int(v) for v in mesh]}"
    )

    def chip_cell(x, y, z):
        cores = []
        for core in range(cores_per_chip):
            position = (x, y, z, core)
            task = topology.task_ordinal_at_coordinates(position)
            ordinal = topology.tpu_device_ordinal_at_coordinates(position)
            device = f"task:{task} TPU:{ordinal}" if task >= 0 else "missing"
            if not users.get(position):
                cores.append(_core_div(f"{device}: unused", _UNUSED, device))
            for replica, logical_core in users.get(position, []):
                label = f"replica {replica} / core {logical_core}"
                cores.append(_core_div(f"{label} ({device})", colour(replica), f"{label} on {device}"))
        return f"chip ({x},{y},{z})" + "".join(cores)

    return _mesh_tables(mesh, header, chip_cell)
