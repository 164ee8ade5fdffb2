"""``tf.strings``: host ops over tf.string tensors (ops/string_ops.py)."""

from __future__ import annotations

from tpustrategy.ops.string_ops import (  # noqa: F401  (re-exported)
    as_string,
    bytes_split,
    join,
    length,
    lower,
    reduce_join,
    split,
    strip,
    substr,
    to_number,
    upper,
)

__all__ = ["as_string", "bytes_split", "join", "length", "lower", "reduce_join", "split", "strip", "substr",
           "to_number", "upper"]
