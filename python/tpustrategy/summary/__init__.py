"""``tf.summary``: TensorBoard event files written as TF 2.21 writes them (see writer.py, summary_ops.py)."""

from __future__ import annotations

from tpustrategy.summary import experimental
from tpustrategy.summary.summary_ops import histogram, image, scalar, text
from tpustrategy.summary.writer import (
    SummaryWriter,
    create_file_writer,
    create_noop_writer,
    flush,
    record_if,
    should_record_summaries,
)

__all__ = [
    "SummaryWriter",
    "create_file_writer",
    "create_noop_writer",
    "experimental",
    "flush",
    "histogram",
    "image",
    "record_if",
    "scalar",
    "should_record_summaries",
    "text",
]
