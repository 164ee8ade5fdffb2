"""``tpustrategy.nn``: activations (mirrors ``tf.nn``)."""

from __future__ import annotations

from tpustrategy.ops.nn_ops import log_softmax, relu, sigmoid, softmax, tanh  # noqa: F401
