"""tf.string tensors and RaggedTensors where pipelines use them (TF 2.21 behaviour; the reprs and specs are
also cross-checked against stored TF output in test_crosscheck_strings.py)."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import errors


def test_string_constant_is_a_host_tensor():
    t = tf.constant(["a", "bc"])
    assert t.dtype == tf.string and t.shape == (2,) and tf.is_tensor(t)
    assert t.numpy().dtype == object and t.numpy().tolist() == [b"a", b"bc"]
    assert tf.constant(b"x").numpy() == b"x" and int(tf.constant(b"7")) == 7
    assert t.device.endswith("device:CPU:0")
    assert tf.convert_to_tensor(t) is t
    assert tf.concat([t, tf.constant(["d"])], 0).numpy().tolist() == [b"a", b"bc", b"d"]
    assert tf.gather(t, [1, 0]).numpy().tolist() == [b"bc", b"a"]
    assert tf.shape(t).numpy().tolist() == [2] and tf.size(t).numpy() == 2


def test_string_tensor_errors_are_tfs():
    t = tf.constant(["a"])
    with pytest.raises(errors.InvalidArgumentError):
        tf.reduce_sum(t)
    with pytest.raises(errors.InvalidArgumentError, match="int32"):
        _ = t + 1
    with pytest.raises(errors.UnimplementedError, match="Cast string to int32"):
        tf.cast(t, tf.int32)
    with pytest.raises(TypeError, match="unhashable"):
        hash(t)
    with pytest.raises(TypeError, match="dtype string"):
        tf.constant(3, dtype=tf.string)
    with pytest.raises(errors.InvalidArgumentError, match="out of bounds"):
        _ = t[5]


def test_text_lines_are_string_tensors_parsed_by_tf_ops(tmp_path):
    path = tmp_path / "a.csv"
    path.write_bytes(b"1,2.5\n3,4.5\n")
    ds = tf.data.TextLineDataset(str(path)).batch(2).map(lambda lines: tf.io.decode_csv(lines, [[0], [0.0]]))
    ints, floats = next(iter(ds))
    assert ints.numpy().tolist() == [1, 3] and floats.numpy().tolist() == [2.5, 4.5]
    line = next(iter(tf.data.TextLineDataset(str(path))))
    assert line.dtype == tf.string and line.numpy() == b"1,2.5"


def test_parse_example_takes_a_string_tensor():
    example = tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(int64_list=tf.train.Int64List(value=[4]))})).SerializeToString()
    batch = tf.constant([example, example])
    out = tf.io.parse_example(batch, {"x": tf.io.FixedLenFeature([], tf.int64)})
    assert out["x"].numpy().tolist() == [4, 4]
    assert tf.io.parse_single_example(batch[0], {"x": tf.io.FixedLenFeature([], tf.int64)})["x"].numpy() == 4
    assert tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant(["p", "q"])), tf.string).numpy().tolist() == [
        b"p", b"q"]


def test_strings_pass_through_strategy_run_on_the_host():
    strategy = tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"])
    dist = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices(["a", "b", "c", "d"]).batch(4))
    element = next(iter(dist))
    parts = strategy.experimental_local_results(element)
    assert [p.numpy().tolist() for p in parts] == [[b"a", b"b"], [b"c", b"d"]]
    lengths = strategy.run(lambda s: tf.strings.length(s), args=(element,))
    assert [p.numpy().tolist() for p in strategy.experimental_local_results(lengths)] == [[1, 1], [1, 1]]


def test_ragged_tensor_factories_and_conversions():
    r = tf.RaggedTensor.from_row_splits([1, 2, 3, 4], [0, 3, 3, 4])
    assert r.to_list() == [[1, 2, 3], [], [4]] and r.shape.as_list() == [3, None] and r.ragged_rank == 1
    assert r.row_lengths().numpy().tolist() == [3, 0, 1] and r.value_rowids().numpy().tolist() == [0, 0, 0, 2]
    assert r.to_tensor(default_value=-1).numpy().tolist() == [[1, 2, 3], [-1, -1, -1], [4, -1, -1]]
    assert r.to_tensor(shape=[2, 2]).numpy().tolist() == [[1, 2], [0, 0]]
    assert tf.RaggedTensor.from_row_lengths([5, 6], [1, 1]).to_list() == [[5], [6]]
    assert (r * 10).to_list() == [[10, 20, 30], [], [40]] and r[0].numpy().tolist() == [1, 2, 3]
    nested = tf.ragged.constant([[[1], [2, 3]], [[4]]])
    assert nested.ragged_rank == 2 and nested.flat_values.numpy().tolist() == [1, 2, 3, 4]
    assert [s.numpy().tolist() for s in nested.nested_row_splits] == [[0, 2, 3], [0, 1, 3, 4]]
    words = tf.ragged.constant([["a"], ["b", "c"]])
    assert words.dtype == tf.string and words.to_tensor().numpy().tolist() == [[b"a", b""], [b"b", b"c"]]
    with pytest.raises(errors.InvalidArgumentError):
        tf.RaggedTensor.from_row_splits([1, 2], [0, 3])
    with pytest.raises(errors.InvalidArgumentError):
        tf.ragged.map_flat_values(tf.add, r, tf.ragged.constant([[1], [2], [3, 4, 5]]))


def test_ragged_batches_split_across_replicas_by_rows():
    strategy = tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"])
    ds = tf.data.Dataset.range(4).map(lambda x: tf.range(x)).ragged_batch(4)
    element = next(iter(strategy.experimental_distribute_dataset(ds)))
    parts = strategy.experimental_local_results(element)
    assert [p.to_list() for p in parts] == [[[], [0]], [[0, 1], [0, 1, 2]]]
    assert parts[1].flat_values.device.endswith("CPU:1")
    assert np.array_equal(parts[0].row_splits.numpy(), [0, 0, 1])
