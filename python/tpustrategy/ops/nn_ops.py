"""Neural-network activations (mirrors ``tf.nn``)."""

from __future__ import annotations

from tpustrategy import _core
from tpustrategy.ops._args import axis_int

_ops = _core.ops


def relu(features, name=None):
    """max(features, 0) (tf.nn.relu)."""
    return _ops.relu(features)


def sigmoid(x, name=None):
    """1 / (1 + exp(-x)) (tf.nn.sigmoid)."""
    return _ops.sigmoid(x)


def tanh(x, name=None):
    """tanh(x) (tf.nn.tanh)."""
    return _ops.tanh(x)


def softmax(logits, axis=None, name=None):
    """exp(logits) / sum(exp(logits)) over `axis` (default -1), computed stably (tf.nn.softmax)."""
    return _ops.softmax(logits, -1 if axis is None else axis_int(axis))


def log_softmax(logits, axis=None, name=None):
    """logits - log(sum(exp(logits))) over `axis` (default -1), computed stably (tf.nn.log_softmax)."""
    return _ops.log_softmax(logits, -1 if axis is None else axis_int(axis))
