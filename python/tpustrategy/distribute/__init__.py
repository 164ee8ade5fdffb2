"""``tpustrategy.distribute``: mirrors ``tf.distribute`` (strategies, contexts, distributed values)."""

from __future__ import annotations

from tpustrategy.distribute import cluster_resolver, experimental
from tpustrategy.distribute.collective_all_reduce_strategy import MultiWorkerMirroredStrategy
from tpustrategy.distribute.cross_device_ops import (
    CrossDeviceOps,
    HierarchicalCopyAllReduce,
    NcclAllReduce,
    ReductionToOneDevice,
)
from tpustrategy.distribute.distribute_lib import ReplicaContext, Strategy, StrategyExtended, StrategyV1
from tpustrategy.distribute.distribute_options import (
    InputContext,
    InputOptions,
    InputReplicationMode,
    RunOptions,
    ValueContext,
)
from tpustrategy.distribute.distributed_interfaces import DistributedDatasetInterface as DistributedDataset
from tpustrategy.distribute.distributed_interfaces import DistributedIteratorInterface as DistributedIterator
from tpustrategy.distribute.distributed_variables import DistributedVariable, MirroredVariable, SyncOnReadVariable
from tpustrategy.distribute.distribution_strategy_context import (
    experimental_set_strategy,
    get_cross_replica_context,
    get_replica_context,
    get_strategy,
    has_strategy,
    in_cross_replica_context,
)
from tpustrategy.distribute.mirrored_strategy import MirroredStrategy
from tpustrategy.distribute.one_device_strategy import OneDeviceStrategy
from tpustrategy.distribute.reduce_util import ReduceOp
from tpustrategy.distribute.tpu_strategy import TPUStrategyV2 as TPUStrategy
from tpustrategy.distribute.values import DistributedValues, Mirrored, PerReplica

__all__ = [
    "CrossDeviceOps",
    "HierarchicalCopyAllReduce",
    "NcclAllReduce",
    "ReductionToOneDevice",
    "DistributedDataset",
    "DistributedIterator",
    "DistributedValues",
    "DistributedVariable",
    "InputContext",
    "InputOptions",
    "InputReplicationMode",
    "Mirrored",
    "MirroredStrategy",
    "MirroredVariable",
    "MultiWorkerMirroredStrategy",
    "OneDeviceStrategy",
    "PerReplica",
    "ReduceOp",
    "ReplicaContext",
    "RunOptions",
    "Strategy",
    "StrategyExtended",
    "StrategyV1",
    "SyncOnReadVariable",
    "TPUStrategy",
    "ValueContext",
    "cluster_resolver",
    "experimental",
    "experimental_set_strategy",
    "get_cross_replica_context",
    "get_replica_context",
    "get_strategy",
    "has_strategy",
    "in_cross_replica_context",
]
