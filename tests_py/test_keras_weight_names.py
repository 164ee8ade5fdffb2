"""Weight names and paths as Keras 3.15 (TF 2.21) gives them: ``name`` is the weight's own name, ``path`` the
name scope it was built in (observed with the reference Keras: a Sequential builds its layers inside its own
scope, a functional model's layers are built before the model exists, a subclassed model builds its layers
inside its call), and the optimizer's slots are ``<path with _>_<slot>`` under the optimizer's name."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf

keras = tf.keras


pytestmark = pytest.mark.usefixtures("fresh_keras_names")


def test_sequential_functional_subclassed_and_standalone_paths():
    seq = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2), keras.layers.BatchNormalization()])
    assert [(w.name, w.path) for w in seq.weights] == [
        ("kernel", "sequential/dense/kernel"), ("bias", "sequential/dense/bias"),
        ("gamma", "sequential/batch_normalization/gamma"), ("beta", "sequential/batch_normalization/beta"),
        ("moving_mean", "sequential/batch_normalization/moving_mean"),
        ("moving_variance", "sequential/batch_normalization/moving_variance")]
    inputs = keras.Input((3,))
    functional = keras.Model(inputs, keras.layers.Dense(2, name="dd")(inputs))
    assert [(w.name, w.path) for w in functional.weights] == [("kernel", "dd/kernel"), ("bias", "dd/bias")]

    class Sub(keras.Model):
        def __init__(self):
            super().__init__()
            self.d = keras.layers.Dense(2)

        def call(self, x):
            return self.d(x)

    sub = Sub()
    sub(np.ones((1, 3), np.float32))
    assert [(w.name, w.path) for w in sub.weights] == [("kernel", "sub/dense_1/kernel"), ("bias", "sub/dense_1/bias")]
    dense = keras.layers.Dense(2)
    dense(np.ones((1, 3), np.float32))
    assert [(w.name, w.path) for w in dense.weights] == [("kernel", "dense_2/kernel"), ("bias", "dense_2/bias")]
    optimizer = keras.optimizers.Adam()
    optimizer.apply_gradients([(tf.zeros((3, 2)), seq.weights[0])])
    slots = optimizer._slots[id(seq.weights[0])]
    assert [(v.name, v.path) for v in slots.values()] == [
        ("sequential_dense_kernel_momentum", "adam/sequential_dense_kernel_momentum"),
        ("sequential_dense_kernel_velocity", "adam/sequential_dense_kernel_velocity")]


def test_names_under_a_strategy():
    strategy = tf.distribute.MirroredStrategy(["TPU:0", "TPU:1"])
    with strategy.scope():
        dense = keras.layers.Dense(2, name="mir")
        dense(np.ones((1, 3), np.float32))
    assert [(w.name, w.path) for w in dense.weights] == [("kernel", "mir/kernel"), ("bias", "mir/bias")]
    assert "Mirrored" in type(dense.kernel).__name__
