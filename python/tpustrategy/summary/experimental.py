"""``tf.summary.experimental``: the default step."""

from __future__ import annotations

from tpustrategy.summary.writer import get_step, set_step

__all__ = ["get_step", "set_step"]
