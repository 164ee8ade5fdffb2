"""
tf.train.Example protos (private; use tpustrategy.io).
"""
from __future__ import annotations
import collections.abc
__all__: list[str] = ['example_parse', 'example_serialize', 'parse_examples', 'sequence_example_parse', 'sequence_example_serialize']
def _parse_sequence_feature_lists(serialized: collections.abc.Sequence, configs: collections.abc.Sequence) -> list:
    """
    Parses the feature_lists of serialized SequenceExamples: one (values, steps per example, values per step,
    present per example) per config (key, kind, var_len, shape, default).
    """
def example_parse(serialized: bytes) -> dict:
    """
    Parses a tf.train.Example into {key: (kind, values)}; InvalidArgumentError if malformed.
    """
def example_serialize(features: dict) -> bytes:
    """
    Serializes {key: (kind, values)} as a tf.train.Example (kind: 1 bytes, 2 float, 3 int64).
    """
def parse_examples(serialized: collections.abc.Sequence, configs: collections.abc.Sequence) -> list:
    """
    Parses serialized Examples into one (values, row_lengths or None) per config.
    """
def sequence_example_parse(serialized: bytes) -> tuple[dict, dict]:
    ...
def sequence_example_serialize(context: dict, feature_lists: dict) -> bytes:
    ...
