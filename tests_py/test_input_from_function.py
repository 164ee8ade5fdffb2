"""distribute_datasets_from_function, experimental_make_numpy_dataset and the seed pages' input examples."""

from __future__ import annotations

import numpy as np
import pytest
from input_helpers import mirrored, per_replica_lists, steps, tpu_slice_strategy

import tpustrategy as tf
from tpustrategy.tpu import tpu_system

Dataset = tf.data.Dataset


@pytest.fixture(autouse=True)
def fresh_tpu_system():
    tpu_system._initialized.clear()
    yield
    tpu_system._initialized.clear()


def recording_fn(calls, make):
    def dataset_fn(ctx):
        calls.append((ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync))
        return make(ctx)

    return dataset_fn


def test_case_d_two_hosts_and_eight_replicas():
    strategy = tpu_slice_strategy("v4-16")
    calls = []
    dist = strategy.distribute_datasets_from_function(
        recording_fn(calls, lambda ctx: Dataset.range(100 * ctx.input_pipeline_id, 100 * ctx.input_pipeline_id + 8)))
    assert calls == [(2, 0, 8), (2, 1, 8)]
    # Each host's replicas dequeue its dataset round robin: host 0 → 0..3, host 1 → 100..103.
    assert per_replica_lists(next(iter(dist))) == [0, 1, 2, 3, 100, 101, 102, 103]


def test_round_robin_without_rebatching_on_ms2():
    calls = []
    dist = mirrored(2).experimental_distribute_datasets_from_function(
        recording_fn(calls, lambda ctx: Dataset.range(6).batch(ctx.get_per_replica_batch_size(4))))
    assert calls == [(1, 0, 2)]
    assert steps(dist) == [[[0, 1], [2, 3]], [[4, 5], []]]  # the last step: a dummy for replica 1


def test_default_strategy_calls_dataset_fn_with_a_default_context():
    calls = []
    dataset = tf.distribute.get_strategy().distribute_datasets_from_function(
        recording_fn(calls, lambda ctx: Dataset.range(2)))
    assert calls == [(1, 0, 1)] and isinstance(dataset, tf.data.Dataset)


def test_per_replica_mode_on_mirrored_calls_dataset_fn_per_replica():
    options = tf.distribute.InputOptions(experimental_replication_mode=tf.distribute.InputReplicationMode.PER_REPLICA,
                                         experimental_fetch_to_device=False)
    calls = []
    dist = mirrored(2).distribute_datasets_from_function(
        recording_fn(calls, lambda ctx: Dataset.range(10 * ctx.input_pipeline_id, 10 * ctx.input_pipeline_id + 2)),
        options=options)
    assert calls == [(2, 0, 2), (2, 1, 2)]
    assert steps(dist) == [[0, 10], [1, 11]]


def test_per_replica_mode_is_not_implemented_on_tpu():
    options = tf.distribute.InputOptions(experimental_replication_mode=tf.distribute.InputReplicationMode.PER_REPLICA,
                                         experimental_fetch_to_device=False)
    with pytest.raises(NotImplementedError, match="PER_REPLICA"):
        tf.distribute.TPUStrategy().distribute_datasets_from_function(lambda ctx: Dataset.range(2), options=options)


def test_dataset_fn_must_return_a_dataset():
    with pytest.raises(TypeError, match="what `dataset_fn` returns must be a `tf.data.Dataset`, got list"):
        mirrored(2).distribute_datasets_from_function(lambda ctx: [1, 2])


def test_seed_dataset_fn_example_with_run():
    strategy = tf.distribute.TPUStrategy()
    global_batch_size = 16

    def dataset_fn(input_context):
        batch_size = input_context.get_per_replica_batch_size(global_batch_size)
        d = tf.data.Dataset.from_tensors([[1.]]).repeat().batch(batch_size)
        return d.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)

    inputs = strategy.experimental_distribute_datasets_from_function(dataset_fn)
    for step, batch in enumerate(inputs):
        replica_results = strategy.experimental_run_v2(lambda x: tf.constant(np.asarray(x).sum()), args=(batch,))
        assert per_replica_lists(replica_results) == [2.0] * 8
        if step == 2:
            break


def test_numpy_dataset_seed_example():
    strategy = mirrored(2)
    numpy_input = np.ones([10], dtype=np.float32)
    dataset = strategy.experimental_make_numpy_dataset(numpy_input)
    numpy_input[0] = 5.0  # the dataset holds a copy
    dist_dataset = strategy.experimental_distribute_dataset(dataset.batch(4))
    assert steps(dist_dataset)[0] == [[1.0, 1.0], [1.0, 1.0]]
    assert dataset.element_spec == tf.TensorSpec([], tf.float32)


def test_numpy_dataset_stacks_lists_and_keeps_tuples():
    strategy = tf.compat.v1.distribute.MirroredStrategy(["GPU:0", "GPU:1"])
    stacked = strategy.experimental_make_numpy_dataset([np.zeros(3), np.ones(3)])
    assert [np.asarray(x).tolist() for x in stacked] == [[0.0] * 3, [1.0] * 3]
    pairs = strategy.extended.experimental_make_numpy_dataset((np.arange(2), np.arange(2) * 10))
    assert [tuple(int(np.asarray(v)) for v in x) for x in pairs] == [(0, 0), (1, 10)]


def test_seed_custom_training_loop_with_reduce():
    strategy = mirrored(2)
    dist_dataset = strategy.experimental_distribute_dataset(Dataset.range(8).batch(4))
    with strategy.scope():
        total_result = 0.0
        for x in dist_dataset:
            per_replica_result = strategy.experimental_run_v2(
                lambda v: tf.constant(float(np.asarray(v).sum())), args=(x,))
            total_result += float(np.asarray(strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_result,
                                                              axis=None)))
    assert total_result == 28.0


def test_case_c_partial_split_mean_over_batch_axis():
    strategy = mirrored(2)
    x = next(iter(strategy.experimental_distribute_dataset(Dataset.range(6).batch(6).map(
        lambda v: tf.constant(np.asarray(v).astype(np.float32))))))
    assert per_replica_lists(x) == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert float(np.asarray(strategy.reduce("MEAN", x, axis=0))) == 2.5
