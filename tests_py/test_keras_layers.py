"""tf.keras layers: each layer's forward pass against a numpy implementation, and its gradients (inputs
and weights) against central differences of that numpy implementation in float64."""

from __future__ import annotations

import numpy as np
import pytest
from keras_helpers import check_layer

import tpustrategy as tf
from tpustrategy import keras

layers = keras.layers
RNG = np.random.default_rng(1)


def test_dense_forward_and_gradients_with_activation():
    layer = layers.Dense(3, activation="tanh", kernel_initializer=keras.initializers.GlorotUniform(seed=1))
    check_layer(layer, RNG.normal(size=(4, 5)), lambda x, k, b: np.tanh(x @ k + b))
    assert [tuple(w.shape) for w in layer.weights] == [(5, 3), (3,)]


def test_dense_on_rank3_inputs_and_without_bias():
    layer = layers.Dense(2, use_bias=False)
    check_layer(layer, RNG.normal(size=(2, 3, 4)), lambda x, k: x @ k)
    assert len(layer.weights) == 1


def test_flatten_reshape_activation_relu_softmax():
    x = RNG.normal(size=(2, 3, 4))
    check_layer(layers.Flatten(), x, lambda x: x.reshape(2, -1))
    check_layer(layers.Reshape((4, 3)), x, lambda x: x.reshape(2, 4, 3))
    check_layer(layers.Reshape((-1,)), x, lambda x: x.reshape(2, 12))
    check_layer(layers.Activation("sigmoid"), x, lambda x: 1 / (1 + np.exp(-x)))
    check_layer(layers.ReLU(max_value=0.5, negative_slope=0.1), x + 0.01,
                lambda x: np.minimum(np.where(x > 0, x, 0.1 * x), 0.5))

    def softmax(x):
        e = np.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    check_layer(layers.Softmax(), x, softmax)


def test_add_and_concatenate():
    a, b = RNG.normal(size=(3, 4)).astype(np.float32), RNG.normal(size=(3, 2)).astype(np.float32)
    np.testing.assert_allclose(np.asarray(layers.Add()([a, a * 2])), a * 3, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(layers.Concatenate()([a, b])), np.concatenate([a, b], -1))
    ta, tb = tf.constant(a), tf.constant(b)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([ta, tb])
        out = layers.Concatenate()([ta, tb])
        total = tf.reduce_sum(out * tf.constant(np.arange(18, dtype=np.float32).reshape(3, 6)))
        added = tf.reduce_sum(layers.Add()([ta, ta]))
    ga, gb = tape.gradient(total, [ta, tb])
    np.testing.assert_array_equal(np.asarray(ga), np.arange(18).reshape(3, 6)[:, :4])
    np.testing.assert_array_equal(np.asarray(gb), np.arange(18).reshape(3, 6)[:, 4:])
    np.testing.assert_array_equal(np.asarray(tape.gradient(added, ta)), np.full((3, 4), 2.0))
    with pytest.raises(ValueError, match="matching shapes except for the concatenation axis"):
        layers.Concatenate()([np.zeros((2, 3, 4), np.float32), np.zeros((2, 5, 5), np.float32)])


def test_lambda_layer():
    check_layer(layers.Lambda(lambda x: x * 3.0 + 1.0), RNG.normal(size=(2, 3)), lambda x: x * 3 + 1)
    with pytest.raises(TypeError, match="callable"):
        layers.Lambda(3)


def test_embedding_lookup_and_gradient_rows():
    layer = layers.Embedding(10, 4, embeddings_initializer=keras.initializers.RandomNormal(seed=3))
    ids = np.array([[1, 2], [2, 9]])
    out = layer(ids)
    table = layer.get_weights()[0]
    np.testing.assert_allclose(np.asarray(out), table[ids])
    with tf.GradientTape() as tape:
        total = tf.reduce_sum(layer(ids))
    grad = tape.gradient(total, layer.embeddings)
    dense = np.asarray(tf.convert_to_tensor(grad))
    expected = np.zeros((10, 4))
    for i in ids.reshape(-1):
        expected[i] += 1
    np.testing.assert_array_equal(dense, expected)


def test_layer_normalization_forward_and_gradients():
    layer = layers.LayerNormalization(epsilon=1e-3,
                                      gamma_initializer=keras.initializers.RandomUniform(0.5, 1.5, seed=2),
                                      beta_initializer=keras.initializers.RandomNormal(seed=4))

    def numpy_ln(x, gamma, beta):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-3) * gamma + beta

    check_layer(layer, RNG.normal(size=(3, 5)), numpy_ln)


def test_batch_normalization_training_inference_and_moving_statistics():
    layer = layers.BatchNormalization(momentum=0.9, epsilon=1e-3)
    x = RNG.normal(loc=2.0, size=(6, 3))

    def numpy_bn_train(x, gamma, beta, moving_mean, moving_var):
        mean, var = x.mean(0), x.var(0)
        return (x - mean) / np.sqrt(var + 1e-3) * gamma + beta

    layer(x.astype(np.float32), training=False)  # build
    before_mean = layer.moving_mean.numpy().copy()
    check_layer(layer, x, numpy_bn_train, training=True)
    # moving mean moved toward the batch mean (check_layer ran training calls)
    assert np.all(np.abs(layer.moving_mean.numpy() - before_mean) > 0)
    gamma, beta, mm, mv = layer.get_weights()
    expected = (x - mm) / np.sqrt(mv + 1e-3) * gamma + beta
    np.testing.assert_allclose(np.asarray(layer(x.astype(np.float32), training=False)), expected, rtol=1e-4, atol=1e-5)
    assert [w.name.split(":")[0] for w in layer.weights] == ["gamma", "beta", "moving_mean", "moving_variance"]
    assert len(layer.trainable_weights) == 2 and len(layer.non_trainable_weights) == 2


def test_batch_normalization_one_training_step_moves_statistics_by_momentum():
    layer = layers.BatchNormalization(momentum=0.75)
    x = RNG.normal(size=(8, 2)).astype(np.float32)
    layer(x, training=True)
    np.testing.assert_allclose(layer.moving_mean.numpy(), 0.25 * x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(layer.moving_variance.numpy(), 0.75 + 0.25 * x.var(0), rtol=1e-5)


def test_frozen_batch_normalization_runs_in_inference_mode():
    layer = layers.BatchNormalization()
    x = RNG.normal(size=(4, 2)).astype(np.float32)
    layer(x)
    layer.trainable = False
    out = layer(x, training=True)
    np.testing.assert_allclose(np.asarray(out), x / np.sqrt(1 + 1e-3), rtol=1e-5)
    assert layer.trainable_weights == [] and len(layer.non_trainable_weights) == 4


def test_dropout_training_scales_kept_values_and_is_identity_in_inference():
    layer = layers.Dropout(0.5, seed=7)
    x = np.ones((50, 40), np.float32)
    np.testing.assert_array_equal(np.asarray(layer(x)), x)
    out = np.asarray(layer(x, training=True))
    assert set(np.unique(out)) <= {0.0, 2.0}
    assert 0.4 < (out == 0).mean() < 0.6
    with pytest.raises(ValueError, match="Expected a float value between 0 and 1"):
        layers.Dropout(1.5)
    x_tensor = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x_tensor)
        total = tf.reduce_sum(layer(x_tensor, training=True))
    grad = np.asarray(tape.gradient(total, x_tensor))
    assert set(np.unique(grad)) <= {0.0, 2.0}


def test_initializers_are_deterministic_with_seeds_and_have_keras_statistics():
    init = keras.initializers
    a = init.GlorotUniform(seed=5)((200, 100))
    np.testing.assert_array_equal(np.asarray(a), np.asarray(init.GlorotUniform(seed=5)((200, 100))))
    limit = np.sqrt(6 / 300)
    assert np.abs(np.asarray(a)).max() <= limit and np.asarray(a).std() == pytest.approx(limit / np.sqrt(3), rel=0.05)
    he = np.asarray(init.HeNormal(seed=1)((400, 300)))
    assert he.std() == pytest.approx(np.sqrt(2 / 400), rel=0.05)
    assert np.abs(he).max() <= 2 * np.sqrt(2 / 400) / 0.8796 + 1e-6
    assert np.asarray(init.HeUniform(seed=1)((100, 50))).max() <= np.sqrt(6 / 100)
    assert np.asarray(init.GlorotNormal(seed=1)((300, 300))).std() == pytest.approx(np.sqrt(1 / 300), rel=0.05)
    tn = np.asarray(init.TruncatedNormal(stddev=1.0, seed=2)((10000,)))
    assert np.abs(tn).max() <= 2.0
    np.testing.assert_array_equal(np.asarray(init.Constant(3.0)((2, 2))), np.full((2, 2), 3.0))
    np.testing.assert_array_equal(np.asarray(init.Zeros()((2,))), [0, 0])
    np.testing.assert_array_equal(np.asarray(init.Ones()((2,))), [1, 1])
    ru = np.asarray(init.RandomUniform(-1, 1, seed=3)((1000,)))
    assert -1 <= ru.min() and ru.max() <= 1
    assert np.asarray(init.RandomNormal(stddev=2.0, seed=3)((5000,))).std() == pytest.approx(2.0, rel=0.05)
    keras.utils.set_random_seed(11)
    first = np.asarray(init.GlorotUniform()((3, 3)))
    keras.utils.set_random_seed(11)
    np.testing.assert_array_equal(first, np.asarray(init.GlorotUniform()((3, 3))))
    with pytest.raises(ValueError, match="Could not interpret initializer"):
        init.get("nope")


def test_regularizers_add_losses():
    layer = layers.Dense(2, kernel_regularizer=keras.regularizers.L2(0.1), bias_regularizer=keras.regularizers.L1(0.5),
                         bias_initializer="ones")
    layer(np.ones((1, 3), np.float32))
    kernel = layer.get_weights()[0]
    losses = [float(v) for v in layer.losses]
    assert losses == pytest.approx([0.1 * np.sum(kernel ** 2), 0.5 * 2.0], rel=1e-5)
    l1l2 = keras.regularizers.L1L2(l1=0.1, l2=0.2)
    assert float(l1l2(np.array([1.0, -2.0], np.float32))) == pytest.approx(0.1 * 3 + 0.2 * 5)
    with pytest.raises(ValueError, match="non-negative"):
        keras.regularizers.L2(-1.0)


def test_weights_api_and_errors():
    layer = layers.Dense(2, name="d")
    with pytest.raises(ValueError, match="isn't built"):
        layer.count_params()
    layer(np.ones((1, 3), np.float32))
    assert layer.count_params() == 8
    with pytest.raises(ValueError, match="expecting 2 weights"):
        layer.set_weights([np.zeros((3, 2))])
    before = layer.get_weights()
    with pytest.raises(ValueError, match="not compatible"):
        layer.set_weights([np.zeros((3, 2)), np.zeros((3,))])
    np.testing.assert_array_equal(layer.get_weights()[0], before[0])  # nothing half-assigned
    layer.set_weights([np.ones((3, 2)), np.full((2,), 2.0)])
    np.testing.assert_array_equal(np.asarray(layer(np.ones((1, 3), np.float32))), [[5.0, 5.0]])
    with pytest.raises(ValueError, match="invalid value for `units`"):
        layers.Dense(0)
    with pytest.raises(ValueError, match="Unrecognized keyword arguments"):
        layers.Dense(2, bogus=1)
    assert repr(layer) == "<Dense name=d, built=True>"
    assert isinstance(layer, tf.Module)


def test_layer_names_are_unique_and_reset_by_clear_session():
    keras.backend.clear_session()
    assert [layers.Dense(1).name for _ in range(3)] == ["dense", "dense_1", "dense_2"]
    keras.backend.clear_session()
    assert layers.Dense(1).name == "dense"


def test_symbolic_shape_inference_through_layers():
    x = keras.Input((6, 4))
    assert x.shape == (None, 6, 4)
    assert layers.Dense(3)(x).shape == (None, 6, 3)
    assert layers.Flatten()(x).shape == (None, 24)
    assert layers.Reshape((3, 8))(x).shape == (None, 3, 8)
    assert layers.Concatenate(axis=1)([x, x]).shape == (None, 12, 4)
    seq = keras.Input((None,), dtype="int32")
    assert layers.Embedding(5, 2)(seq).shape == (None, None, 2)
    with pytest.raises(ValueError, match="must be unchanged"):
        layers.Reshape((5, 5))(x)


def test_custom_layer_with_add_weight_and_training_flag():
    class Scale(layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")

        def call(self, inputs, training=None):
            return inputs * self.w * (2.0 if training else 1.0)

    layer = Scale()
    x = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(np.asarray(layer(x)), x)
    np.testing.assert_array_equal(np.asarray(layer(x, training=True)), 2 * x)
    assert [tuple(w.shape) for w in layer.trainable_weights] == [(3,)]
