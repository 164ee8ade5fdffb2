"""Helpers for the input-distribution tests: strategies of a given size and per-replica element lists."""

from __future__ import annotations

import numpy as np

import tpustrategy as tf
from tpustrategy.data.experimental import AutoShardPolicy


def mirrored(n: int):
    return tf.distribute.MirroredStrategy([f"GPU:{i}" for i in range(n)])


def per_replica_lists(value) -> list:
    """One step's value as a list of per-replica Python lists (a single replica gives a one-item list)."""
    components = value.values if isinstance(value, tf.distribute.DistributedValues) else (value,)
    return [np.asarray(c).tolist() for c in components]


def steps(distributed) -> list:
    """Every step of a distributed dataset as per-replica lists."""
    return [per_replica_lists(x) for x in distributed]


def with_policy(dataset, policy: AutoShardPolicy):
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = policy
    return dataset.with_options(options)


def tpu_slice_strategy(slice_name: str):
    """A TPUStrategy over every core of the named slice preset (e.g. "v4-32": 4 hosts)."""
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(slice_name)
    tf.config.experimental_connect_to_cluster(resolver)
    tf.tpu.experimental.initialize_tpu_system(resolver)
    return tf.distribute.TPUStrategy(resolver)
