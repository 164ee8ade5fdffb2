"""
tf.train.Example protos (private; use tpustrategy.io).
"""
from __future__ import annotations
import collections.abc
__all__: list[str] = ['example_parse', 'example_serialize', 'parse_examples', 'sequence_example_parse', 'sequence_example_serialize']
def _parse_sequence_feature_lists(serialized: collections.abc.Sequence, configs: collections.abc.Sequence) -> list:
    """
    Parses the feature_lists of serialized SequenceExamples.
    
    Args:
      serialized: the SequenceExample protos, bytes (or str, read as UTF-8).
      configs: per feature list, (key, kind, var_len, shape, default (kind, values) or None).
    
    Returns:
      One (values, steps per example, values per step, present per example) per config.
    
    Raises:
      InvalidArgumentError: a malformed proto, a missing feature list without default, or a wrong kind or size.
      TypeError: an item of `serialized` is neither bytes nor str.
    """
def example_parse(serialized: bytes) -> dict:
    """
    Parses a tf.train.Example.
    
    Args:
      serialized: the Example proto's bytes.
    
    Returns:
      {key: (kind, values)}, kind 1 bytes, 2 float, 3 int64.
    
    Raises:
      InvalidArgumentError: malformed bytes.
    """
def example_serialize(features: dict) -> bytes:
    """
    Serializes a tf.train.Example.
    
    Args:
      features: {key: (kind, values)}, kind 1 bytes, 2 float, 3 int64 (0: a Feature with no list).
    
    Returns:
      The Example proto's bytes.
    
    Raises:
      ValueError: an invalid kind.
    """
def parse_examples(serialized: collections.abc.Sequence, configs: collections.abc.Sequence) -> list:
    """
    Parses serialized Examples (tf.io.parse_example).
    
    Args:
      serialized: the Example protos, bytes (or str, read as UTF-8).
      configs: per feature, (key, kind, var_len, shape, default (kind, values) or None).
    
    Returns:
      One (values, row_lengths, indices) numpy triple per config: for a var_len feature the values per example and
      the [len(values), 2] (example, position) int64 indices of its values; None and None for fixed-length features.
    
    Raises:
      InvalidArgumentError: a malformed Example, a missing feature without default, or a wrong kind or size.
      TypeError: an item of `serialized` is neither bytes nor str.
    """
def sequence_example_parse(serialized: bytes) -> tuple[dict, dict]:
    """
    Parses a tf.train.SequenceExample.
    
    Args:
      serialized: the SequenceExample proto's bytes.
    
    Returns:
      (context {key: (kind, values)}, feature_lists {key: [(kind, values), ...]}).
    
    Raises:
      InvalidArgumentError: malformed bytes.
    """
def sequence_example_serialize(context: dict, feature_lists: dict) -> bytes:
    """
    Serializes a tf.train.SequenceExample.
    
    Args:
      context: {key: (kind, values)}, as example_serialize takes.
      feature_lists: {key: [(kind, values), ...]}, one Feature per step.
    
    Returns:
      The SequenceExample proto's bytes.
    """
