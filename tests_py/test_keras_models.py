"""tf.keras models: Sequential / functional / subclassed structure, Keras 3's summary table, weights,
variables created in a strategy's scope, and save_weights / load_weights (.weights.h5)."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import keras

layers = keras.layers

# Printed by TF 2.21's tf.keras (Keras 3.15) for the same models, terminal width 80.
SEQUENTIAL_SUMMARY = """\
Model: "sequential"
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
│ dense (Dense)                   │ (None, 3)              │            15 │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ batch_normalization             │ (None, 3)              │            12 │
│ (BatchNormalization)            │                        │               │
├─────────────────────────────────┼────────────────────────┼───────────────┤
│ dense_1 (Dense)                 │ (None, 2)              │             8 │
└─────────────────────────────────┴────────────────────────┴───────────────┘
 Total params: 37 (152.00 B)
 Trainable params: 29 (116.00 B)
 Non-trainable params: 6 (24.00 B)
 Optimizer params: 2 (12.00 B)"""

FUNCTIONAL_SUMMARY = """\
Model: "functional"
┏━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┓
┃ Layer (type)        ┃ Output Shape      ┃    Param # ┃ Connected to      ┃
┡━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━┩
│ input_layer         │ (None, 4)         │          0 │ -                 │
│ (InputLayer)        │                   │            │                   │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ dense (Dense)       │ (None, 3)         │         15 │ input_layer[0][0] │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ dense_1 (Dense)     │ (None, 3)         │         15 │ input_layer[0][0] │
├─────────────────────┼───────────────────┼────────────┼───────────────────┤
│ add (Add)           │ (None, 3)         │          0 │ dense[0][0],      │
│                     │                   │            │ dense_1[0][0]     │
└─────────────────────┴───────────────────┴────────────┴───────────────────┘
 Total params: 30 (120.00 B)
 Trainable params: 30 (120.00 B)
 Non-trainable params: 0 (0.00 B)"""


@pytest.fixture(autouse=True)
def fresh_names(monkeypatch):
    keras.backend.clear_session()
    monkeypatch.setenv("COLUMNS", "80")
    yield


def _summary(model):
    lines = []
    model.summary(print_fn=lines.append)
    return "\n".join(lines)


def test_sequential_summary_matches_keras_3():
    model = keras.Sequential([keras.Input((4,)), layers.Dense(3), layers.BatchNormalization(), layers.Dense(2)])
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 4), np.float32), np.ones((4, 2), np.float32), verbose=0)
    assert _summary(model) == SEQUENTIAL_SUMMARY
    assert [w.name.split(":")[0] for w in model.weights] == ["kernel", "bias", "gamma", "beta", "moving_mean",
                                                              "moving_variance", "kernel", "bias"]


def test_functional_summary_matches_keras_3_with_connections():
    inputs = keras.Input((4,))
    outputs = layers.Add()([layers.Dense(3)(inputs), layers.Dense(3)(inputs)])
    model = keras.Model(inputs, outputs)
    assert _summary(model) == FUNCTIONAL_SUMMARY
    assert [layer.name for layer in model.layers] == ["input_layer", "dense", "dense_1", "add"]


def test_unbuilt_sequential_summary_shows_question_marks():
    model = keras.Sequential([layers.Dense(3)])
    text = _summary(model)
    assert "│ dense (Dense)                   │ ?                      │   0 (unbuilt) │" in text
    assert not model.built
    model(np.ones((2, 5), np.float32))
    assert model.built and model.count_params() == 18


def test_functional_model_matches_manual_computation():
    inputs = keras.Input((3,))
    hidden = layers.Dense(4, activation="relu")(inputs)
    outputs = layers.Dense(2)(layers.Concatenate()([hidden, inputs]))
    model = keras.Model(inputs=inputs, outputs=outputs)
    x = np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32)
    k1, b1, k2, b2 = model.get_weights()
    h = np.maximum(x @ k1 + b1, 0)
    np.testing.assert_allclose(np.asarray(model(x)), np.concatenate([h, x], 1) @ k2 + b2, rtol=1e-5, atol=1e-6)
    assert model.output.shape == (None, 2)


def test_multi_input_functional_model():
    a, b = keras.Input((2,), name="a"), keras.Input((3,), name="b")
    model = keras.Model([a, b], layers.Dense(1)(layers.Concatenate()([a, b])))
    out = model([np.ones((4, 2), np.float32), np.ones((4, 3), np.float32)])
    assert tuple(out.shape) == (4, 1)
    with pytest.raises(ValueError, match="expects 2 input"):
        model(np.ones((4, 2), np.float32))


def test_functional_errors():
    x = keras.Input((2,))
    with pytest.raises(ValueError, match="needs both"):
        keras.Model(inputs=x)
    with pytest.raises(ValueError, match="KerasTensors"):
        keras.Model(x, np.ones(2))


def test_subclassed_model_with_training_and_add_loss():
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = layers.Dense(4, activation="relu")
            self.dropout = layers.Dropout(0.5, seed=1)
            self.out = layers.Dense(1)

        def call(self, x, training=None):
            self.add_loss(tf.reduce_sum(x) * 0.0 + 1.5)
            return self.out(self.dropout(self.hidden(x), training=training))

    net = Net()
    x = np.ones((8, 3), np.float32)
    inference = np.asarray(net(x))
    np.testing.assert_array_equal(inference, np.asarray(net(x, training=False)))
    assert [float(v) for v in net.losses] == [1.5]
    assert net.name == "net"
    assert [layer.name for layer in net.layers] == ["dense", "dropout", "dense_1"]
    assert len(net.trainable_variables) == 4
    assert isinstance(net, tf.Module) and len(net.submodules) >= 3
    with pytest.raises(NotImplementedError, match=r"add_metric\(\)` method is deprecated"):
        net.add_metric(1.0)  # Keras 3 removed it


def test_sequential_add_pop_and_errors():
    model = keras.Sequential()
    model.add(layers.Dense(2, input_shape=(3,)))
    assert model.built and model.output_shape == (None, 2)
    model.add(layers.Dense(1))
    assert model.output_shape == (None, 1)
    model.pop()
    assert len(model.layers) == 1
    with pytest.raises(ValueError, match="Only instances of `keras.Layer`"):
        model.add("dense")
    with pytest.raises(ValueError, match="unique names"):
        model.add(layers.Dense(1, name=model.layers[0].name))


def test_trainable_flag_moves_weights():
    model = keras.Sequential([keras.Input((2,)), layers.Dense(2), layers.Dense(1)])
    model.layers[0].trainable = False
    assert len(model.trainable_weights) == 2 and len(model.non_trainable_weights) == 2
    model.trainable = False
    assert model.trainable_weights == [] and len(model.weights) == 4


@pytest.mark.parametrize("kind", ["mirrored8", "tpu"])
def test_model_built_in_scope_has_mirrored_weights(kind):
    if kind == "mirrored8":
        strategy = tf.distribute.MirroredStrategy([f"TPU:{i}" for i in range(8)])
    else:
        resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="")
        tf.tpu.experimental.initialize_tpu_system(resolver)
        strategy = tf.distribute.TPUStrategy(resolver)
    with strategy.scope():
        model = keras.Sequential([keras.Input((3,)), layers.Dense(2)])
        lazy = keras.Sequential([layers.Dense(2)])
    lazy(np.ones((1, 3), np.float32))  # built outside the scope, still the model's strategy's variables
    for m in (model, lazy):
        for w in m.weights:
            assert "Mirrored" in type(w).__name__
            assert len(w.values) == 8
            assert all(np.array_equal(v.numpy(), w.values[0].numpy()) for v in w.values)


def test_save_and_load_weights_round_trip(tmp_path):
    h5py = pytest.importorskip("h5py")
    model = keras.Sequential([keras.Input((4,)), layers.Dense(3), layers.BatchNormalization(), layers.Dense(2)])
    model.compile("adam", "mse")
    model.fit(np.ones((8, 4), np.float32), np.ones((8, 2), np.float32), verbose=0)
    path = tmp_path / "m.weights.h5"
    model.save_weights(path)
    with h5py.File(path, "r") as f:
        names = []
        f.visit(names.append)
        assert "layers/dense/vars/0" in names and "layers/batch_normalization/vars/3" in names
        assert f["layers/dense/vars"].attrs["name"] == "dense"
        assert f["optimizer/vars/0"][()] == 1  # iterations
        assert len(f["optimizer/vars"]) == 2 + 2 * 6  # iterations, learning rate, m and v per trainable
    keras.backend.clear_session()
    other = keras.Sequential([keras.Input((4,)), layers.Dense(3), layers.BatchNormalization(), layers.Dense(2)])
    other.load_weights(path)
    for a, b in zip(model.get_weights(), other.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match=r"must end in `\.weights\.h5`"):
        model.save_weights(tmp_path / "m.h5")
    with pytest.raises(FileNotFoundError):
        model.load_weights(tmp_path / "missing.weights.h5")
    keras.backend.clear_session()
    wrong = keras.Sequential([keras.Input((5,)), layers.Dense(3), layers.BatchNormalization(), layers.Dense(2)])
    before = wrong.get_weights()
    with pytest.raises(ValueError, match="shape"):
        wrong.load_weights(path)
    for a, b in zip(before, wrong.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)  # nothing assigned by a failed load


def test_weights_saved_under_a_strategy_load_on_one_device(tmp_path):
    pytest.importorskip("h5py")
    strategy = tf.distribute.MirroredStrategy([f"TPU:{i}" for i in range(8)])
    with strategy.scope():
        model = keras.Sequential([keras.Input((3,)), layers.Dense(2)])
    path = tmp_path / "w.weights.h5"
    model.save_weights(path)
    keras.backend.clear_session()
    single = keras.Sequential([keras.Input((3,)), layers.Dense(2)])
    single.load_weights(path)
    np.testing.assert_array_equal(single.get_weights()[0], model.get_weights()[0])
    keras.backend.clear_session()
    with strategy.scope():
        back = keras.Sequential([keras.Input((3,)), layers.Dense(2)])
    back.load_weights(path)
    assert all(np.array_equal(v.numpy(), model.get_weights()[0]) for v in back.weights[0].values)


@pytest.mark.skipif(not hasattr(tf.train, "Checkpoint"), reason="tf.train.Checkpoint not in this build (branch ckpt)")
def test_tf_train_checkpoint_of_a_keras_model_restores_under_another_strategy(tmp_path):
    x = np.random.default_rng(0).normal(size=(32, 3)).astype(np.float32)
    y = x @ np.ones((3, 2), np.float32)
    strategy = tf.distribute.MirroredStrategy([f"TPU:{i}" for i in range(8)])
    with strategy.scope():
        model = keras.Sequential([keras.Input((3,)), layers.Dense(4), layers.BatchNormalization(), layers.Dense(2)])
        model.compile("adam", "mse")
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    path = tf.train.Checkpoint(model=model).save(str(tmp_path / "ckpt"))
    keras.backend.clear_session()
    single = keras.Sequential([keras.Input((3,)), layers.Dense(4), layers.BatchNormalization(), layers.Dense(2)])
    tf.train.Checkpoint(model=single).restore(path)
    for a, b in zip(model.get_weights(), single.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
