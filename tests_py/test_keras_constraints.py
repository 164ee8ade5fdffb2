"""``keras.constraints`` against numpy (Keras 3's formulas, epsilon 1e-7) and applied after each update."""

from __future__ import annotations

import json

import numpy as np
import pytest
from keras_helpers import mirrored_or_none, one_device_and_mirrored, scope_of

import tpustrategy as tf

keras = tf.keras
W = np.array([[3.0, -0.1, 0.2], [4.0, 0.3, -0.2]], np.float32)


def _norms(w, axis=0):
    return np.sqrt((w.astype(np.float64) ** 2).sum(axis=axis, keepdims=True))


@pytest.mark.parametrize(("constraint", "expected"), [
    (keras.constraints.MaxNorm(2.0), W * np.clip(_norms(W), 0, 2.0) / (1e-7 + _norms(W))),
    (keras.constraints.MaxNorm(1.0, axis=1), W * np.clip(_norms(W, 1), 0, 1.0) / (1e-7 + _norms(W, 1))),
    (keras.constraints.NonNeg(), np.maximum(W, 0)),
    (keras.constraints.UnitNorm(), W / (1e-7 + _norms(W))),
    (keras.constraints.MinMaxNorm(0.5, 1.0, rate=0.5),
     W * (0.5 * np.clip(_norms(W), 0.5, 1.0) + 0.5 * _norms(W)) / (1e-7 + _norms(W))),
], ids=["max_norm", "max_norm_axis1", "non_neg", "unit_norm", "min_max_norm"])
def test_constraint_values(constraint, expected):
    np.testing.assert_allclose(np.asarray(constraint(tf.constant(W))), expected, rtol=1e-6, atol=1e-7)
    clone = type(constraint).from_config(json.loads(json.dumps(constraint.get_config())))
    np.testing.assert_allclose(np.asarray(clone(tf.constant(W))), expected, rtol=1e-6, atol=1e-7)


@one_device_and_mirrored(4)
def test_constraints_are_applied_after_each_update(replicas):
    strategy = mirrored_or_none(replicas)
    with scope_of(strategy):
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(
            2, kernel_constraint=keras.constraints.MaxNorm(0.5), bias_constraint="non_neg")])
        model.compile(keras.optimizers.SGD(1.0), "mse")
    model.fit(np.ones((8, 3), np.float32), np.full((8, 2), -5.0, np.float32), batch_size=8, epochs=2, verbose=0)
    kernel, bias = model.get_weights()
    np.testing.assert_allclose(np.sqrt((kernel ** 2).sum(axis=0)), [0.5, 0.5], rtol=1e-5)
    assert (bias >= 0).all() and (bias == 0).all()  # the gradient pushes it negative; NonNeg zeroes it
    if strategy:
        for component in model.weights[0].values:
            np.testing.assert_array_equal(component.numpy(), kernel)


def test_constraints_in_layer_configs_and_errors():
    dense = keras.layers.Dense(2, kernel_constraint="unit_norm")
    config = json.loads(json.dumps(dense.get_config()))
    assert config["kernel_constraint"]["class_name"] == "UnitNorm"
    assert config["kernel_constraint"]["module"] == "keras.constraints"
    assert isinstance(keras.layers.Dense.from_config(config).kernel_constraint, keras.constraints.UnitNorm)
    with pytest.raises(ValueError, match="Could not interpret constraint identifier: 'nope'"):
        keras.layers.Dense(2, kernel_constraint="nope")
