"""``tf.distribute`` (this branch only carries cluster_resolver; the strategies come from the distribute branch)."""

from __future__ import annotations

from tpustrategy.distribute import cluster_resolver

__all__ = ["cluster_resolver"]
