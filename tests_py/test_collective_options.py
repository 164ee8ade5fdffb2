"""Per-call ``CommunicationOptions`` on the collectives of the strategy path (ReplicaContext.all_reduce /
all_gather, extended.reduce_to / batch_reduce_to): accepted (TF's deprecated CollectiveHints too), results
unchanged, anything else a ValueError naming it."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy.distribute.experimental import CollectiveHints, CommunicationImplementation, CommunicationOptions

ds = tf.distribute


def two():
    return ds.MirroredStrategy(["GPU:0", "GPU:1"])


OPTIONS = [CommunicationOptions(bytes_per_pack=1024, timeout_seconds=5.0,
                                implementation=CommunicationImplementation.RING),
           CollectiveHints(bytes_per_pack=8, timeout_seconds=2.0), None]


@pytest.mark.parametrize("options", OPTIONS, ids=["communication_options", "collective_hints", "none"])
def test_replica_collectives_accept_options(options):
    strategy = two()

    def fn():
        context = ds.get_replica_context()
        x = tf.constant([float(int(context.replica_id_in_sync_group) + 1)])
        return context.all_reduce("SUM", x, options=options), context.all_gather(x, 0, options=options)

    total, gathered = strategy.run(fn)
    assert [np.asarray(v).tolist() for v in total.values] == [[3.0], [3.0]]
    assert [np.asarray(v).tolist() for v in gathered.values] == [[1.0, 2.0], [1.0, 2.0]]


@pytest.mark.parametrize("options", OPTIONS, ids=["communication_options", "collective_hints", "none"])
def test_reduce_to_and_batch_reduce_to_accept_options(options):
    strategy = two()
    per_replica = strategy.run(lambda: tf.constant(float(int(ds.get_replica_context().replica_id_in_sync_group) + 1)))
    assert float(strategy.extended.reduce_to("SUM", per_replica, "CPU:0", options=options)) == 3.0
    (mean,) = strategy.extended.batch_reduce_to("MEAN", [(per_replica, "CPU:0")], options=options)
    assert float(mean) == 1.5


def test_options_of_another_type_are_a_value_error_naming_them():
    strategy = two()
    per_replica = strategy.run(lambda: tf.constant(1.0))
    with pytest.raises(ValueError, match=r"reduce_to: `options` must be a tf.distribute.experimental.Communication"
                                         r"Options or None, got str: 'fast'"):
        strategy.extended.reduce_to("SUM", per_replica, "CPU:0", options="fast")
    with pytest.raises(ValueError, match=r"batch_reduce_to: `options` .* got int: 3"):
        strategy.extended.batch_reduce_to("SUM", [(per_replica, "CPU:0")], options=3)
    with pytest.raises(ValueError, match=r"ReplicaContext.all_reduce: `options` .* got dict"):
        strategy.run(lambda: ds.get_replica_context().all_reduce("SUM", tf.constant(1.0), options={"timeout": 1}))
    with pytest.raises(ValueError, match=r"ReplicaContext.all_gather: `options` .* got int: 7"):
        strategy.run(lambda: ds.get_replica_context().all_gather(tf.constant([1.0]), 0, options=7))
    with pytest.raises(ValueError, match="bytes_per_pack"):
        CommunicationOptions(bytes_per_pack=-1)
