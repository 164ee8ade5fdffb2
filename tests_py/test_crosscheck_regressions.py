"""Regressions found by tools/crosscheck_tf.py; expected values were observed with TF 2.21 (no TF needed here)."""

from __future__ import annotations

import pytest

import tpustrategy as tf


def _ms2():
    return tf.distribute.MirroredStrategy(["GPU:0", "GPU:1"])


def test_value_context_is_exported_under_experimental():
    # observed with TF 2.21: tf.distribute.experimental.ValueContext(2, 4).replica_id_in_sync_group == 2
    assert tf.distribute.experimental.ValueContext(2, 4).replica_id_in_sync_group == 2


@pytest.mark.parametrize("method", ["assign", "assign_add"])
def test_sync_on_read_none_aggregation_rejects_cross_replica_updates(method):
    # observed with TF 2.21: ValueError, and the components keep their values
    strategy = _ms2()
    with strategy.scope():
        v = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=tf.VariableAggregation.NONE)
    strategy.run(lambda: v.assign_add(1.0))
    with pytest.raises(ValueError):
        getattr(v, method)(6.0)
    assert [float(c.numpy()) for c in strategy.experimental_local_results(v)] == [1.0, 1.0]
