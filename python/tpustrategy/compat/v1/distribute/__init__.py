"""``tf.compat.v1.distribute``: strategies with the v1 surface (``reduce`` axis optional, ``experimental_run``)."""

from __future__ import annotations

from tpustrategy.compat.v1.distribute import experimental
from tpustrategy.distribute import (
    InputContext,
    InputReplicationMode,
    ReduceOp,
    ReplicaContext,
    cluster_resolver,
    get_replica_context,
    get_strategy,
    has_strategy,
    in_cross_replica_context,
)
from tpustrategy.distribute.distribute_lib import StrategyV1 as Strategy
from tpustrategy.distribute.mirrored_strategy import MirroredStrategyV1 as MirroredStrategy
from tpustrategy.distribute.one_device_strategy import OneDeviceStrategyV1 as OneDeviceStrategy

__all__ = [
    "InputContext",
    "InputReplicationMode",
    "MirroredStrategy",
    "OneDeviceStrategy",
    "ReduceOp",
    "ReplicaContext",
    "Strategy",
    "cluster_resolver",
    "experimental",
    "get_replica_context",
    "get_strategy",
    "has_strategy",
    "in_cross_replica_context",
]
