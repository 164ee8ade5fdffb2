"""tf.io.parse_single_sequence_example / parse_sequence_example; expected values, shapes and error texts are
TF 2.21's for the same protos (TF_WRITTEN is what TF 2.21's SerializeToString wrote for the first one)."""

from __future__ import annotations

import pytest

import tpustrategy as tf
from tpustrategy import errors

# TF 2.21: SequenceExample(context={"len": [2]}, feature_lists={"tok": [[1], [2, 3]], "vec": [[1., 2.], [3., 4.]],
# "w": [[b"a"], [b"a", b"a"]]}).SerializeToString()
TF_WRITTEN = bytes.fromhex(
    "0a0e0a0c0a036c656e12051a030a010212550a160a03746f6b120f0a051a030a01010a061a040a0202030a160a017712110a050a03"
    "0a01610a080a060a01610a01610a230a03766563121c0a0c120a0a080000803f000000400a0c120a0a080000404000008040")


def _feature(kind, values):
    lists = {"int": tf.train.Int64List, "float": tf.train.FloatList, "bytes": tf.train.BytesList}
    return tf.train.Feature(**{f"{kind}64_list" if kind == "int" else f"{kind}_list": lists[kind](value=values)})


def _sequence(length, tokens, vectors):
    lists = {"tok": tf.train.FeatureList(feature=[_feature("int", t) for t in tokens]),
             "vec": tf.train.FeatureList(feature=[_feature("float", v) for v in vectors]),
             "w": tf.train.FeatureList(feature=[_feature("bytes", [b"a"] * (i + 1)) for i in range(len(tokens))])}
    return tf.train.SequenceExample(context=tf.train.Features(feature={"len": _feature("int", [length])}),
                                    feature_lists=tf.train.FeatureLists(feature_list=lists)).SerializeToString()


CONTEXT = {"len": tf.io.FixedLenFeature([], tf.int64), "missing": tf.io.FixedLenFeature([], tf.int64, default_value=7)}
SEQUENCE = {"tok": tf.io.VarLenFeature(tf.int64), "vec": tf.io.FixedLenSequenceFeature([2], tf.float32),
            "w": tf.io.VarLenFeature(tf.string), "opt": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True)}


def _sparse(sp):
    return sp.indices.numpy().tolist(), sp.values.numpy().tolist(), sp.dense_shape.numpy().tolist()


def test_our_serialization_parses_like_tfs_bytes():
    # TF writes map entries in its hash-map order, we in key order (protobuf's deterministic order): the bytes
    # differ, the parsed values may not.
    ours = tf.io.parse_single_sequence_example(_sequence(2, [[1], [2, 3]], [[1.0, 2.0], [3.0, 4.0]]), CONTEXT,
                                               SEQUENCE)
    theirs = tf.io.parse_single_sequence_example(TF_WRITTEN, CONTEXT, SEQUENCE)
    assert ours[1]["vec"].numpy().tolist() == theirs[1]["vec"].numpy().tolist()
    assert _sparse(ours[1]["w"]) == _sparse(theirs[1]["w"]) and int(ours[0]["len"]) == int(theirs[0]["len"])


def test_parse_single_sequence_example_as_tf():
    context, lists = tf.io.parse_single_sequence_example(tf.constant(TF_WRITTEN), CONTEXT, SEQUENCE)
    assert int(context["len"]) == 2 and int(context["missing"]) == 7
    assert lists["vec"].shape == (2, 2) and lists["vec"].numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert lists["opt"].shape == (0,) and lists["opt"].dtype == tf.int64
    assert _sparse(lists["tok"]) == ([[0, 0], [1, 0], [1, 1]], [1, 2, 3], [2, 2])
    assert _sparse(lists["w"]) == ([[0, 0], [1, 0], [1, 1]], [b"a", b"a", b"a"], [2, 2])


def test_parse_sequence_example_pads_and_reports_lengths_as_tf():
    batch = [TF_WRITTEN, _sequence(1, [[4]], [[5.0, 6.0]])]
    context, lists, lengths = tf.io.parse_sequence_example(batch, CONTEXT, SEQUENCE)
    assert context["len"].numpy().tolist() == [2, 1] and context["missing"].numpy().tolist() == [7, 7]
    assert lists["vec"].numpy().tolist() == [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [0.0, 0.0]]]
    assert lists["opt"].shape == (2, 0)
    assert _sparse(lists["tok"]) == ([[0, 0, 0], [0, 1, 0], [0, 1, 1], [1, 0, 0]], [1, 2, 3, 4], [2, 2, 2])
    assert sorted(lengths) == ["opt", "vec"]
    assert lengths["vec"].numpy().tolist() == [2, 1] and lengths["opt"].numpy().tolist() == [0, 0]


def test_sequence_parse_errors_are_tfs():
    with pytest.raises(errors.InvalidArgumentError, match="Feature list 'nope' is required but could not be found"):
        tf.io.parse_single_sequence_example(TF_WRITTEN, None, {"nope": tf.io.FixedLenSequenceFeature([], tf.int64)})
    with pytest.raises(errors.InvalidArgumentError, match=r"Total values size: 4 is not consistent with output "
                                                          r"shape: \[\?,3\]"):
        tf.io.parse_single_sequence_example(TF_WRITTEN, None, {"vec": tf.io.FixedLenSequenceFeature([3], tf.float32)})
    with pytest.raises(errors.InvalidArgumentError, match="Data types don't match"):
        tf.io.parse_single_sequence_example(TF_WRITTEN, None, {"tok": tf.io.FixedLenSequenceFeature([], tf.float32)})
    with pytest.raises(errors.InvalidArgumentError):
        tf.io.parse_single_sequence_example(b"\xff\xff", None, {"tok": tf.io.VarLenFeature(tf.int64)})
    with pytest.raises(ValueError, match="Unsupported FixedLenFeature"):
        tf.io.parse_single_sequence_example(TF_WRITTEN, None, {"vec": tf.io.FixedLenFeature([2], tf.float32)})
    with pytest.raises(ValueError, match="at least one"):
        tf.io.parse_single_sequence_example(TF_WRITTEN)


def test_sequence_examples_in_a_pipeline():
    ds = tf.data.Dataset.from_tensor_slices([TF_WRITTEN, TF_WRITTEN]).map(
        lambda s: tf.io.parse_single_sequence_example(s, None, {"vec": SEQUENCE["vec"]})[1]["vec"])
    assert [v.numpy().tolist() for v in ds] == [[[1.0, 2.0], [3.0, 4.0]]] * 2
