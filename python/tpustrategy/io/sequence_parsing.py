"""``tf.io.parse_single_sequence_example`` and ``tf.io.parse_sequence_example``.

The context of a SequenceExample has the wire layout of an Example's features, so the Example parser reads it
(io/parsing.py). The feature lists are parsed in C++ (parse_sequence_feature_lists in
cpp/tpustrategy/data/example_parse.cc): per feature, every step's values in order, the step count per
example and the value count per step; here they become TF's outputs. FixedLenSequenceFeature -> dense
``[steps, *shape]`` (batched: ``[batch, max steps, *shape]`` padded with the default, plus the step counts in
the lengths dict); VarLenFeature -> SparseTensor with indices ``[step, j]`` (batched ``[example, step, j]``).
Error types and texts follow TF 2.21's ParseSequenceExampleV2 kernel.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.framework.sparse_tensor import SparseTensor
from tpustrategy.framework.string_tensor import StringTensor
from tpustrategy.framework.tensor import Tensor
from tpustrategy.io.parsing import (
    FeatureConfig,
    FixedLenSequenceFeature,
    VarLenFeature,
    _kind_of,
    known_dims,
    parse_features,
    serialized_list,
    single_serialized,
)


def parse_single_sequence_example(serialized: Any, context_features: dict[str, Any] | None = None,
                                  sequence_features: dict[str, Any] | None = None, example_name: Any = None,
                                  name: str | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Parses one serialized SequenceExample into (context dict, feature list dict)."""
    context, lists, _ = _parse([single_serialized(serialized)], context_features, sequence_features, batched=False)
    return context, lists


def parse_sequence_example(serialized: Any, context_features: dict[str, Any] | None = None,
                           sequence_features: dict[str, Any] | None = None, example_names: Any = None,
                           name: str | None = None) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Parses a vector of serialized SequenceExamples into (context, feature lists, feature list lengths)."""
    return _parse(serialized_list(serialized), context_features, sequence_features, batched=True)


def _parse(serialized: Sequence[Any], context_features: dict[str, Any] | None,
           sequence_features: dict[str, Any] | None,
           batched: bool) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    if not context_features and not sequence_features:
        raise ValueError("Must provide at least one context_feature or sequence_feature.")
    context = parse_features(serialized, dict(context_features), batched) if context_features else {}
    lists: dict[str, Any] = {}
    lengths: dict[str, Any] = {}
    if sequence_features:
        keys = sorted(sequence_features)
        configs = [_config(key, sequence_features[key]) for key in keys]
        columns = _core.example._parse_sequence_feature_lists(serialized, configs)
        for key, column in zip(keys, columns, strict=True):
            feature = sequence_features[key]
            if isinstance(feature, VarLenFeature):
                lists[key] = _sparse(column, batched)
            else:
                lists[key], steps = _dense(key, feature, column, batched)
                lengths[key] = _core.tensor.constant(steps, _core.tensor.int64)
    return context, lists, lengths


def _config(key: str, feature: object) -> FeatureConfig:
    if isinstance(feature, FixedLenSequenceFeature):
        known_dims(key, feature.shape)
        return (key, _kind_of(feature.dtype), True, [], None)
    if isinstance(feature, VarLenFeature):
        return (key, _kind_of(feature.dtype), True, [], None)
    raise ValueError(f"Unsupported {type(feature).__name__} {feature} for key {key!r}")


def _values(values: np.ndarray) -> Tensor | StringTensor:
    return StringTensor(values) if values.dtype == object else _core.tensor.constant(values)


def _dense(key: str, feature: FixedLenSequenceFeature, column: Sequence[np.ndarray],
           batched: bool) -> tuple[Tensor | StringTensor, np.ndarray]:
    values, steps, step_lengths, present = column
    item_shape = known_dims(key, feature.shape)
    stride = int(np.prod(item_shape)) if item_shape else 1
    is_string = values.dtype == object
    step_at = np.cumsum(steps) - steps
    for index in range(len(steps)):
        if not present[index] and not feature.allow_missing:
            raise errors.InvalidArgumentError(
                None, None, f"Name: <unknown>, Feature list '{key}' is required but could not be found.  Did you "
                f"mean to include it in feature_list_dense_missing_assumed_empty or feature_list_dense_defaults?")
        mine = step_lengths[step_at[index]:step_at[index] + steps[index]]
        if np.any(mine != stride):
            dims = ",".join(["?", *map(str, item_shape)])
            raise errors.InvalidArgumentError(
                None, None, f"Feature list '{key}' has an unexpected number of values.  Total values size: "
                f"{int(mine.sum())} is not consistent with output shape: [{dims}]")
    if not batched:
        return _values(values.reshape([int(steps[0]), *item_shape])), steps
    width = int(steps.max()) if len(steps) else 0
    default = feature.default_value
    if default is None:
        default = b"" if is_string else 0
    out = np.full([len(steps), width * stride], default, dtype=object if is_string else values.dtype)
    starts = (np.cumsum(steps) - steps) * stride
    for row, (start, count) in enumerate(zip(starts.tolist(), steps.tolist(), strict=True)):
        out[row, :count * stride] = values[start:start + count * stride]
    return _values(out.reshape([len(steps), width, *item_shape])), steps


def _sparse(column: Sequence[np.ndarray], batched: bool) -> SparseTensor:
    values, steps, step_lengths, _ = column
    example_of_step = np.repeat(np.arange(len(steps), dtype=np.int64), steps)
    step_in_example = np.arange(len(step_lengths), dtype=np.int64) - np.repeat(np.cumsum(steps) - steps, steps)
    value_starts = np.cumsum(step_lengths) - step_lengths
    j = np.arange(len(values), dtype=np.int64) - np.repeat(value_starts, step_lengths)
    t = np.repeat(step_in_example, step_lengths)
    width_t = int(steps.max()) if len(steps) else 0
    width_j = int(step_lengths.max()) if len(step_lengths) else 0
    if batched:
        indices = np.stack([np.repeat(example_of_step, step_lengths), t, j], axis=1)
        shape = [len(steps), width_t, width_j]
    else:
        indices = np.stack([t, j], axis=1)
        shape = [width_t, width_j]
    sparse = SparseTensor(indices.reshape(-1, len(shape)), values if values.dtype == object else
                          _core.tensor.constant(values), shape)
    sparse._static_shape = [len(steps), None, None] if batched else [None, None]
    return sparse
