"""Terminal pictures of a slice: one grid per z-plane, chips as ``[...]`` cells joined by ICI links.

``──`` / ``│`` are ICI links between chips of one host, ``══`` / ``║`` links that cross a host border,
``~`` a wraparound link (the ring closes to the other end of the row or column).
"""

from __future__ import annotations

from collections.abc import Callable

from tpustrategy._pictures.slice_view import SliceView


def host_label(task: int) -> str:
    """``h0``, ``h1``, ... (``--`` for a chip without a device)."""
    return f"h{task}" if task >= 0 else "--"


def render_planes(
    view: SliceView,
    chip_text: Callable[[int, int, int], str],
    max_planes: int | None = None,
) -> list[str]:
    """The grid lines of every z-plane (at most ``max_planes``), cells padded to one width."""
    size_x, size_y, size_z = view.chip_mesh
    wrap_x, wrap_y, wrap_z = view.wraparound
    cells = {(x, y, z): f"[{chip_text(x, y, z)}]" for x in range(size_x) for y in range(size_y) for z in range(size_z)}
    width = max(len(c) for c in cells.values())
    gap = 4
    lines: list[str] = []
    shown = size_z if max_planes is None else min(size_z, max_planes)
    for z in range(shown):
        z_note = ""
        if size_z > 1:
            neighbours = sorted({(z - 1) % size_z if (z > 0 or wrap_z) else z, (z + 1) % size_z
                                 if (z + 1 < size_z or wrap_z) else z} - {z})
            z_note = f"  (z links join each chip to the same (x,y) on z={' and z='.join(map(str, neighbours))})"
        lines.append(f"z = {z}{z_note}")
        header = "      " + " " * (1 if wrap_x else 0)
        header += "".join(f"x={x}".center(width) + " " * gap for x in range(size_x))
        lines.append(header.rstrip())
        wrap_row = "      " + " " * (1 if wrap_x else 0) + "".join("~".center(width) + " " * gap for _ in range(size_x))
        if wrap_y:
            lines.append(wrap_row.rstrip())
        for y in range(size_y):
            row = f"y={y:<3}" + " " + ("~" if wrap_x else "")
            for x in range(size_x):
                row += cells[(x, y, z)].ljust(width)
                if x + 1 < size_x:
                    same = view.chip_task(x, y, z) == view.chip_task(x + 1, y, z)
                    row += (" ── " if same else " ══ ").ljust(gap)
            row += "~" if wrap_x else ""
            lines.append(row)
            if y + 1 < size_y:
                below = "      " + " " * (1 if wrap_x else 0)
                for x in range(size_x):
                    same = view.chip_task(x, y, z) == view.chip_task(x, y + 1, z)
                    below += ("│" if same else "║").center(width) + " " * gap
                lines.append(below.rstrip())
        if wrap_y:
            lines.append(wrap_row.rstrip())
    if shown < size_z:
        lines.append(f"... {size_z - shown} more z-planes (pass --planes {size_z} to see all)")
    return lines


LINK_LEGEND = (
    "links: ── │ ICI within a host, ══ ║ ICI across a host border, ~ wraparound (ring closes to the far end)"
)
