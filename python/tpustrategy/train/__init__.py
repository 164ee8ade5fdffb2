"""``tf.train`` (the parts the simulator needs): ClusterSpec."""

from __future__ import annotations

from tpustrategy.train.cluster_spec import ClusterSpec

__all__ = ["ClusterSpec"]
