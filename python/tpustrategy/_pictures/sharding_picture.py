"""The geometric view of a ShardedTensor, in the manner of JAX's ``visualize_array_sharding``: the tensor as a
rectangle over two of its dimensions, cut into its tiles with areas proportional to their extents, each tile
labelled with the logical cores that hold it (a tile held by several cores is replicated there).

Which two dimensions: the split ones (the last two if more are split), else the last two; a rank-1 tensor is one
row. Tiles along further split dimensions are drawn as separate panels (one per tile index there).
"""

from __future__ import annotations

import html
from collections import defaultdict
from typing import Any

from tpustrategy._pictures import palette, slice_svg

_WIDTH = 360
_LEGEND_MAX = 32


def _shown_dims(shape: tuple[int, ...], split: list[int]) -> tuple[int | None, int | None]:
    """(row dim, column dim) drawn; None for a dimension the picture does not have."""
    rank = len(shape)
    if rank == 0:
        return None, None
    if rank == 1:
        return None, 0
    chosen = split[-2:] if len(split) >= 2 else sorted(set(split) | {rank - 1} if split else {rank - 2, rank - 1})
    if len(chosen) == 1:
        other = rank - 1 if chosen[0] != rank - 1 else rank - 2
        chosen = sorted([chosen[0], other])
    return chosen[0], chosen[1]


TileKey = tuple[tuple[tuple[int, int, int], ...], tuple[int, int], tuple[int, int]]


def _tiles(tensor: Any) -> tuple[tuple[int, ...], int | None, int | None, dict[TileKey, list[int]]]:
    """Rectangles: (panel key, row range, column range) -> logical cores, from the layout's offsets and limits."""
    shape = tensor._shape_tuple
    rows = tensor.layout()
    split = [d for d in range(len(shape)) if _split_count(rows, d) > 1]
    row_dim, col_dim = _shown_dims(shape, split)
    panel_dims = [d for d in split if d not in (row_dim, col_dim)]
    tiles: dict[TileKey, list[int]] = defaultdict(list)
    for r in rows:
        if r["offset"] is None:
            continue
        lo, hi = r["offset"], r["limit"]
        panel = tuple((d, lo[d], hi[d]) for d in panel_dims)
        row_range = (lo[row_dim], hi[row_dim]) if row_dim is not None else (0, 1)
        col_range = (lo[col_dim], hi[col_dim]) if col_dim is not None else (0, 1)
        tiles[(panel, row_range, col_range)].append(r["logical_device"])
    return shape, row_dim, col_dim, tiles


def _split_count(rows: list[dict[str, Any]], dim: int) -> int:
    return len({(r["offset"][dim], r["limit"][dim]) for r in rows if r["offset"] is not None})


def geometric_html(tensor: Any) -> str:
    """The tiles as proportional rectangles (one SVG per panel), coloured per tile, and a legend."""
    shape, row_dim, col_dim, tiles = _tiles(tensor)
    sharding = tensor.sharding
    devices = tensor.logical_devices
    keys = sorted(tiles)
    colours = palette.distinct_colours(len(keys))
    colour_of = dict(zip(keys, colours, strict=True))
    n_rows = shape[row_dim] if row_dim is not None else 1
    n_cols = shape[col_dim] if col_dim is not None else 1
    height = max(40, min(_WIDTH, round(_WIDTH * n_rows / max(n_cols, 1)))) if row_dim is not None else 48
    panels: dict[tuple[tuple[int, int, int], ...], list[TileKey]] = defaultdict(list)
    for key in keys:
        panels[key[0]].append(key)
    parts = []
    for panel, panel_keys in sorted(panels.items()):
        svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH + 2}" height="{height + 2}">']
        for key in panel_keys:
            _, (r0, r1), (c0, c1) = key
            x, w = 1 + _WIDTH * c0 / max(n_cols, 1), _WIDTH * (c1 - c0) / max(n_cols, 1)
            y, h = 1 + height * r0 / max(n_rows, 1), height * (r1 - r0) / max(n_rows, 1)
            cores = tiles[key]
            where = ", ".join(devices[k].name.rsplit("/", 1)[-1] for k in cores)
            title = f"logical core(s) {cores} on {where}"
            if row_dim is not None:
                title += f"; dim {row_dim} [{r0}:{r1}]"
            if col_dim is not None:
                title += f"; dim {col_dim} [{c0}:{c1}]"
            svg.append(
                f'<rect class="tps-tile" x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" '
                f'fill="{colour_of[key]}" stroke="#333"><title>{html.escape(title)}</title></rect>'
            )
            label = "core " if len(cores) == 1 else "cores "
            svg.append(
                f'<text x="{x + w / 2:.1f}" y="{y + h / 2 + 4:.1f}" text-anchor="middle" '
                f'font-size="{11 if w > 50 else 9}">{label}{",".join(str(k) for k in cores)}</text>'
            )
        svg.append("</svg>")
        caption = ", ".join(f"dim {d} [{lo}:{hi}]" for d, lo, hi in panel)
        parts.append(f"<div>{f'<i>{html.escape(caption)}</i><br>' if caption else ''}{''.join(svg)}</div>")
    axes = []
    if row_dim is not None:
        axes.append(f"rows: dim {row_dim} ({n_rows})")
    if col_dim is not None:
        axes.append(f"columns: dim {col_dim} ({n_cols})")
    replication = sharding.replication_factor if sharding.is_tiled else (len(devices) if sharding.is_replicated else 1)
    summary = f"{len(keys)} tile(s)"
    if replication > 1:
        summary += f", each on {replication} logical cores (replicated)"
    entries = [
        (colour_of[k], f"cores {','.join(str(c) for c in tiles[k])}: "
         + " ".join(f"[{lo}:{hi}]" for lo, hi in (k[1], k[2]) if (lo, hi) != (0, 1) or len(shape) > 1))
        for k in keys[:_LEGEND_MAX]
    ]
    legend = slice_svg.legend(entries, max(0, len(keys) - _LEGEND_MAX),
                              f"{summary}; {'; '.join(axes) or 'a scalar'}; areas proportional to the tile extents")
    return f'{slice_svg.STYLE}<div class="tps-pic tps-sharding">{legend}{"".join(parts)}</div>'


def geometric_text(tensor: Any) -> str:
    """Terminal version: one line per tile row, tiles as ``|cores a,b  [r0:r1, c0:c1]|``."""
    shape, row_dim, col_dim, tiles = _tiles(tensor)
    lines = []
    by_row: dict[tuple[Any, tuple[int, int]], list[tuple[tuple[int, int], list[int]]]] = defaultdict(list)
    for (panel, row_range, col_range), cores in sorted(tiles.items()):
        by_row[(panel, row_range)].append((col_range, cores))
    for (panel, row_range), cells in sorted(by_row.items()):
        prefix = "".join(f"dim {d}[{lo}:{hi}] " for d, lo, hi in panel)
        prefix += f"dim {row_dim}[{row_range[0]}:{row_range[1]}] " if row_dim is not None else ""
        body = " | ".join(
            f"cores {','.join(str(k) for k in cores)}"
            + (f" dim {col_dim}[{lo}:{hi}]" if col_dim is not None else "")
            for (lo, hi), cores in cells
        )
        lines.append(f"  {prefix}| {body} |")
    return "\n".join(lines)
