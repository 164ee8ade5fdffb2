"""Distinct colours for any number of items (replicas, hosts, tiles).

Hues are spread evenly over the circle for up to ``_HUES`` items; beyond that the same hues come back in a
different lightness band, so no two items of one picture share a colour (the strings differ and so do the
colours: a band changes lightness by 14 points at least). Light colours keep black text readable.
"""

from __future__ import annotations

_HUES = 12
_BANDS = ((70, 80), (55, 66), (85, 90), (40, 72), (65, 58))  # (saturation %, lightness %) per band

UNUSED = "#e0e0e0"


def distinct_colours(count: int) -> list[str]:
    """``count`` pairwise-distinct CSS colours, stable for a given count.

    Args:
      count: how many colours (>= 0).

    Returns:
      A list of ``hsl(...)`` strings; item i keeps its colour as long as ``count`` is unchanged.
    """
    if count < 0:
        raise ValueError(f"count must be >= 0; got {count}")
    hues = max(1, min(count, _HUES))
    colours = []
    for i in range(count):
        band, step = divmod(i, hues)
        # Within a band, hues are evenly spaced; each further band also shifts the hue by half a step, and
        # beyond the listed bands the hue shifts by a fraction, so colours stay distinct for any count.
        rounds, band_index = divmod(band, len(_BANDS))
        saturation, lightness = _BANDS[band_index]
        hue = (step + 0.5 * (band_index % 2) + rounds / (rounds + 1)) * 360.0 / hues
        colours.append(f"hsl({hue:.2f}, {saturation}%, {lightness}%)")
    return colours


def shade(colour: str, lightness_delta: int) -> str:
    """The same ``hsl(...)`` colour, lighter (positive delta) or darker, clamped to 15..95 %."""
    inner = colour[colour.index("(") + 1 : colour.rindex(")")]
    hue, saturation, lightness = (part.strip() for part in inner.split(","))
    value = max(15, min(95, int(float(lightness.rstrip("%"))) + lightness_delta))
    return f"hsl({hue}, {saturation}, {value}%)"


def text_colour(colour: str) -> str:
    """Black on light backgrounds, white on dark ones."""
    if not colour.startswith("hsl"):
        return "#000"
    lightness = float(colour[colour.rindex(",") + 1 : colour.rindex(")")].strip().rstrip("%"))
    return "#000" if lightness >= 50 else "#fff"
