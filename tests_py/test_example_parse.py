"""tf.train.Example / SequenceExample wire format and tf.io.parse_example / parse_single_example.

The golden hex strings were produced by TensorFlow 2.21's ``SerializeToString(deterministic=True)``
on the same messages; the error texts are TF's parser's."""

from __future__ import annotations

import random

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import errors


def example(**features):
    return tf.train.Example(features=tf.train.Features(feature=features))


def floats(*v):
    return tf.train.Feature(float_list=tf.train.FloatList(value=list(v)))


def ints(*v):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=list(v)))


def strs(*v):
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=list(v)))


ABC = example(a=floats(1.5, 2.0), b=ints(1, -2, 300), c=strs(b"hi", b"there"))
ABC_TF_HEX = ("0a3f0a110a0161120c120a0a080000c03f000000400a160a016212111a0f0a0d01feffffffffffffffff01ac020a120a0163"
              "120d0a0b0a0268690a057468657265")


def test_serialization_is_byte_identical_to_tensorflow():
    assert ABC.SerializeToString().hex() == ABC_TF_HEX
    empty_lists = example(z=floats(), e=tf.train.Feature())
    assert empty_lists.SerializeToString().hex() == "0a100a050a016512000a070a017a12021200"
    seq = tf.train.SequenceExample(
        context=tf.train.Features(feature={"l": ints(5)}),
        feature_lists=tf.train.FeatureLists(feature_list={"t": tf.train.FeatureList(feature=[floats(1.0),
                                                                                             floats(2.0, 3.0)])}))
    assert seq.SerializeToString().hex() == ("0a0c0a0a0a016c12051a030a0105121f0a1d0a017412180a0812060a040000803f0a0c"
                                             "120a0a080000004000004040")
    assert tf.train.SequenceExample.FromString(seq.SerializeToString()) == seq


def test_round_trip_and_message_api():
    parsed = tf.train.Example.FromString(bytes.fromhex(ABC_TF_HEX))
    assert parsed == ABC
    assert parsed.features.feature["b"].int64_list.value == [1, -2, 300]
    assert parsed.features.feature["b"].WhichOneof("kind") == "int64_list"
    assert parsed.features.feature["a"].bytes_list.value == []  # unset oneof members read as empty
    copy = tf.train.Example()
    copy.CopyFrom(parsed)
    assert copy == ABC and copy is not parsed
    assert tf.train.FloatList(value=[0.1]).value == [float(np.float32(0.1))]
    with pytest.raises(TypeError):
        tf.train.Int64List(value=[1.5])
    with pytest.raises(TypeError):
        tf.train.BytesList(value=[3])


def test_parser_accepts_unpacked_repeated_values_and_unknown_fields():
    # int64_list with unpacked varints (tag 0x08) and float_list with fixed32 entries (tag 0x0d), plus an
    # unknown field 7 in Example: protobuf parsers accept all three.
    int_list = bytes([0x08, 0x05, 0x08, 0x07])
    float_list = bytes([0x0D]) + np.float32(2.5).tobytes()
    feature_i = bytes([0x1A, len(int_list)]) + int_list
    feature_f = bytes([0x12, len(float_list)]) + float_list
    entry_i = b"\x0a\x01i\x12" + bytes([len(feature_i)]) + feature_i
    entry_f = b"\x0a\x01f\x12" + bytes([len(feature_f)]) + feature_f
    features = b"\x0a" + bytes([len(entry_i)]) + entry_i + b"\x0a" + bytes([len(entry_f)]) + entry_f
    raw = b"\x0a" + bytes([len(features)]) + features + b"\x38\x01"
    parsed = tf.train.Example.FromString(raw)
    assert parsed.features.feature["i"].int64_list.value == [5, 7]
    assert parsed.features.feature["f"].float_list.value == [2.5]
    out = tf.io.parse_single_example(raw, {"i": tf.io.FixedLenFeature([2], tf.int64),
                                           "f": tf.io.FixedLenFeature([], tf.float32)})
    assert out["i"].numpy().tolist() == [5, 7] and float(out["f"]) == 2.5


def test_parse_example_dense_sparse_strings_and_defaults():
    other = example(a=floats(3.0, 4.0), b=ints(), c=strs(b"x", b"y"))
    out = tf.io.parse_example([ABC.SerializeToString(), other.SerializeToString()], {
        "a": tf.io.FixedLenFeature([2], tf.float32),
        "b": tf.io.VarLenFeature(tf.int64),
        "c": tf.io.FixedLenFeature([2], tf.string),
        "d": tf.io.FixedLenFeature([1, 2], tf.int64, default_value=[7, 8]),
    })
    assert out["a"].dtype == tf.float32 and out["a"].numpy().tolist() == [[1.5, 2.0], [3.0, 4.0]]
    assert out["b"].indices.numpy().tolist() == [[0, 0], [0, 1], [0, 2]]
    assert out["b"].dense_shape.numpy().tolist() == [2, 3]
    assert tf.sparse.to_dense(out["b"]).numpy().tolist() == [[1, -2, 300], [0, 0, 0]]
    assert out["c"].dtype == tf.string and out["c"].numpy().tolist() == [[b"hi", b"there"], [b"x", b"y"]]
    assert out["d"].shape == (2, 1, 2) and out["d"].numpy().tolist() == [[[7, 8]], [[7, 8]]]
    single = tf.io.parse_single_example(ABC.SerializeToString(), {"b": tf.io.VarLenFeature(tf.int64),
                                                                   "c": tf.io.VarLenFeature(tf.string)})
    assert single["b"].indices.numpy().tolist() == [[0], [1], [2]] and single["b"].dense_shape.numpy().tolist() == [3]
    assert single["c"].values.numpy().tolist() == [b"hi", b"there"]


def test_parse_example_errors_are_tfs():
    s = example(a=floats(1.0, 2.0, 3.0)).SerializeToString()
    with pytest.raises(errors.InvalidArgumentError, match=r"Key: a, Index: 0.  Number of float values != expected.  "
                       r"Values size: 3 but output shape: \[2\]"):
        tf.io.parse_example([s], {"a": tf.io.FixedLenFeature([2], tf.float32)})
    with pytest.raises(errors.InvalidArgumentError, match="Data types don't match. Data type: float but expected "
                       "type: int64"):
        tf.io.parse_example([s], {"a": tf.io.FixedLenFeature([3], tf.int64)})
    with pytest.raises(errors.InvalidArgumentError, match=r"Feature: b \(data type: float\) is required but could "
                       "not be found"):
        tf.io.parse_example([s], {"b": tf.io.FixedLenFeature([2], tf.float32)})
    with pytest.raises(errors.InvalidArgumentError, match="Could not parse example input"):
        tf.io.parse_example([s, b"\x0a\x05abc"], {"a": tf.io.FixedLenFeature([3], tf.float32)})
    with pytest.raises(ValueError, match="Unsupported dtype"):
        tf.io.parse_example([s], {"a": tf.io.FixedLenFeature([3], tf.int32)})
    with pytest.raises(ValueError, match="need to be known"):
        tf.io.parse_example([s], {"a": tf.io.FixedLenFeature([None], tf.float32)})
    with pytest.raises(tf.train.DecodeError, match="tensorflow.Example"):
        tf.train.Example.FromString(b"\x0a\x05abc")


def test_malformed_input_never_crashes():
    """Random junk, truncations and bit flips of valid protos: either parsed or a typed error."""
    rng = random.Random(1234)
    valid = ABC.SerializeToString()
    spec = {"a": tf.io.FixedLenFeature([2], tf.float32), "b": tf.io.VarLenFeature(tf.int64),
            "c": tf.io.VarLenFeature(tf.string)}
    cases = [bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 64))) for _ in range(300)]
    cases += [valid[:n] for n in range(len(valid))]
    for _ in range(300):
        flipped = bytearray(valid)
        flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
        cases.append(bytes(flipped))
    cases.append(b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01")  # an 11-byte varint length
    outcomes = {"ok": 0, "error": 0}
    for raw in cases:
        try:
            tf.io.parse_example([raw], spec)
            outcomes["ok"] += 1
        except errors.InvalidArgumentError:
            outcomes["error"] += 1
        try:
            tf.train.Example.FromString(raw)
        except tf.train.DecodeError:
            pass
    assert outcomes["error"] > 100 and outcomes["ok"] > 0


def test_tfrecord_pipeline_parses_examples(tmp_path):
    path = str(tmp_path / "ex.tfrecord")
    with tf.io.TFRecordWriter(path) as writer:
        for i in range(5):
            writer.write(example(x=floats(i, i + 0.5), name=strs(b"n%d" % i)).SerializeToString())
    spec = {"x": tf.io.FixedLenFeature([2], tf.float32), "name": tf.io.FixedLenFeature([], tf.string)}
    single = tf.data.TFRecordDataset(path).map(lambda r: tf.io.parse_single_example(r, spec))
    assert single.element_spec["x"] == tf.TensorSpec([2], tf.float32)
    first = next(single.batch(2).as_numpy_iterator())
    assert first["x"].tolist() == [[0.0, 0.5], [1.0, 1.5]] and first["name"].tolist() == [b"n0", b"n1"]
    batched = list(tf.data.TFRecordDataset(path).batch(2).map(lambda r: tf.io.parse_example(r, spec))
                   .as_numpy_iterator())
    assert [b["name"].tolist() for b in batched] == [[b"n0", b"n1"], [b"n2", b"n3"], [b"n4"]]
    assert batched[-1]["x"].tolist() == [[4.0, 4.5]]


def test_sparse_features_in_a_dataset():
    raw = ABC.SerializeToString()
    spec = {"b": tf.io.VarLenFeature(tf.int64)}
    ds = tf.data.Dataset.from_tensors(raw).map(lambda r: tf.io.parse_single_example(r, spec))
    assert repr(ds.element_spec) == "{'b': SparseTensorSpec(TensorShape([None]), tf.int64)}"
    assert [tf.sparse.to_dense(x["b"]).numpy().tolist() for x in ds] == [[1, -2, 300]]
    dense = tf.data.Dataset.from_tensors(raw).map(
        lambda r: tf.sparse.to_dense(tf.io.parse_single_example(r, spec)["b"]))
    assert [v.tolist() for v in dense.as_numpy_iterator()] == [[1, -2, 300]]


def test_parse_example_input_forms_and_sparse_indices():
    """A list, tuple or iterator of bytes, numpy.bytes_ or (ASCII) str, and numpy arrays of them, parse alike; a
    VarLenFeature's indices are (example, position) for any number of values per example, none included."""
    lengths = [0, 3, 1, 0, 0, 5, 2]
    protos = [example(v=ints(*range(i, i + n)), k=ints(i)).SerializeToString() for i, n in enumerate(lengths)]
    spec = {"v": tf.io.VarLenFeature(tf.int64), "k": tf.io.FixedLenFeature([], tf.int64)}
    expected = [[i, j] for i, n in enumerate(lengths) for j in range(n)]
    forms = [protos, tuple(protos), iter(protos), [np.bytes_(p) for p in protos], [p.decode("ascii") for p in protos],
             np.array(protos, dtype=object), tf.constant(protos)]
    for form in forms:
        out = tf.io.parse_example(form, spec)
        assert out["v"].indices.numpy().tolist() == expected
        assert out["v"].values.numpy().tolist() == [i + j for i, j in expected]
        assert out["v"].dense_shape.numpy().tolist() == [len(lengths), max(lengths)]
        assert out["k"].numpy().tolist() == list(range(len(lengths)))
    empty = tf.io.parse_example([], {"v": tf.io.VarLenFeature(tf.int64)})["v"]
    assert empty.indices.shape == (0, 2) and empty.dense_shape.numpy().tolist() == [0, 0]
    with pytest.raises(TypeError, match="serialized examples must be bytes, got int"):
        tf.io.parse_example((protos[0], 3), spec)
    with pytest.raises(UnicodeEncodeError):
        tf.io.parse_example(["\udc80"], spec)
