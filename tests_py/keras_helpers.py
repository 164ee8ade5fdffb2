"""Helpers for the Keras tests: a layer's forward pass and gradients checked against numpy; a test run on one
device and again under a MirroredStrategy."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import tpustrategy as tf


def one_device_and_mirrored(n: int) -> pytest.MarkDecorator:
    """Runs a test with `replicas` 0 (no strategy: one device) and `n` (MirroredStrategy over TPU:0 .. n-1)."""
    return pytest.mark.parametrize("replicas", [0, n], ids=["one_device", f"mirrored{n}"])


def mirrored_or_none(replicas: int):
    """MirroredStrategy over TPU:0 .. replicas-1, or None for 0 (the test runs on one device)."""
    return tf.distribute.MirroredStrategy([f"TPU:{i}" for i in range(replicas)]) if replicas else None


def scope_of(strategy):
    """`strategy.scope()`, or a no-op context for None."""
    return strategy.scope() if strategy is not None else contextlib.nullcontext()

RNG = np.random.default_rng(0)


def _numeric_grad(fn, array, eps=1e-4):
    """d sum(fn(array) * probe) / d array by central differences (fn in float64)."""
    grad = np.zeros_like(array, dtype=np.float64)
    flat = array.reshape(-1)
    g = grad.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        up = fn()
        flat[i] = old - eps
        down = fn()
        flat[i] = old
        g[i] = (up - down) / (2 * eps)
    return grad


def check_layer(layer, x, numpy_forward, training=None, rtol=2e-3, atol=2e-4):
    """Forward equals numpy_forward(x, *weights); gradients of sum(out * probe) w.r.t. x and every
    trainable weight equal central differences of the numpy forward."""
    x = np.asarray(x, np.float32)
    kwargs = {} if training is None else {"training": training}
    out = layer(x, **kwargs)
    weights = [np.asarray(w, np.float64) for w in layer.get_weights()]
    expected = numpy_forward(x.astype(np.float64), *weights)
    np.testing.assert_allclose(np.asarray(out), expected, rtol=rtol, atol=atol)
    probe = RNG.normal(size=expected.shape)
    x_tensor = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x_tensor)
        y = layer(x_tensor, **kwargs)
        target = tf.reduce_sum(y * tf.constant(probe.astype(np.float32)))
    trainable = layer.trainable_weights
    grads = tape.gradient(target, [x_tensor] + list(trainable))
    x64 = x.astype(np.float64)
    expected_dx = _numeric_grad(lambda: float(np.sum(numpy_forward(x64, *weights) * probe)), x64)
    np.testing.assert_allclose(np.asarray(grads[0]), expected_dx, rtol=rtol, atol=atol * 10)
    trainable_ids = [id(w) for w in trainable]
    all_weights = layer.weights
    for grad, variable in zip(grads[1:], trainable, strict=True):
        index = [id(w) for w in all_weights].index(id(variable))
        assert id(variable) in trainable_ids
        expected_dw = _numeric_grad(lambda: float(np.sum(numpy_forward(x64, *weights) * probe)), weights[index])
        dense = grad.numpy() if hasattr(grad, "numpy") else np.asarray(tf.convert_to_tensor(grad))
        np.testing.assert_allclose(np.asarray(dense), expected_dw, rtol=rtol, atol=atol * 10)
    return out
