"""``tf.distribute.experimental``: the r1.15 TPUStrategy (deprecated) and friends."""

from __future__ import annotations

from tpustrategy.distribute.tpu_strategy import TPUStrategy

__all__ = ["TPUStrategy"]
