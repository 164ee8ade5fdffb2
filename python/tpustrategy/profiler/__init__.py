"""tpustrategy.profiler: tf.profiler's surface over the simulated slice (see profiler.experimental)."""

from __future__ import annotations

from tpustrategy.profiler import experimental

__all__ = ["experimental"]
