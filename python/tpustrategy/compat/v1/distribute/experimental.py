"""``tf.compat.v1.distribute.experimental``: the v1 TPUStrategy."""

from __future__ import annotations

from tpustrategy.distribute.tpu_strategy import TPUStrategyV1 as TPUStrategy

__all__ = ["TPUStrategy"]
