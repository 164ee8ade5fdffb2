"""Small option and context types of ``tf.distribute``: InputReplicationMode, InputContext, ValueContext,
RunOptions and InputOptions."""

from __future__ import annotations

import collections
import enum


class InputReplicationMode(enum.Enum):
    """How input pipelines map to replicas: one per worker (host), or one per replica."""

    PER_WORKER = "PER_WORKER"
    PER_REPLICA = "PER_REPLICA"


class InputContext:
    """What an input function needs to know to shard and batch its pipeline (``tf.distribute.InputContext``)."""

    def __init__(self, num_input_pipelines: int = 1, input_pipeline_id: int = 0, num_replicas_in_sync: int = 1):
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_replicas_in_sync(self) -> int:
        """How many replicas the strategy runs in sync (the global batch is split over them)."""
        return self._num_replicas_in_sync

    @property
    def input_pipeline_id(self) -> int:
        """This pipeline's index in [0, num_input_pipelines): the shard an input function should read."""
        return self._input_pipeline_id

    @property
    def num_input_pipelines(self) -> int:
        """How many input pipelines feed the replicas, i.e. how many shards the input is split into."""
        return self._num_input_pipelines

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        """global_batch_size // num_replicas_in_sync; ValueError unless it divides evenly."""
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError(f"The `global_batch_size` {global_batch_size!r} is not divisible by "
                             f"`num_replicas_in_sync` {self._num_replicas_in_sync!r}")
        return global_batch_size // self._num_replicas_in_sync

    def __str__(self) -> str:
        return f"tf.distribute.InputContext(input pipeline id {self._input_pipeline_id}, " \
               f"total: {self._num_input_pipelines})"


class ValueContext:
    """Passed to the function of ``experimental_distribute_values_from_function``."""

    def __init__(self, replica_id_in_sync_group: int = 0, num_replicas_in_sync: int = 1):
        self._replica_id_in_sync_group = replica_id_in_sync_group
        self._num_replicas_in_sync = num_replicas_in_sync

    @property
    def num_replicas_in_sync(self) -> int:
        """How many replicas the strategy runs in sync (the global batch is split over them)."""
        return self._num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self) -> int:
        """The replica whose value the function is asked for, in [0, num_replicas_in_sync)."""
        return self._replica_id_in_sync_group

    def __str__(self) -> str:
        return f"tf.distribute.ValueContext(replica id {self._replica_id_in_sync_group}, " \
               f"total replicas in sync: {self._num_replicas_in_sync})"


class RunOptions(collections.namedtuple("RunOptions", [
    "experimental_enable_dynamic_batch_size", "experimental_bucketizing_dynamic_shape",
    "experimental_xla_options"])):
    """Options for ``Strategy.run``; accepted for compatibility (the simulator executes eagerly)."""

    def __new__(cls, experimental_enable_dynamic_batch_size: bool = True,
                experimental_bucketizing_dynamic_shape: bool = False,
                experimental_xla_options: object = None) -> RunOptions:
        return super().__new__(cls, experimental_enable_dynamic_batch_size, experimental_bucketizing_dynamic_shape,
                               experimental_xla_options)


class InputOptions(collections.namedtuple("InputOptions", [
    "experimental_fetch_to_device", "experimental_replication_mode", "experimental_place_dataset_on_device",
    "experimental_per_replica_buffer_size"])):
    """Options for distributing datasets."""

    def __new__(cls, experimental_fetch_to_device: bool | None = None,
                experimental_replication_mode: InputReplicationMode = InputReplicationMode.PER_WORKER,
                experimental_place_dataset_on_device: bool = False,
                experimental_per_replica_buffer_size: int = 1) -> InputOptions:
        if experimental_fetch_to_device is None:  # TF's default, resolved here as TF resolves it
            experimental_fetch_to_device = True
        return super().__new__(cls, experimental_fetch_to_device, experimental_replication_mode,
                               experimental_place_dataset_on_device, experimental_per_replica_buffer_size)
