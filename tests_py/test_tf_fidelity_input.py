"""Input-pipeline members: DistributedDataset.cardinality / reduce, serialize_tensor / parse_tensor, boolean-mask
indexing; from what TF's tests check (distribute/input_lib_test.py cardinality and reduce cases,
kernel_tests/parse_tensor_op_test.py / serialize_tensor tests, array_ops_test.py boolean mask indexing), with
the bytes and values observed on TF 2.21.
"""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf

STRATEGIES = {"mirrored2": lambda: tf.distribute.MirroredStrategy(["TPU:0", "TPU:1"]),
              "tpu_v3_8": lambda: tf.distribute.TPUStrategy()}


@pytest.fixture(params=sorted(STRATEGIES), ids=sorted(STRATEGIES))
def strategy(request):
    return STRATEGIES[request.param]()


def test_distributed_dataset_cardinality(strategy):
    n = strategy.num_replicas_in_sync
    distributed = strategy.experimental_distribute_dataset(tf.data.Dataset.range(4 * n).batch(2 * n))
    assert distributed.cardinality == 2 and isinstance(distributed.cardinality, np.int64)
    assert strategy.experimental_distribute_dataset(tf.data.Dataset.range(4).repeat().batch(n)).cardinality == -1
    filtered = tf.data.Dataset.range(8).filter(lambda x: x > 2).batch(n)
    assert strategy.experimental_distribute_dataset(filtered).cardinality == -2
    from_function = strategy.distribute_datasets_from_function(lambda ctx: tf.data.Dataset.range(8).batch(2))
    assert from_function.cardinality == 4


def test_distributed_dataset_reduce_visits_every_step(strategy):
    n = strategy.num_replicas_in_sync
    distributed = strategy.experimental_distribute_dataset(tf.data.Dataset.range(4 * n).batch(2 * n))
    total = distributed.reduce(tf.constant(0, tf.int64), lambda state, x: state + strategy.reduce("SUM", x, axis=0))
    assert int(total) == sum(range(4 * n))
    steps = distributed.reduce(0, lambda state, _: state + 1)
    assert steps == 2
    # A partial last batch: replicas without data get empty batches, the sum is still exact.
    partial = strategy.experimental_distribute_dataset(tf.data.Dataset.range(3 * n - 1).batch(2 * n))
    assert int(partial.reduce(tf.constant(0, tf.int64), lambda s, x: s + strategy.reduce("SUM", x, axis=0))) == \
        sum(range(3 * n - 1))


@pytest.mark.parametrize("value,dtype,expected_hex", [
    ([[1.0, 2.0], [3.0, 4.0]], "float32", "08011208120208021202080222100000803f000000400000404000008040"),
    ([1, 2, 3], "int64", "08091204120208032218010000000000000002000000000000000300000000000000"),
    (5, "int32", "08031200220405000000"),
    ([True, False], "bool", "080a12041202080222020100"),
    (np.zeros((0, 2), np.float32), "float32", "08011206120012020802"),
    ([1.5], "float16", "08131204120208012202003e"),
    ([2.5], "float64", "080212041202080122080000000000000440"),
], ids=["f32_2x2", "i64", "i32_scalar", "bool", "empty", "f16", "f64"])
def test_serialize_tensor_writes_tf_bytes_and_parse_tensor_reads_them(value, dtype, expected_hex):
    t = tf.constant(value, dtype)
    serialized = tf.io.serialize_tensor(t)
    assert serialized.numpy().hex() == expected_hex
    parsed = tf.io.parse_tensor(serialized, dtype)
    assert parsed.dtype.name == dtype and tuple(parsed.shape) == tuple(np.shape(value))
    np.testing.assert_array_equal(parsed.numpy(), np.asarray(value))


def test_string_tensors_and_other_encodings():
    strings = np.array([b"ab", b"c"], dtype=object)
    serialized = tf.io.serialize_tensor(strings)
    assert serialized.numpy().hex() == "080712041202080242026162420163"
    assert tf.io.parse_tensor(serialized, tf.string).numpy().tolist() == [b"ab", b"c"]
    # Typed repeated fields (written by other producers), a single value filling the shape, no value -> zeros.
    packed_float = bytes.fromhex("0801120412020803" + "2a0400002040")
    assert tf.io.parse_tensor(packed_float, tf.float32).numpy().tolist() == [2.5, 2.5, 2.5]
    assert tf.io.parse_tensor(bytes.fromhex("08031204120208033a0105"), tf.int32).numpy().tolist() == [5, 5, 5]
    assert int(tf.io.parse_tensor(bytes.fromhex("080312001a0405000000"), tf.int32)) == 0


def test_parse_tensor_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Type mismatch between parsed tensor \(float\) and dtype \(int32\)"):
        tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant(1.0)), tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse"):
        tf.io.parse_tensor(bytes.fromhex("080912001a02"), tf.int64)
    with pytest.raises(TypeError, match="serialized"):
        tf.io.parse_tensor(3, tf.int32)


@pytest.mark.parametrize("proto_hex, dtype, expected", [
    ("0803120412020802" "3d09000000" "3807", "int32", [7, 7]),  # an int_val as fixed32, then one as a varint
    ("08074201614005", "string", b"a"),  # a string_val as a varint
    ("08011005" "2d0000c03f", "float32", 1.5),  # the shape as a varint
    ("0801120412020802" "2005" "2a080000803f00000040", "float32", [1.0, 2.0]),  # tensor_content as a varint
], ids=["int_val_fixed32", "string_val_varint", "shape_varint", "content_varint"])
def test_parse_tensor_skips_fields_of_another_wire_type(proto_hex, dtype, expected):
    # Protobuf keeps a known field that comes in another wire type as an unknown one, so TF 2.21 ignores it
    # (values observed there); reading it raised TypeError / ValueError or took wrong values.
    parsed = tf.io.parse_tensor(bytes.fromhex(proto_hex), getattr(tf, dtype))
    assert np.asarray(parsed.numpy()).tolist() == expected


def test_boolean_mask_indexing():
    t = tf.constant([1, 2, 3, 4])
    assert t[t > 2].numpy().tolist() == [3, 4]
    assert t[np.array([True, False, True, False])].numpy().tolist() == [1, 3]
    m = tf.constant([[1, 2], [3, 4]])
    assert m[tf.constant([True, False])].numpy().tolist() == [[1, 2]]
    assert m[:, 1].numpy().tolist() == [2, 4] and int(m[1, 0]) == 3  # other indices are unchanged
    v = tf.Variable([1.0, 2.0, 3.0])
    assert v[v > 1.5].numpy().tolist() == [2.0, 3.0]
    assert tf.boolean_mask(t, [True, False, True, False]).numpy().tolist() == [1, 3]


def _example(values):
    feature = {"a": tf.train.Feature(int64_list=tf.train.Int64List(value=values))} if values is not None else {}
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def test_fixed_len_sequence_feature():
    sequence = tf.io.FixedLenSequenceFeature
    batch = tf.io.parse_example([_example([1, 2, 3]), _example([4]), _example(None)],
                                {"a": sequence([], tf.int64, allow_missing=True)})["a"]
    assert batch.dtype == tf.int64 and batch.numpy().tolist() == [[1, 2, 3], [4, 0, 0], [0, 0, 0]]
    pairs = tf.io.parse_example([_example([1, 2, 3, 4]), _example([5, 6])],
                                {"a": sequence([2], tf.int64, allow_missing=True, default_value=-1)})["a"]
    assert pairs.numpy().tolist() == [[[1, 2], [3, 4]], [[5, 6], [-1, -1]]]
    single = tf.io.parse_single_example(_example([1, 2, 3, 4]), {"a": sequence([2], tf.int64, allow_missing=True)})
    assert single["a"].numpy().tolist() == [[1, 2], [3, 4]]
    assert tuple(tf.io.parse_single_example(_example(None), {"a": sequence([2], tf.int64, allow_missing=True)})
                 ["a"].shape) == (0, 2)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Key: a, Index: 0. Number of int64 values is not a "
                                                             r"multiple of stride length. Saw 3 values"):
        tf.io.parse_example([_example([1, 2, 3])], {"a": sequence([2], tf.int64, allow_missing=True)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="should be divisible by 2, found 3"):
        tf.io.parse_single_example(_example([1, 2, 3]), {"a": sequence([2], tf.int64, allow_missing=True)})
    with pytest.raises(ValueError, match="requires allow_missing to be True"):
        tf.io.parse_example([_example([1])], {"a": sequence([], tf.int64)})
    assert repr(sequence([], tf.int64)) == \
        "FixedLenSequenceFeature(shape=[], dtype=tf.int64, allow_missing=False, default_value=None)"
