"""The small models of the ``.keras`` cross-check, written once for both frameworks (``keras`` is Keras 3
or tpustrategy.keras): a Sequential CNN, a two-input functional model and a registered subclassed model.
Weights are set from a seeded numpy generator, so both frameworks build the same model."""

from __future__ import annotations

import numpy as np


def register(keras):
    """The subclassed model, registered as "tpus>TwoDense" in `keras`."""

    @keras.saving.register_keras_serializable(package="tpus")
    class TwoDense(keras.Model):
        def __init__(self, units=4, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.hidden = keras.layers.Dense(units, activation="tanh")
            self.head = keras.layers.Dense(2)

        def call(self, inputs, training=None):
            return self.head(self.hidden(inputs))

        def get_config(self):
            return {**super().get_config(), "units": self.units}

    return TwoDense


def build(keras, two_dense=None) -> dict:
    """name -> (model, inputs); models compiled and given deterministic weights."""
    keras.utils.set_random_seed(0)  # Dropout's masks in the training step
    rng = np.random.default_rng(11)
    seq = keras.Sequential([keras.Input((6, 6, 1)), keras.layers.Conv2D(2, 3, activation="relu"),
                            keras.layers.MaxPooling2D(), keras.layers.Flatten(),
                            keras.layers.Dense(5, activation="relu"),
                            keras.layers.BatchNormalization(), keras.layers.Dropout(0.2), keras.layers.Dense(3)],
                           name="seq_cnn")
    a, b = keras.Input((4,), name="a"), keras.Input((3,), name="b")
    x = keras.layers.Concatenate()([keras.layers.Dense(5, name="da")(a), keras.layers.Dense(5, name="db")(b)])
    x = keras.layers.LayerNormalization()(x)
    func = keras.Model([a, b], keras.layers.Dense(2, activation="softmax", name="out")(x), name="two_inputs")
    sub = (two_dense or register(keras))(units=3, name="two_dense")
    sub(np.zeros((1, 5), np.float32))  # built by a call (Keras 3 records the build shape on the first call)
    models = {"seq_cnn": (seq, rng.normal(size=(2, 6, 6, 1)).astype(np.float32)),
              "two_inputs": (func, (rng.normal(size=(2, 4)).astype(np.float32),
                                    rng.normal(size=(2, 3)).astype(np.float32))),
              "two_dense": (sub, rng.normal(size=(2, 5)).astype(np.float32))}
    for model, _ in models.values():
        model.set_weights([rng.normal(scale=0.5, size=w.shape).astype(np.float32) + (1.5 if "variance" in w.name
                                                                                    else 0.0)
                           for w in model.weights])
        model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    return models


def predictions(models) -> dict:
    return {name: np.asarray(model.predict(inputs, verbose=0), np.float64).tolist()
            for name, (model, inputs) in models.items()}


TARGET_WIDTH = {"seq_cnn": 3, "two_inputs": 2, "two_dense": 2}


def train_one_step(models) -> None:
    """One Adam step towards zero targets, so the optimizer's variables exist and are saved."""
    for name, (model, inputs) in models.items():
        model.train_on_batch(inputs, np.zeros((2, TARGET_WIDTH[name]), np.float32))
