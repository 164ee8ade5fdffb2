"""tf.io.parse_tensor reads TensorProtos as TF 2.21 does where the proto leaves things out: a typed repeated
field with no values gives the dtype's default (b'' for strings), fewer values than the shape repeat the last
one, extra ones are dropped, a Dim with a name but no size has size 0, and half_val holds 16-bit patterns.
Each proto below was written by TF's tensor_pb2.TensorProto(...).SerializeToString(), and the value is what
TF's parse_tensor gave for it."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf

# (TensorProto hex, out_type, TF's value as a list, TF's shape)
CASES = {
    "string scalar, no string_val": ("08071200", tf.string, b"", ()),
    "string [3], no string_val": ("0807120412020803", tf.string, [b"", b"", b""], (3,)),
    "string [3], two string_val": ("0807120412020803420178420179", tf.string, [b"x", b"y", b"y"], (3,)),
    "string scalar, two string_val": ("08071200420178420179", tf.string, b"x", ()),
    "float, dim with a name only": ("08011209120712056261746368", tf.float32, [], (0,)),
    "string, dim with a name only": ("08071209120712056261746368", tf.string, [], (0,)),
    "int32 [2, named 0]": ("0803120c120508021201611203120162", tf.int32, [[], []], (2, 0)),
    "int32 named dim of size 2": ("08031207120508021201613a020405", tf.int32, [4, 5], (2,)),
    "int32 [3], two int_val": ("08031204120208033a020405", tf.int32, [4, 5, 5], (3,)),
    "float [3], two float_val": ("08011204120208032a080000803f00000040", tf.float32, [1.0, 2.0, 2.0], (3,)),
    "int64 [2], three int64_val": ("08091204120208025203010203", tf.int64, [1, 2], (2,)),
    "float16 half_val bits": ("08131204120208026a058078808001", tf.float16, [1.0, 2.0], (2,)),
    "bfloat16 half_val bits": ("080e1204120208036a05807f808001", tf.bfloat16, [1.0, 2.0, 2.0], (3,)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_parse_tensor_fills_what_the_proto_leaves_out_as_tf(case):
    hex_proto, out_type, value, shape = CASES[case]
    tensor = tf.io.parse_tensor(bytes.fromhex(hex_proto), out_type)
    assert tuple(tensor.shape) == shape
    got = np.asarray(tensor.numpy())
    if got.dtype != object:
        got = got.astype(np.float64) if out_type in (tf.float16, tf.bfloat16) else got
    assert got.tolist() == value


def test_a_tensor_content_of_the_wrong_size_is_an_error_as_in_tf():
    # tensor_content is the raw buffer: TF rejects one of the wrong length ("Cannot parse tensor from proto")
    # rather than repeating it (float [3] with 4 bytes of content).
    with pytest.raises(tf.errors.InvalidArgumentError, match="1 values for shape"):
        tf.io.parse_tensor(bytes.fromhex("08011204120208032204") + b"\0\0\x80\x3f", tf.float32)
