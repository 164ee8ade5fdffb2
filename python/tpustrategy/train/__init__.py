"""``tf.train`` (the parts the simulator needs): ClusterSpec, the Example protos, checkpoints in TF's format."""

from __future__ import annotations

from tpustrategy.train.checkpoint import (
    Checkpoint,
    CheckpointLoadStatus,
    CheckpointOptions,
    InitializationOnlyStatus,
)
from tpustrategy.train.checkpoint_management import CheckpointManager
from tpustrategy.train.checkpoint_reader import CheckpointReader, list_variables, load_checkpoint, load_variable
from tpustrategy.train.checkpoint_state import CheckpointState, get_checkpoint_state, latest_checkpoint
from tpustrategy.train.cluster_spec import ClusterSpec
from tpustrategy.train.example import (
    BytesList,
    DecodeError,
    Example,
    Feature,
    FeatureList,
    FeatureLists,
    Features,
    FloatList,
    Int64List,
    SequenceExample,
)

__all__ = [
    "BytesList",
    "Checkpoint",
    "CheckpointLoadStatus",
    "CheckpointManager",
    "CheckpointOptions",
    "CheckpointReader",
    "CheckpointState",
    "InitializationOnlyStatus",
    "get_checkpoint_state",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
    "ClusterSpec",
    "DecodeError",
    "Example",
    "Feature",
    "FeatureList",
    "FeatureLists",
    "Features",
    "FloatList",
    "Int64List",
    "SequenceExample",
]
