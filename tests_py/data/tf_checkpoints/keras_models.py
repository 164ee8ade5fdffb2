"""The Keras models of make_keras_model_checkpoints.py, for either framework (TF-free, so tests import it)."""


def build(keras_module):
    """The two models (``keras_module`` is Keras 3 or tpustrategy.keras)."""
    cnn = keras_module.Sequential([keras_module.Input((6, 6, 1)), keras_module.layers.Conv2D(2, 3),
                                   keras_module.layers.BatchNormalization(), keras_module.layers.MaxPooling2D(),
                                   keras_module.layers.Flatten(), keras_module.layers.Dense(3)])
    inputs = keras_module.Input((4,))
    a = keras_module.layers.Dense(3, activation="tanh")(inputs)
    b = keras_module.layers.Dense(3)(inputs)
    functional = keras_module.Model(inputs, keras_module.layers.Add()([a, b]))
    return {"keras_cnn": (cnn, (2, 6, 6, 1)), "keras_functional": (functional, (2, 4))}
