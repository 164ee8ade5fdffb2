"""The tf.train protobuf messages (Example and every part of it) have protobuf's message API:
SerializeToString / FromString / ParseFromString / MergeFromString / CopyFrom / MergeFrom / Clear / ByteSize and
equality, with TensorFlow 2.21's bytes and merge semantics (data/tf_train_messages/reference.json, written by the
program there with TF)."""

from __future__ import annotations

import pytest
from keras_program_helpers import load_program

import tpustrategy as tf

program, REFERENCE = load_program("tf_train_messages")
OURS = program.run_all(tf)


@pytest.mark.parametrize("case", sorted(REFERENCE))
def test_message_api_matches_tensorflow(case):
    assert OURS[case] == REFERENCE[case]


@pytest.mark.parametrize("name", sorted(program._messages(tf.train)))
def test_tensorflows_bytes_parse_back_to_the_same_message(name):
    message = program._messages(tf.train)[name]
    parsed = type(message).FromString(bytes.fromhex(REFERENCE[f"serialize {name}"]))
    assert parsed == message
    assert parsed.SerializeToString() == message.SerializeToString()


def test_merge_does_not_alias_the_other_message():
    other = tf.train.Feature(int64_list=tf.train.Int64List(value=[2]))
    into = tf.train.Feature(float_list=tf.train.FloatList(value=[1.0]))
    into.MergeFrom(other)
    into.int64_list.value.append(3)
    assert other.int64_list.value == [2]
    assert into.int64_list.value == [2, 3]


def test_bad_bytes_raise_decode_error_naming_the_message():
    with pytest.raises(tf.train.DecodeError, match="tensorflow.FeatureList"):
        tf.train.FeatureList().ParseFromString(b"\x0a\x05ab")
    with pytest.raises(TypeError, match="expected bytes, str found"):
        tf.train.BytesList().MergeFromString("abc")
