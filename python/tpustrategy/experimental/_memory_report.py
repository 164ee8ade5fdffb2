"""``memory_report()``: ``tf.config.experimental.get_memory_info`` over every core of the slice at once, with a
per-core HBM bar chart for Jupyter and a text table for terminals."""

from __future__ import annotations

import dataclasses
import html

from tpustrategy import _core
from tpustrategy._pictures import palette, slice_svg
from tpustrategy._pictures.slice_view import format_bytes

_MAX_BARS = 256


@dataclasses.dataclass(frozen=True)
class CoreMemory:
    """One core's HBM: bytes in use now, the peak since the last reset, and the capacity."""

    device: str
    host: int
    current: int
    peak: int
    limit: int


class MemoryReport:
    """HBM of every simulated core of one device type (a snapshot taken when the report is made).

    Attributes:
      cores: one ``CoreMemory`` per device, in device order.
    """

    def __init__(self, cores: list[CoreMemory], device_type: str):
        self.cores = cores
        self.device_type = device_type

    @property
    def total_current(self) -> int:
        """Bytes in use now, summed over the cores."""
        return sum(c.current for c in self.cores)

    @property
    def max_peak(self) -> int:
        """The highest peak (bytes) of any one core; 0 for a report without cores."""
        return max((c.peak for c in self.cores), default=0)

    def __len__(self) -> int:
        return len(self.cores)

    def __repr__(self) -> str:
        lines = [f"MemoryReport({self.device_type}: {len(self.cores)} cores, in use {format_bytes(self.total_current)}"
                 f", highest peak {format_bytes(self.max_peak)})"]
        for c in self.cores[:_MAX_BARS]:
            share = c.peak / c.limit if c.limit else 0.0
            bar = "#" * round(20 * share)
            lines.append(f"  {c.device:<44} current {format_bytes(c.current):>10}  peak {format_bytes(c.peak):>10}"
                         f"  limit {format_bytes(c.limit):>8}  |{bar:<20}| {100 * share:.1f}%")
        if len(self.cores) > _MAX_BARS:
            lines.append(f"  ... {len(self.cores) - _MAX_BARS} more cores")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """Jupyter: a bar per core (peak and current as shares of the capacity), coloured by host."""
        hosts = sorted({c.host for c in self.cores})
        colours = dict(zip(hosts, palette.distinct_colours(len(hosts)), strict=True))
        bar_w, chart_h = 22, 120
        shown = self.cores[:_MAX_BARS]
        width = 40 + len(shown) * (bar_w + 4)
        svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{chart_h + 40}">',
               f'<line x1="36" y1="{chart_h + 4}" x2="{width}" y2="{chart_h + 4}" stroke="#333"/>',
               '<text x="0" y="12" font-size="10">100%</text>',
               f'<text x="0" y="{chart_h + 4}" font-size="10">0</text>']
        for i, c in enumerate(shown):
            x = 40 + i * (bar_w + 4)
            peak_h = chart_h * (c.peak / c.limit if c.limit else 0.0)
            current_h = chart_h * (c.current / c.limit if c.limit else 0.0)
            title = (f"{c.device}: current {format_bytes(c.current)}, peak {format_bytes(c.peak)}, "
                     f"limit {format_bytes(c.limit)}")
            svg.append(f'<rect class="tps-hbm-core" x="{x}" y="4" width="{bar_w}" height="{chart_h}" fill="#f4f4f4" '
                       f'stroke="#bbb"><title>{html.escape(title)}</title></rect>')
            svg.append(f'<rect class="tps-hbm-peak" x="{x}" y="{chart_h + 4 - peak_h:.1f}" width="{bar_w}" '
                       f'height="{peak_h:.1f}" fill="{palette.shade(colours[c.host], 12)}"/>')
            svg.append(f'<rect class="tps-hbm-current" x="{x + 4}" y="{chart_h + 4 - current_h:.1f}" '
                       f'width="{bar_w - 8}" height="{current_h:.1f}" fill="{palette.shade(colours[c.host], -25)}"/>')
            svg.append(f'<text x="{x + bar_w / 2}" y="{chart_h + 18}" font-size="9" text-anchor="middle">'
                       f'{c.device.rsplit(":", 1)[-1]}</text>')
        svg.append("</svg>")
        entries = [(palette.shade(colours[h], -25), f"host {h}: current") for h in hosts[:16]]
        entries += [(palette.shade(colours[h], 12), f"host {h}: peak") for h in hosts[:16]]
        legend = slice_svg.legend(entries, max(0, len(hosts) - 16) * 2,
                                  "bar height: share of the core's HBM capacity; label: device ordinal")
        title = html.escape(repr(self).splitlines()[0])
        more = f"<div>... {len(self.cores) - _MAX_BARS} more cores</div>" if len(self.cores) > _MAX_BARS else ""
        return (f'{slice_svg.STYLE}<div class="tps-pic tps-memory"><b>{title}</b>{legend}{"".join(svg)}{more}'
                "</div>")


def memory_report(device_type: str = "TPU") -> MemoryReport:
    """HBM in use, peak and capacity of every simulated core of ``device_type`` (``TPU``, ``GPU`` or ``CPU``).

    The per-core figures are those of ``tf.config.experimental.get_memory_info``; the report draws them as a
    bar chart in Jupyter.

    Args:
      device_type: the device type to report.

    Returns:
      A MemoryReport (a snapshot).

    Raises:
      ValueError: no device of that type exists.
    """
    devices = _core.devices.list_devices(device_type)
    if not devices:
        raise ValueError(f"memory_report: no {device_type!r} devices on the simulated slice "
                         f"{_core.slice.active_slice().name}")
    cores = []
    for device in devices:
        info = device.memory_info()
        cores.append(CoreMemory(device.name, device.task, int(info["current"]), int(info["peak"]),
                                int(info.get("limit", device.default_memory_limit))))
    return MemoryReport(cores, device_type)
