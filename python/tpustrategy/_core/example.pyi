"""
tf.train.Example protos (private; use tpustrategy.io).
"""
from __future__ import annotations
import collections.abc
import typing
__all__: list[str] = ['message_parse', 'message_serialize', 'parse_examples']
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
def message_parse(message: str, serialized: bytes) -> typing.Any:
    """
    Parses one tf.train message.
    
    Args:
      message: the message type's name, as message_serialize takes it.
      serialized: the message's bytes.
    
    Returns:
      BytesList / FloatList / Int64List: [values]; Feature: (kind, [values]), kind 0 none, 1 bytes, 2 float,
      3 int64; Features: {key: Feature}; FeatureList: [Feature]; FeatureLists: {key: FeatureList}; Example: Features
      or None (the field unset); SequenceExample: (Features or None, FeatureLists or None).
    
    Raises:
      InvalidArgumentError: malformed bytes. ValueError: an unknown message name.
    """
def message_serialize(message: str, value: typing.Any) -> bytes:
    """
    Serializes one tf.train message from its wire form (see message_parse).
    
    Args:
      message: the message type's name: "BytesList", "FloatList", "Int64List", "Feature", "Features", "FeatureList",
        "FeatureLists", "Example" or "SequenceExample".
      value: the message in the form message_parse returns.
    
    Returns:
      The message's bytes, as TF's deterministic serialization writes them.
    
    Raises:
      ValueError: an unknown message name or feature kind.
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
