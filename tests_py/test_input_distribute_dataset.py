"""experimental_distribute_dataset: rebatching, auto-sharding and option errors (SEMANTICS.md §2.5, §5 C-D)."""

from __future__ import annotations

import numpy as np
import pytest
from input_helpers import mirrored, per_replica_lists, steps, tpu_slice_strategy, with_policy

import tpustrategy as tf
from tpustrategy.data.experimental import AutoShardPolicy
from tpustrategy.distribute.input_pipeline import batch_sizes_for_worker, compute_batch_size
from tpustrategy.tpu import tpu_system

Dataset = tf.data.Dataset


@pytest.fixture(autouse=True)
def fresh_tpu_system():
    tpu_system._initialized.clear()
    yield
    tpu_system._initialized.clear()


# ---- legacy ceil split (AUTO policy on in-memory data) ----

@pytest.mark.parametrize(("dataset", "replicas", "expected"), [
    (Dataset.range(6).batch(4), 2, [[[0, 1], [2, 3]], [[4], [5]]]),
    (Dataset.range(4).batch(4), 5, [[[0], [1], [2], [3], []]]),
    (Dataset.range(8).batch(4), 3, [[[0, 1], [2, 3], []], [[4, 5], [6, 7], []]]),
    (Dataset.range(4).batch(2), 2, [[[0], [1]], [[2], [3]]]),
], ids=["range6-batch4-over2", "range4-batch4-over5", "range8-batch4-over3", "range4-batch2-over2"])
def test_global_batches_are_ceil_split(dataset, replicas, expected):
    assert steps(mirrored(replicas).experimental_distribute_dataset(dataset)) == expected


def test_seed_example_run_doubles_each_replica_slice():
    strategy = tf.distribute.MirroredStrategy(devices=["GPU:0", "GPU:1"])
    dist_dataset = strategy.experimental_distribute_dataset(Dataset.range(4).batch(2))
    result = [strategy.run(lambda x: tf.constant(np.asarray(x) * 2), args=(x,)) for x in dist_dataset]
    assert [per_replica_lists(r) for r in result] == [[[0], [2]], [[4], [6]]]
    assert repr(result[0]) == ("PerReplica:{\n  0: <tf.Tensor: shape=(1,), dtype=int64, numpy=array([0])>,\n"
                               "  1: <tf.Tensor: shape=(1,), dtype=int64, numpy=array([2])>\n}")


def test_case_c_from_tensor_slices_on_ms2():
    strategy = mirrored(2)
    x = next(iter(strategy.experimental_distribute_dataset(Dataset.from_tensor_slices([5., 6., 7., 8.]).batch(2))))
    assert per_replica_lists(x) == [[5.0], [6.0]]
    plus_one = strategy.run(lambda v: tf.constant(np.asarray(v) + 1), args=(x,))
    assert per_replica_lists(plus_one) == [[6.0], [7.0]]
    assert float(np.asarray(strategy.reduce("SUM", x, axis=0))) == 11.0


def test_nested_elements_are_split_per_component():
    dataset = Dataset.from_tensor_slices({"a": np.arange(4), "b": np.arange(8).reshape(4, 2)}).batch(4)
    first = next(iter(mirrored(2).experimental_distribute_dataset(dataset)))
    assert per_replica_lists(first["a"]) == [[0, 1], [2, 3]]
    assert per_replica_lists(first["b"]) == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]


@pytest.mark.parametrize("policy", [AutoShardPolicy.AUTO, AutoShardPolicy.DATA, AutoShardPolicy.OFF])
def test_unbatched_elements_cannot_be_split(policy):
    with pytest.raises(ValueError, match="call batch on the input dataset so that it can be split across 2 replicas"):
        mirrored(2).experimental_distribute_dataset(with_policy(Dataset.range(4), policy))


def test_one_replica_passes_batches_and_scalars_through():
    strategy = tf.distribute.OneDeviceStrategy("GPU:0")
    assert steps(strategy.experimental_distribute_dataset(Dataset.range(3))) == [[0], [1], [2]]
    assert steps(strategy.experimental_distribute_dataset(Dataset.range(3).batch(2))) == [[[0, 1]], [[2]]]


def test_default_strategy_returns_the_dataset_itself():
    dataset = Dataset.range(3)
    assert tf.distribute.get_strategy().experimental_distribute_dataset(dataset) is dataset


# ---- V2 rebatching (policy OFF, FILE with one worker, HINT) ----

def test_batch_sizes_for_worker():
    assert batch_sizes_for_worker(4, 1, 2, 0) == [2, 2]
    assert batch_sizes_for_worker(7, 2, 2, 0) == [2, 2, 2, 1]
    assert batch_sizes_for_worker(7, 2, 2, 1) == [2, 1, 2, 2]
    assert batch_sizes_for_worker(3, 2, 2, 1) == [1, 0, 1, 1]


def test_off_policy_rebatches_across_batch_boundaries():
    dataset = with_policy(Dataset.range(6).batch(4), AutoShardPolicy.OFF)
    assert steps(mirrored(2).experimental_distribute_dataset(dataset)) == [[[0, 1], [2, 3]], [[4, 5], []]]
    dataset = with_policy(Dataset.range(7).batch(3), AutoShardPolicy.OFF)  # sizes cycle [1, 1, 1] over 3
    assert steps(mirrored(3).experimental_distribute_dataset(dataset)) == [
        [[0], [1], [2]], [[3], [4], [5]], [[6], [], []]]


def test_off_policy_without_static_batch_size_splits_each_batch():
    dataset = with_policy(Dataset.range(6).batch(4).unbatch().batch(4), AutoShardPolicy.OFF)
    assert compute_batch_size(dataset) == 4
    generated = Dataset.from_generator(lambda: iter([np.arange(3)]), output_signature=tf.TensorSpec([None], tf.int64))
    assert compute_batch_size(generated) == -1
    assert steps(mirrored(2).experimental_distribute_dataset(with_policy(generated, AutoShardPolicy.OFF))) == [
        [[0, 1], [2]]]


def test_file_policy_with_one_worker_rebatches_v2(tmp_path):
    paths = _write_record_files(tmp_path, files=2, records=3)
    dataset = with_policy(tf.data.TFRecordDataset(paths).map(_parse).batch(4), AutoShardPolicy.FILE)
    assert steps(mirrored(2).experimental_distribute_dataset(dataset)) == [
        [[0, 1], [2, 10]], [[11, 12], []]]


def test_hint_policy_with_one_worker_keeps_everything():
    dataset = Dataset.range(8).shard(tf.data.experimental.SHARD_HINT, tf.data.experimental.SHARD_HINT).batch(4)
    got = steps(mirrored(2).experimental_distribute_dataset(with_policy(dataset, AutoShardPolicy.HINT)))
    assert got == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]


# ---- auto-sharding across hosts (TPU slices with several hosts) ----

def _parse(record):
    return tf.constant(int(record), tf.int64)


def _write_record_files(tmp_path, files: int, records: int) -> list[str]:
    """File f holds the records 10·f + j, j < records."""
    paths = []
    for f in range(files):
        path = str(tmp_path / f"part-{f}.tfrecord")
        with tf.io.TFRecordWriter(path) as writer:
            for j in range(records):
                writer.write(str(10 * f + j).encode())
        paths.append(path)
    return paths


def test_file_policy_shards_files_over_four_hosts(tmp_path):
    strategy = tpu_slice_strategy("v4-32")
    assert strategy.num_replicas_in_sync == 16 and strategy.extended.num_hosts == 4
    dataset = tf.data.TFRecordDataset(_write_record_files(tmp_path, files=8, records=4)).map(_parse).batch(16)
    got = steps(strategy.experimental_distribute_dataset(dataset))  # AUTO on files = FILE
    # Host i reads files i and i + 4; its 4 replicas take turns over its records, one row each.
    host_records = [[10 * f + j for f in (i, i + 4) for j in range(4)] for i in range(4)]
    expected = [[[host_records[i][4 * s + k]] for i in range(4) for k in range(4)] for s in range(2)]
    assert got == expected


def test_fewer_files_than_hosts_is_an_error(tmp_path):
    strategy = tpu_slice_strategy("v4-32")
    dataset = tf.data.TFRecordDataset(_write_record_files(tmp_path, files=2, records=2)).map(_parse).batch(16)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Number of files \(2\) is smaller"):
        strategy.experimental_distribute_dataset(dataset)
    off = strategy.experimental_distribute_dataset(with_policy(dataset, AutoShardPolicy.OFF))
    assert len(steps(off)) == 1  # OFF: every host reads both files; 4 rows per host over 16 replicas


def test_data_policy_keeps_every_wth_slice_per_host():
    strategy = tpu_slice_strategy("v4-16")  # 2 hosts x 4 replicas
    got = steps(strategy.experimental_distribute_dataset(Dataset.range(16).batch(8)))
    # 8 slices of one row; host 0 keeps slices 0, 2, 4, 6 and host 1 slices 1, 3, 5, 7.
    assert got[0] == [[0], [2], [4], [6], [1], [3], [5], [7]]
    assert got[1] == [[8], [10], [12], [14], [9], [11], [13], [15]]


def test_hint_policy_shards_by_host():
    strategy = tpu_slice_strategy("v4-16")
    dataset = Dataset.range(16).shard(tf.data.experimental.SHARD_HINT, tf.data.experimental.SHARD_HINT).batch(8)
    got = steps(strategy.experimental_distribute_dataset(with_policy(dataset, AutoShardPolicy.HINT)))
    # Host i keeps rows i, i + 2, ...; G = 8 over S = 8 sub-batches of one row.
    assert got[0] == [[0], [2], [4], [6], [1], [3], [5], [7]]


def test_off_policy_every_host_sees_everything():
    strategy = tpu_slice_strategy("v4-16")
    dataset = with_policy(Dataset.range(8).batch(8), AutoShardPolicy.OFF)
    got = steps(strategy.experimental_distribute_dataset(dataset))
    # Host 0's sizes [1]*8 from rotation 0, host 1's from rotation 4: both walk the same rows.
    assert got[0] == [[0], [1], [2], [3], [0], [1], [2], [3]]


def test_values_land_on_each_replicas_core():
    strategy = tpu_slice_strategy("v4-16")
    x = next(iter(strategy.experimental_distribute_dataset(Dataset.range(16).batch(8))))
    assert [v.device for v in x.values] == list(strategy.extended.worker_devices)


# ---- options ----

def test_per_replica_mode_is_not_implemented_for_distribute_dataset():
    options = tf.distribute.InputOptions(experimental_replication_mode=tf.distribute.InputReplicationMode.PER_REPLICA)
    with pytest.raises(NotImplementedError, match="PER_REPLICA is only supported in `distribute_datasets_from"):
        mirrored(2).experimental_distribute_dataset(Dataset.range(4).batch(2), options=options)


def test_input_options_validation():
    per_replica = tf.distribute.InputReplicationMode.PER_REPLICA
    both = tf.distribute.InputOptions(experimental_replication_mode=per_replica, experimental_fetch_to_device=True,
                                      experimental_place_dataset_on_device=True)
    with pytest.raises(ValueError, match="can not be set to True when experimental_fetch_to_device is True"):
        mirrored(2).distribute_datasets_from_function(lambda ctx: Dataset.range(2), options=both)
    on_device = tf.distribute.InputOptions(experimental_place_dataset_on_device=True)
    with pytest.raises(ValueError, match="only be set to True when replication mode is set to `PER_REPLICA`"):
        mirrored(2).experimental_distribute_dataset(Dataset.range(4).batch(2), options=on_device)
    with pytest.raises(TypeError, match="InputOptions"):
        mirrored(2).experimental_distribute_dataset(Dataset.range(4).batch(2), options={"a": 1})
    with pytest.raises(TypeError, match="tf.data.Dataset"):
        mirrored(2).experimental_distribute_dataset([1, 2])
    fine = tf.distribute.InputOptions(experimental_fetch_to_device=False, experimental_per_replica_buffer_size=2)
    assert len(steps(mirrored(2).experimental_distribute_dataset(Dataset.range(4).batch(2), options=fine))) == 2
