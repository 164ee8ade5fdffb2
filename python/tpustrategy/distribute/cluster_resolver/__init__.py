"""``tf.distribute.cluster_resolver``: where the tasks of a cluster are, and which simulated TPU slice to use."""

from __future__ import annotations

from tpustrategy.distribute.cluster_resolver.cluster_resolver import ClusterResolver, SimpleClusterResolver
from tpustrategy.distribute.cluster_resolver.tfconfig_cluster_resolver import TFConfigClusterResolver
from tpustrategy.distribute.cluster_resolver.tpu_cluster_resolver import TPUClusterResolver
from tpustrategy.distribute.cluster_resolver.union_resolver import UnionResolver

__all__ = [
    "ClusterResolver",
    "SimpleClusterResolver",
    "TFConfigClusterResolver",
    "TPUClusterResolver",
    "UnionResolver",
]
