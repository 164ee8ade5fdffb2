"""tf.SparseTensor through input pipelines as TF's tests check it (kernel_tests/from_sparse_tensor_slices and
batch tests with sparse components, parse_example VarLenFeature in Dataset.map, input_lib_test sparse inputs):
element_spec, slicing, batching, tf.nest, and distribution across replicas; values observed on TF 2.21."""

from __future__ import annotations

import pytest

import tpustrategy as tf


def _example(values):
    feature = {"a": tf.train.Feature(int64_list=tf.train.Int64List(value=values))}
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def _parsed(batched: bool):
    serialized = tf.data.Dataset.from_tensor_slices([_example([1, 2, 3]), _example([4]), _example([5, 6]),
                                                     _example([])])
    if batched:
        return serialized.batch(4).map(lambda s: tf.io.parse_example(s, {"a": tf.io.VarLenFeature(tf.int64)}))
    return serialized.map(lambda s: tf.io.parse_single_example(s, {"a": tf.io.VarLenFeature(tf.int64)}))


def test_slices_and_batches_of_a_sparse_tensor():
    sparse = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])
    dataset = tf.data.Dataset.from_tensor_slices(sparse)
    assert repr(dataset.element_spec) == "SparseTensorSpec(TensorShape([4]), tf.float32)"
    rows = list(dataset)
    assert all(isinstance(r, tf.SparseTensor) for r in rows)
    assert [tf.sparse.to_dense(r).numpy().tolist() for r in rows] == [[1, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]]
    batch = next(iter(dataset.batch(2)))
    assert batch.dense_shape.numpy().tolist() == [2, 4]
    assert tf.sparse.to_dense(batch).numpy().tolist() == [[1, 0, 0, 0], [0, 0, 2, 0]]
    assert repr(dataset.batch(2).element_spec) == "SparseTensorSpec(TensorShape([None, 4]), tf.float32)"
    rebatched = next(iter(dataset.map(lambda x: x).batch(3)))  # through the generic batch path
    assert rebatched.indices.numpy().tolist() == [[0, 0], [1, 2]]


def test_var_len_features_in_dataset_map_batch_as_tf():
    single = _parsed(batched=False)
    assert repr(single.element_spec) == "{'a': SparseTensorSpec(TensorShape([None]), tf.int64)}"
    assert [tf.sparse.to_dense(x["a"]).numpy().tolist() for x in single] == [[1, 2, 3], [4], [5, 6], []]
    batch = next(iter(single.batch(4)))["a"]
    assert tf.sparse.to_dense(batch).numpy().tolist() == [[1, 2, 3], [4, 0, 0], [5, 6, 0], [0, 0, 0]]
    assert batch.indices.numpy().tolist() == [[0, 0], [0, 1], [0, 2], [1, 0], [2, 0], [2, 1]]
    assert repr(_parsed(batched=True).element_spec) == "{'a': SparseTensorSpec(TensorShape([None, None]), tf.int64)}"
    flat = tf.nest.flatten(next(iter(single)), expand_composites=True)
    assert [t.dtype for t in flat] == [tf.int64, tf.int64, tf.int64]


@pytest.mark.parametrize("batched", [False, True], ids=["batched_after_parse", "parsed_in_batches"])
def test_sparse_batches_split_across_replicas_as_tf(batched):
    strategy = tf.distribute.MirroredStrategy(["TPU:0", "TPU:1"])
    dataset = _parsed(batched=True) if batched else _parsed(batched=False).batch(4)
    element = next(iter(strategy.experimental_distribute_dataset(dataset)))
    parts = strategy.experimental_local_results(element["a"])
    assert [p.dense_shape.numpy().tolist() for p in parts] == [[2, 3], [2, 3]]
    assert [p.indices.numpy().tolist() for p in parts] == [[[0, 0], [0, 1], [0, 2], [1, 0]], [[0, 0], [0, 1]]]
    assert [p.values.numpy().tolist() for p in parts] == [[1, 2, 3, 4], [5, 6]]
    assert [p.values.device for p in parts] == list(strategy.extended.worker_devices)
    sums = strategy.run(lambda d: tf.reduce_sum(tf.sparse.to_dense(d["a"])), args=(element,))
    assert [int(s) for s in sums.values] == [10, 11]


def test_sparse_batches_of_different_ranks_do_not_batch():
    ragged_ranks = tf.data.Dataset.from_tensor_slices([0, 1]).map(
        lambda i: tf.SparseTensor([[0]], [1.0], [2]) if int(i) == 0 else tf.SparseTensor([[0, 0]], [1.0], [2, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="different ranks"):
        next(iter(ragged_ranks.batch(2)))
