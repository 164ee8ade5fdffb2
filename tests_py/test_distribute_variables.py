"""Variables under a strategy (§2.6; case E's variable errors)."""

from __future__ import annotations

import numpy as np
import pytest
from distribute_helpers import ms2, values_of

import tpustrategy as tf

ds = tf.distribute
Sync, Agg = tf.VariableSynchronization, tf.VariableAggregation


def component_values(variable):
    return [np.asarray(c).tolist() for c in variable.values]


def test_seed_scope_example_reprs():
    strategy = ms2()
    with strategy.scope():
        mirrored_variable = tf.Variable(1.0)
    assert repr(mirrored_variable) == (
        "MirroredVariable:{\n"
        "  0: <tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>,\n"
        "  1: <tf.Variable 'Variable/replica_1:0' shape=() dtype=float32, numpy=1.0>\n}")
    regular_variable = tf.Variable(1.0)
    assert repr(regular_variable) == "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>"
    assert isinstance(mirrored_variable, ds.MirroredVariable)
    assert [c.device for c in mirrored_variable.values] == list(strategy.extended.worker_devices)


def test_plain_variable_basics():
    v = tf.Variable([1.0, 2.0], name="w")
    assert v.name == "w:0" and v.dtype == tf.float32 and v.shape == (2,)
    v.assign_add([1.0, 1.0])
    v.assign_sub([0.5, 0.5])
    assert v.numpy().tolist() == [1.5, 2.5]
    v.assign([0.0, 0.0])
    assert np.asarray(v.read_value()).tolist() == [0.0, 0.0]
    assert np.asarray(tf.convert_to_tensor(v)).tolist() == [0.0, 0.0]
    with pytest.raises(ValueError):
        v.assign([1.0])
    with pytest.raises(ValueError):
        tf.Variable(None)


def test_creation_errors_in_scope():
    strategy = ms2()
    with strategy.scope():
        with pytest.raises(ValueError):
            tf.Variable(1, aggregation=Agg.MEAN)
        with pytest.raises(ValueError):
            tf.Variable(1.0, synchronization=Sync.NONE)
        with pytest.raises(ValueError):
            tf.Variable(1.0, aggregation=42)
        named = tf.Variable(1.0, name="w")
    assert [c.name for c in named.values] == ["w:0", "w/replica_1:0"]


@pytest.mark.parametrize("aggregation, expected", [(Agg.SUM, 3.0), (Agg.MEAN, 2.0), (Agg.ONLY_FIRST_REPLICA, 2.0)])
def test_replica_assign_add_aggregates(aggregation, expected):
    strategy = ms2()
    with strategy.scope():
        v = tf.Variable(1.0, aggregation=aggregation)
    strategy.run(lambda: v.assign_add(tf.constant(1.0)))
    assert component_values(v) == [expected, expected]


def test_replica_assign_without_aggregation_touches_only_the_local_component():
    strategy = ms2()
    with strategy.scope():
        v = tf.Variable(0.0)
    strategy.run(lambda: v.assign(tf.constant(float(ds.get_replica_context().replica_id_in_sync_group + 5))))
    assert component_values(v) == [5.0, 6.0]
    reads = strategy.run(lambda: v.read_value())
    assert values_of(reads) == [5.0, 6.0]


def test_replica_assign_literal_with_sum_is_an_error():
    strategy = ms2()
    with strategy.scope():
        v = tf.Variable(1.0, aggregation=Agg.SUM)
    with pytest.raises(ValueError, match="non-DistributedValues"):
        strategy.run(lambda: v.assign_add(1.0))


def test_cross_replica_assign_updates_every_component():
    strategy = ms2()
    with strategy.scope():
        v = tf.Variable(1.0, aggregation=Agg.SUM)
        v.assign(4.0)
        assert component_values(v) == [4.0, 4.0]
        with pytest.raises(TypeError, match="mirrored"):
            v.assign(ds.PerReplica([tf.constant(1.0), tf.constant(2.0)]))
        assert np.asarray(v).tolist() == 4.0


def test_run_returns_the_variable_itself():
    strategy = ms2()
    with strategy.scope():
        v = tf.Variable(1.0)
    assert strategy.run(lambda: v) is v
    assert strategy.run(lambda: v.values[ds.get_replica_context().replica_id_in_sync_group]) is v


def test_sync_on_read_semantics():
    strategy = ms2()
    with strategy.scope():
        total = tf.Variable(0.0, synchronization=Sync.ON_READ, aggregation=Agg.SUM)
        mean = tf.Variable(0.0, synchronization=Sync.ON_READ, aggregation=Agg.MEAN)
        first = tf.Variable(0.0, synchronization=Sync.ON_READ, aggregation=Agg.ONLY_FIRST_REPLICA)
    assert isinstance(total, ds.SyncOnReadVariable) and not total.trainable

    def fn():
        rid = float(ds.get_replica_context().replica_id_in_sync_group)
        for v in (total, mean, first):
            v.assign_add(tf.constant(rid + 1.0))
        return total.read_value()

    local_reads = strategy.run(fn)
    assert values_of(local_reads) == [1.0, 2.0]
    assert component_values(total) == [1.0, 2.0]
    with strategy.scope():
        assert np.asarray(total.read_value()).item() == 3.0
        assert np.asarray(mean.read_value()).item() == 1.5
        assert np.asarray(first.read_value()).item() == 1.0
        assert np.asarray(strategy.extended.read_var(total)).item() == 3.0
        total.assign(8.0)
        assert component_values(total) == [4.0, 4.0]
        with pytest.raises(ValueError, match="assign_add"):
            total.assign_add(1.0)
        mean.assign_add(1.0)
        assert component_values(mean) == [2.0, 3.0]


def test_sync_on_read_none_cross_replica_update_writes_every_component_then_raises():
    # Observed with TF 2.21: each cross-replica assign/assign_add of a NONE SyncOnRead variable updates every
    # component, then raises ValueError from returning the (impossible) cross-replica read.
    strategy = ms2()
    with strategy.scope():
        v = tf.Variable(0.0, synchronization=Sync.ON_READ, aggregation=Agg.NONE)
    with pytest.raises(ValueError):
        v.assign(6.0)
    assert component_values(v) == [6.0, 6.0]
    with pytest.raises(ValueError):
        v.assign_add(1.0)
    assert component_values(v) == [7.0, 7.0]
    v.assign_sub(2.0, read_value=False)  # no read, no error
    assert component_values(v) == [5.0, 5.0]


def test_extended_update_value_container_and_created_in_scope():
    strategy = ms2()
    with strategy.scope():
        v = tf.Variable(1.0)
        result = strategy.extended.update(v, lambda component, delta: component.assign_add(delta),
                                          args=(ds.PerReplica([tf.constant(1.0), tf.constant(2.0)]),))
    assert component_values(v) == [2.0, 3.0]
    assert result is v
    assert strategy.extended.value_container(v.values[1]) is v
    assert strategy.extended.variable_created_in_scope(v)
    assert not strategy.extended.variable_created_in_scope(tf.Variable(1.0))
    with strategy.scope(), strategy.extended.colocate_vars_with(v):
        w = tf.Variable(0.0)
    assert [c.device for c in w.values] == [c.device for c in v.values]


def test_variable_created_inside_run_is_shared():
    strategy = ms2()
    created = strategy.run(lambda: tf.Variable(tf.constant(float(ds.get_replica_context()
                                                                   .replica_id_in_sync_group))))
    assert isinstance(created, ds.MirroredVariable)
    assert component_values(created) == [0.0, 0.0]


def test_reduce_op_from_variable_aggregation():
    assert ds.ReduceOp.from_variable_aggregation(Agg.SUM) is ds.ReduceOp.SUM
    assert ds.ReduceOp.from_variable_aggregation(Agg.MEAN) is ds.ReduceOp.MEAN
    with pytest.raises(ValueError):
        ds.ReduceOp.from_variable_aggregation(Agg.NONE)
    assert [m.value for m in Sync] == [0, 1, 2, 3] and [m.value for m in Agg] == [0, 1, 2, 3]
