"""tf.strings and tf.io.decode_raw / decode_csv, numpy-backed (string values are bytes / object arrays of bytes),
checked against what TF's kernel tests assert (string_length_op_test, string_join_op_test, substr_op_test,
string_to_number_op_test, string_split_op_test, decode_raw_op_test, decode_csv_op_test) with TF 2.21's values."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf

WORDS = [b"hello world", b"a,b", b""]


def test_length_join_and_reduce_join():
    lengths = tf.strings.length(WORDS)
    assert lengths.dtype == tf.int32 and lengths.numpy().tolist() == [11, 3, 0]
    assert tf.strings.length(["héllo"], unit="UTF8_CHAR").numpy().tolist() == [5]
    assert int(tf.strings.length(b"abc")) == 3
    assert tf.strings.join([["a", "b"], ["c", "d"]], separator="-").numpy().tolist() == [b"a-c", b"b-d"]
    assert tf.strings.join(["a", "b"]) == b"ab"
    assert tf.strings.join([["x", "y"], "z"], separator=".").numpy().tolist() == [b"x.z", b"y.z"]  # broadcast
    assert tf.strings.reduce_join(["a", "b", "c"], separator=",") == b"a,b,c"
    assert tf.strings.reduce_join([["a", "b"], ["c", "d"]], axis=1).numpy().tolist() == [b"ab", b"cd"]
    with pytest.raises(ValueError, match="unit"):
        tf.strings.length(WORDS, unit="BITS")


def test_substr_and_to_number():
    assert tf.strings.substr(WORDS[:2], 1, 3).numpy().tolist() == [b"ell", b",b"]
    assert tf.strings.substr(b"hello", -3, 2) == b"ll"
    with pytest.raises(tf.errors.InvalidArgumentError, match="pos 1 out of range for string b'' at index 2"):
        tf.strings.substr(WORDS, 1, 3)
    numbers = tf.strings.to_number(["1.5", "2"])
    assert numbers.dtype == tf.float32 and numbers.numpy().tolist() == [1.5, 2.0]
    assert tf.strings.to_number(["3", "-4"], out_type=tf.int64).numpy().tolist() == [3, -4]
    with pytest.raises(tf.errors.InvalidArgumentError, match="could not correctly convert string: x"):
        tf.strings.to_number(["x"])


def test_split_and_bytes_split_of_scalars():
    assert tf.strings.bytes_split(b"abc").numpy().tolist() == [b"a", b"b", b"c"]
    assert tf.strings.split(b"a b  c").numpy().tolist() == [b"a", b"b", b"c"]
    assert tf.strings.split(b"a,b,,c", sep=",").numpy().tolist() == [b"a", b"b", b"", b"c"]
    assert tf.strings.split(b"   ").numpy().tolist() == []
    ragged = tf.strings.split([b"a b", b"c"])  # rank 1 in: a RaggedTensor out, as TF 2.21
    assert isinstance(ragged, tf.RaggedTensor) and ragged.to_list() == [[b"a", b"b"], [b"c"]]
    assert tf.strings.upper(b"ab") == b"AB" and tf.strings.strip(b"  a ") == b"a"
    assert tf.strings.as_string([1, 2]).numpy().tolist() == [b"1", b"2"]


def test_decode_raw():
    assert tf.io.decode_raw(b"\x01\x00\x00\x00\x02\x00\x00\x00", tf.int32).numpy().tolist() == [1, 2]
    batch = tf.io.decode_raw([b"\x01\x00\x00\x00", b"\x02\x00\x00\x00"], tf.int32)
    assert tuple(batch.shape) == (2, 1) and batch.numpy().tolist() == [[1], [2]]
    assert tf.io.decode_raw(b"\x00\x00\x80\x3f", tf.float32).numpy().tolist() == [1.0]
    assert tf.io.decode_raw(b"\x3f\x80\x00\x00", tf.float32, little_endian=False).numpy().tolist() == [1.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="element 1 has size 4 != 2"):
        tf.io.decode_raw([b"\x01\x00\x00\x00", b"\x02\x00"], tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="length 3 that is not a multiple of 4"):
        tf.io.decode_raw(b"\x01\x00\x00", tf.int32)


def test_decode_csv():
    ints, floats, words = tf.io.decode_csv([b"1,2.5,x", b"3,,y"],
                                           record_defaults=[tf.constant(0), tf.constant(9.0), [""]])
    assert ints.dtype == tf.int32 and ints.numpy().tolist() == [1, 3]
    assert floats.dtype == tf.float32 and floats.numpy().tolist() == [2.5, 9.0]
    assert words.numpy().tolist() == [b"x", b"y"]
    a, b = tf.io.decode_csv(b"1,2", record_defaults=[[0], [0]])
    assert (int(a), int(b)) == (1, 2)
    quoted = tf.io.decode_csv([b'"a,b",2'], record_defaults=[[""], [0]])
    assert quoted[0].numpy().tolist() == [b"a,b"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expect 2 fields but have 1 in record 0"):
        tf.io.decode_csv([b"1"], record_defaults=[[0], [0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 1 is required but missing in record 0!"):
        tf.io.decode_csv([b"1,"], record_defaults=[[0], tf.constant(np.zeros(0, np.int32))])


def test_string_ops_in_a_pipeline():
    lines = tf.data.Dataset.from_tensor_slices([b"1,0.5", b"2,1.5", b"3,2.5"])
    parsed = lines.map(lambda line: tf.io.decode_csv(line, record_defaults=[[0], [0.0]])).batch(3)
    ids, values = next(iter(parsed))
    assert ids.numpy().tolist() == [1, 2, 3] and values.numpy().tolist() == [0.5, 1.5, 2.5]
    lengths = tf.data.Dataset.from_tensor_slices([b"ab", b"cde"]).map(tf.strings.length)
    assert [int(x) for x in lengths] == [2, 3]
