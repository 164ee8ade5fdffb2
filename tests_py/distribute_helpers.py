"""Helpers for the distribute tests: strategies the tests share, and host-side arithmetic."""

from __future__ import annotations

import numpy as np

import tpustrategy as tf


def times(x, factor):
    """x * factor as a new tensor on the current device."""
    return tf.constant(np.asarray(x) * factor)


def values_of(distributed):
    """The components of a distributed value as numpy values (Python scalars for rank 0)."""
    return [np.asarray(v).tolist() for v in distributed.values]


def ms2():
    return tf.distribute.MirroredStrategy(["GPU:0", "GPU:1"])


def tpu_v3_8():
    """A TPUStrategy over the default simulated slice (v3-8), its TPU system initialized."""
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="")
    tf.config.experimental_connect_to_cluster(resolver)
    tf.tpu.experimental.initialize_tpu_system(resolver)
    return tf.distribute.TPUStrategy(resolver)


# Eight replicas on each engine path: MirroredStrategy over eight cores, and TPUStrategy on v3-8.
EIGHT_REPLICA_STRATEGIES = {
    "mirrored8": lambda: tf.distribute.MirroredStrategy([f"TPU:{i}" for i in range(8)]),
    "tpu_v3_8": tpu_v3_8,
}
