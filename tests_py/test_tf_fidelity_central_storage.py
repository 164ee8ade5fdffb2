"""tf.distribute.experimental.CentralStorageStrategy as TF's tests use it (central_storage_strategy_test.py:
variables on the parameter device as AggregatingVariable, replicated computation, aggregated updates), with the
values observed on TF 2.21."""

from __future__ import annotations

import pytest

import tpustrategy as tf


def _strategy():
    return tf.distribute.experimental.CentralStorageStrategy(["CPU:0", "CPU:1"])


def _rid_f32():
    return tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)


def test_devices_and_variable_placement():
    s = _strategy()
    assert s.num_replicas_in_sync == 2
    assert s.extended.parameter_devices == ("/device:CPU:0",)
    assert [d.split("device:")[-1] for d in s.extended.worker_devices] == ["CPU:0", "CPU:1"]
    with s.scope():
        v = tf.Variable(1.0)
    assert type(v).__name__ == "AggregatingVariable" and v.device.endswith("CPU:0")
    assert tf.is_tensor(v) and v.synchronization == tf.VariableSynchronization.AUTO
    assert repr(v) == "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>"
    doubled = s.run(lambda: v * 2.0)
    assert [float(x) for x in doubled.values] == [2.0, 2.0]
    one_compute = tf.distribute.experimental.CentralStorageStrategy(["CPU:1"])
    assert one_compute.extended.parameter_devices[0].endswith("CPU:1")


def test_replica_writes_are_aggregated_once():
    s = _strategy()
    with s.scope():
        total = tf.Variable(1.0, aggregation=tf.VariableAggregation.SUM)
        mean = tf.Variable(1.0, aggregation=tf.VariableAggregation.MEAN)
        first = tf.Variable(0.0, aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA)
        plain = tf.Variable(1.0)

    def step():
        total.assign_add(tf.constant(1.0))
        mean.assign_add(_rid_f32() + 1.0)
        first.assign(_rid_f32() + 10.0)
        return total.read_value()

    reads = s.run(step)
    assert [float(x) for x in reads.values] == [3.0, 3.0]  # 1 + (1 + 1), read by each replica
    assert float(mean.numpy()) == 2.5 and float(first.numpy()) == 10.0
    with pytest.raises(ValueError, match="You must specify an aggregation method to update a AggregatingVariable"):
        s.run(lambda: plain.assign_add(tf.constant(1.0)))
    plain.assign(5.0)  # cross-replica writes go straight to the variable
    assert float(plain.numpy()) == 5.0


def test_inputs_reductions_and_non_slot_state():
    s = _strategy()
    batch = next(iter(s.experimental_distribute_dataset(tf.data.Dataset.range(8).batch(4))))
    assert [x.numpy().tolist() for x in batch.values] == [[0, 1], [2, 3]]
    assert float(s.reduce("SUM", s.run(lambda: tf.constant(1.0)), axis=None)) == 2.0
    with s.scope():
        b = tf.Variable(1.0, name="b")
        a = tf.Variable(2.0, name="a")
    assert s.extended.non_slot_devices([b, a]) is a
    assert float(s.extended.update_non_slot(a, lambda: a.assign_add(1.0).read_value())) == 3.0
    with s.scope():
        created = s.run(lambda: tf.Variable(2.0, aggregation=tf.VariableAggregation.SUM))
    assert type(created).__name__ == "AggregatingVariable" and float(created.numpy()) == 2.0
