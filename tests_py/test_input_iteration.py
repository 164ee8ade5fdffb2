"""Distributed iterators: partial batches, dummies, optionals, element_spec, placement, replica-fn rule, v1."""

from __future__ import annotations

import numpy as np
import pytest
from input_helpers import mirrored, per_replica_lists, steps, with_policy

import tpustrategy as tf
from tpustrategy.data.experimental import AutoShardPolicy
from tpustrategy.distribute.values import PerReplicaSpec

Dataset = tf.data.Dataset


def off(dataset):
    return with_policy(dataset, AutoShardPolicy.OFF)


def test_exhausted_replicas_get_empty_dummies_of_the_same_dtype_and_row_shape():
    dataset = off(Dataset.from_tensor_slices(np.arange(12, dtype=np.float32).reshape(6, 2)).batch(4))
    last = list(mirrored(2).experimental_distribute_dataset(dataset))[-1]
    real, dummy = last.values
    assert np.asarray(real).tolist() == [[8.0, 9.0], [10.0, 11.0]]
    assert dummy.dtype == tf.float32 and dummy._shape_tuple == (0, 2)
    assert dummy.device.endswith("GPU:1")


def test_get_next_raises_out_of_range_only_when_every_replica_is_exhausted():
    iterator = iter(mirrored(2).experimental_distribute_dataset(off(Dataset.range(6).batch(4))))
    assert per_replica_lists(iterator.get_next()) == [[0, 1], [2, 3]]
    assert per_replica_lists(iterator.get_next()) == [[4, 5], []]
    with pytest.raises(tf.errors.OutOfRangeError):
        iterator.get_next()
    with pytest.raises(StopIteration):
        next(iterator)


def test_get_next_as_optional():
    iterator = iter(mirrored(2).experimental_distribute_dataset(Dataset.range(3).batch(3)))
    optional = iterator.get_next_as_optional()
    assert bool(np.asarray(optional.has_value()))
    assert per_replica_lists(optional.get_value()) == [[0, 1], [2]]
    empty = iterator.get_next_as_optional()
    assert not bool(np.asarray(empty.has_value()))
    with pytest.raises(tf.errors.InvalidArgumentError):
        empty.get_value()


def test_without_get_next_as_optional_the_first_exhausted_replica_ends_the_iteration():
    strategy = mirrored(2)
    strategy.extended.experimental_enable_get_next_as_optional = False
    assert steps(strategy.experimental_distribute_dataset(off(Dataset.range(6).batch(4)))) == [[[0, 1], [2, 3]]]


def test_infinite_datasets_never_use_dummies():
    dist = mirrored(2).experimental_distribute_dataset(Dataset.range(3).repeat().batch(2))
    assert not dist._enable_get_next_as_optional
    iterator = iter(dist)
    assert [per_replica_lists(next(iterator)) for _ in range(2)] == [[[0], [1]], [[2], [0]]]


def test_element_spec_is_per_replica_with_unknown_batch_dim():
    dist = mirrored(2).experimental_distribute_dataset(Dataset.range(6).batch(4))
    spec = tf.TensorSpec([None], tf.int64)
    assert dist.element_spec == PerReplicaSpec(spec, spec)
    assert iter(dist).element_spec == dist.element_spec
    assert repr(dist.element_spec).startswith("PerReplicaSpec(TensorSpec(shape=(None,), dtype=tf.int64")


def test_element_spec_stays_static_when_batches_are_static():
    dist = mirrored(2).experimental_distribute_dataset(Dataset.range(8).batch(4, drop_remainder=True))
    spec = tf.TensorSpec([2], tf.int64)
    assert dist.element_spec == PerReplicaSpec(spec, spec)
    assert not dist._enable_get_next_as_optional


def test_element_spec_nests_and_single_replica():
    dataset = Dataset.from_tensor_slices((np.zeros((4, 3), np.float32), np.arange(4))).batch(2)
    spec = mirrored(2).experimental_distribute_dataset(dataset).element_spec
    assert isinstance(spec, tuple) and spec[0] == PerReplicaSpec(*[tf.TensorSpec([None, 3], tf.float32)] * 2)
    one = tf.distribute.OneDeviceStrategy("GPU:0").experimental_distribute_dataset(dataset)
    assert one.element_spec == (tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([None], tf.int64))


def test_inputs_are_charged_to_each_replicas_hbm():
    strategy = tf.distribute.TPUStrategy()
    data = np.ones((16, 1024), np.float32)  # 4 KiB per row, 8 KiB per replica
    dist = strategy.experimental_distribute_dataset(Dataset.from_tensor_slices(data).batch(16))
    cores = tf.config.list_logical_devices("TPU")
    before = [tf.config.experimental.get_memory_info(c.name)["current"] for c in cores]
    x = next(iter(dist))
    after = [tf.config.experimental.get_memory_info(c.name)["current"] for c in cores]
    assert [a - b for a, b in zip(after, before, strict=True)] == [2 * 4096] * 8
    assert [v.device for v in x.values] == list(strategy.extended.worker_devices)


def test_next_inside_a_replica_fn_is_an_error():
    strategy = mirrored(2)
    iterator = iter(strategy.experimental_distribute_dataset(Dataset.range(8).batch(2)))
    with pytest.raises(ValueError, match=r"next\(iterator\) should be called from outside of replica_fn"):
        strategy.run(lambda: next(iterator))
    # Called outside, as an argument of run, it works.
    result = strategy.run(lambda x: tf.constant(np.asarray(x) * 10), args=(next(iterator),))
    assert per_replica_lists(result) == [[0], [10]]


def test_iterating_inside_the_scope_and_in_a_loop_of_runs():
    strategy = mirrored(2)
    totals = []
    with strategy.scope():
        for x in strategy.experimental_distribute_dataset(Dataset.range(8).batch(4)):
            per_replica = strategy.run(lambda v: tf.constant(float(np.asarray(v).sum())), args=(x,))
            totals.append(float(np.asarray(strategy.reduce("SUM", per_replica, axis=None))))
    assert totals == [6.0, 22.0]


def test_a_distributed_dataset_can_be_iterated_again():
    dist = mirrored(2).experimental_distribute_dataset(Dataset.range(4).batch(2))
    assert steps(dist) == steps(dist) == [[[0], [1]], [[2], [3]]]


def test_mixing_strategies_is_an_error():
    iterator = iter(mirrored(2).experimental_distribute_dataset(Dataset.range(4).batch(2)))
    with mirrored(2).scope(), pytest.raises(RuntimeError, match="Mixing different"):
        next(iterator)


def test_strings_are_split_on_the_host():
    dataset = Dataset.from_tensor_slices([b"a", b"b", b"c"]).batch(3)
    x = next(iter(mirrored(2).experimental_distribute_dataset(dataset)))
    assert [list(v) for v in x.values] == [[b"a", b"b"], [b"c"]]


# ---- compat.v1 ----

def test_v1_make_dataset_iterator_and_experimental_run():
    strategy = tf.compat.v1.distribute.MirroredStrategy(["GPU:0", "GPU:1"])
    iterator = strategy.make_dataset_iterator(Dataset.range(4).batch(2))
    assert iterator.initialize() == []
    result = strategy.experimental_run(lambda x: tf.constant(np.asarray(x) + 1), iterator)
    assert per_replica_lists(result) == [[1], [2]]
    assert per_replica_lists(iterator.get_next()) == [[2], [3]]
    iterator.initialize()
    assert per_replica_lists(iterator.get_next()) == [[0], [1]]


def test_v1_make_input_fn_iterator():
    strategy = tf.compat.v1.distribute.MirroredStrategy(["GPU:0", "GPU:1"])
    contexts = []

    def input_fn(ctx):
        contexts.append((ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync))
        return Dataset.range(4).batch(ctx.get_per_replica_batch_size(2))

    iterator = strategy.make_input_fn_iterator(input_fn)
    assert contexts == [(1, 0, 2)]
    assert per_replica_lists(iterator.get_next()) == [[0], [1]]
    with pytest.raises(ValueError, match="Input replication mode not supported"):
        strategy.make_input_fn_iterator(input_fn, tf.distribute.InputReplicationMode.PER_REPLICA)


def test_v1_default_strategy_iterator():
    iterator = tf.compat.v1.distribute.get_strategy().make_dataset_iterator(Dataset.range(2))
    assert [int(np.asarray(iterator.get_next())) for _ in range(2)] == [0, 1]
    with pytest.raises(tf.errors.OutOfRangeError):
        iterator.get_next()


def test_v1_tpu_strategy_input():
    strategy = tf.compat.v1.distribute.experimental.TPUStrategy()
    iterator = strategy.make_dataset_iterator(Dataset.range(16).batch(8))
    assert per_replica_lists(iterator.get_next()) == [[i] for i in range(8)]
