"""``tpustrategy.io``: TFRecord files (mirrors the TFRecord part of ``tf.io``)."""

from __future__ import annotations

from tpustrategy.io.tf_record import TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator

__all__ = ["TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter", "tf_record_iterator"]
