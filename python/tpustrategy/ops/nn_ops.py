"""Neural-network activations (mirrors ``tf.nn``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tpustrategy import _core
from tpustrategy.ops import _spmd_hook
from tpustrategy.ops._args import TensorLike, axis_int
from tpustrategy.ops._elementwise_entry import elementwise_entry

_ops = _core.ops


@elementwise_entry
def relu(features: TensorLike, name: str | None = None) -> Any:
    """max(features, 0) (tf.nn.relu)."""
    if _spmd_hook.active and _spmd_hook.sharded(features):
        return _spmd_hook.partitioner.unary("relu", features)
    return _ops.relu(features)


def softmax(logits: TensorLike, axis: Any = None, name: str | None = None) -> Any:
    """exp(logits) / sum(exp(logits)) over `axis` (default -1), computed stably (tf.nn.softmax)."""
    if _spmd_hook.active and _spmd_hook.sharded(logits):
        return _spmd_hook.partitioner.softmax(logits, -1 if axis is None else axis_int(axis))
    return _ops.softmax(logits, -1 if axis is None else axis_int(axis))


def log_softmax(logits: TensorLike, axis: Any = None, name: str | None = None) -> Any:
    """logits - log(sum(exp(logits))) over `axis` (default -1), computed stably (tf.nn.log_softmax)."""
    return _ops.log_softmax(logits, -1 if axis is None else axis_int(axis))


def _tensor(value: TensorLike, dtype: Any = None) -> Any:
    if isinstance(value, _core.tensor.Tensor):
        return value
    return _core.tensor.convert_to_tensor(value, dtype)


def relu6(features: TensorLike, name: str | None = None) -> Any:
    """min(max(features, 0), 6) (tf.nn.relu6)."""
    return _ops.minimum(_ops.relu(features), 6)


def leaky_relu(features: TensorLike, alpha: Any = 0.2, name: str | None = None) -> Any:
    """features where positive, alpha * features elsewhere (tf.nn.leaky_relu)."""
    x = _tensor(features)
    return _ops.where(_ops.greater(x, 0), x, _ops.multiply(x, alpha))


def l2_loss(t: TensorLike, name: str | None = None) -> Any:
    """sum(t ** 2) / 2 (tf.nn.l2_loss)."""
    x = _tensor(t)
    return _ops.divide(_ops.reduce_sum(_ops.square(x), None, keepdims=False), 2)


def softmax_cross_entropy_with_logits(labels: TensorLike, logits: TensorLike, axis: Any = -1,
                                      name: str | None = None) -> Any:
    """-sum(labels * log_softmax(logits)) over `axis` (tf.nn.softmax_cross_entropy_with_logits)."""
    x = _tensor(logits)
    y = _tensor(labels, x.dtype)
    ax = axis_int(axis)
    return _ops.negative(_ops.reduce_sum(_ops.multiply(y, _ops.log_softmax(x, ax)), [ax], keepdims=False))


def sparse_softmax_cross_entropy_with_logits(labels: TensorLike, logits: TensorLike, name: str | None = None) -> Any:
    """Cross entropy of integer class `labels` against `logits` [..., classes]
    (tf.nn.sparse_softmax_cross_entropy_with_logits).

    Raises:
      InvalidArgumentError: a label is outside [0, classes).
    """
    from tpustrategy import errors

    if _spmd_hook.active and _spmd_hook.sharded(labels, logits):
        return _spmd_hook.partitioner.sparse_softmax_cross_entropy_with_logits(labels, logits)
    x = _tensor(logits)
    y = _tensor(labels)
    classes = x._shape_tuple[-1] if x.ndim else 0
    values = np.asarray(y)
    if values.size and (values.min() < 0 or values.max() >= classes):
        bad = values[(values < 0) | (values >= classes)].reshape(-1)[0]
        raise errors.InvalidArgumentError(
            None, None, f"Received a label value of {bad} which is outside the valid range of [0, {classes})."
        )
    if tuple(y._shape_tuple) != tuple(x._shape_tuple[:-1]):
        raise errors.InvalidArgumentError(
            None, None, f"labels shape {y._shape_tuple} must equal logits shape {x._shape_tuple} without its last axis"
        )
    onehot = _ops.one_hot(y, classes, on_value=None, off_value=None, axis=-1, dtype=x.dtype)
    return _ops.negative(_ops.reduce_sum(_ops.multiply(onehot, _ops.log_softmax(x, -1)), [-1], keepdims=False))


def sigmoid_cross_entropy_with_logits(labels: TensorLike = None, logits: TensorLike = None,
                                      name: str | None = None) -> Any:
    """Elementwise logistic loss, computed stably as max(x, 0) - x * z + log(1 + exp(-|x|))
    (tf.nn.sigmoid_cross_entropy_with_logits)."""
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")
    x = _tensor(logits)
    z = _tensor(labels, x.dtype)
    softplus = _ops.log(_ops.add(_ops.exp(_ops.negative(_ops.abs(x))), 1))
    return _ops.add(_ops.subtract(_ops.relu(x), _ops.multiply(x, z)), softplus)
