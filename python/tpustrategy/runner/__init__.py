"""``tensorflow_gnn.runner`` strategy helpers: ``runner.TPUStrategy(tpu="")``."""

from __future__ import annotations

from tpustrategy.distribute.cluster_resolver import TPUClusterResolver
from tpustrategy.distribute.tpu_strategy import TPUStrategyV2
from tpustrategy.tpu import tpu_system


class TPUStrategy(TPUStrategyV2):
    """A TPUStrategy that resolves, connects to and initializes the slice `tpu` itself (TF-GNN's runner).

    Args:
      tpu: the slice name ("" = the local default slice), as for TPUClusterResolver.
    """

    def __init__(self, tpu: str = ""):
        cluster_resolver = TPUClusterResolver(tpu=tpu)
        tpu_system.connect_to_cluster(cluster_resolver)
        tpu_system.initialize_tpu_system(cluster_resolver)
        super().__init__(cluster_resolver)


__all__ = ["TPUStrategy"]
