"""``tpustrategy.io``: TFRecord files and tf.train.Example parsing (mirrors those parts of ``tf.io``)."""

from __future__ import annotations

from tpustrategy.io.parsing import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    VarLenFeature,
    parse_example,
    parse_single_example,
)
from tpustrategy.io.sequence_parsing import parse_sequence_example, parse_single_sequence_example
from tpustrategy.io.tensor_proto import parse_tensor, serialize_tensor
from tpustrategy.io.tf_record import TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator
from tpustrategy.ops.string_ops import decode_csv, decode_raw

__all__ = [
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "TFRecordCompressionType",
    "TFRecordOptions",
    "TFRecordWriter",
    "VarLenFeature",
    "decode_csv",
    "decode_raw",
    "parse_example",
    "parse_sequence_example",
    "parse_single_example",
    "parse_single_sequence_example",
    "parse_tensor",
    "serialize_tensor",
    "tf_record_iterator",
]
