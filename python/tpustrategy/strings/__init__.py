"""``tf.strings``: host ops over tf.string tensors (ops/string_ops.py)."""

from __future__ import annotations

from tpustrategy.ops.regex_ops import regex_full_match, regex_replace  # noqa: F401  (re-exported)
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

__all__ = ["as_string", "bytes_split", "join", "length", "lower", "reduce_join", "regex_full_match", "regex_replace",
           "split", "strip", "substr", "to_number", "upper"]
