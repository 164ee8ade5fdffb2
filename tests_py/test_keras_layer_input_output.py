"""Layer.input / Layer.output as Keras 3.15.1 gives them: the first symbolic call's KerasTensors, flattened, a
single one on its own; an InputLayer's input is an empty list (its node has no inputs) and its output the
KerasTensor; an uncalled layer raises AttributeError. (Each expectation below is what the reference Keras in
~/.cache/tpustrategy-references returned for the same program.)"""

from __future__ import annotations

import pytest

import tpustrategy as tf

keras = tf.keras
pytestmark = pytest.mark.usefixtures("fresh_keras_names")


def test_input_layers_input_is_empty_and_output_is_its_tensor():
    x = keras.Input(shape=(3,), name="inp")
    input_layer = keras.Model(x, keras.layers.Dense(2)(x)).layers[0]
    assert type(input_layer).__name__ == "InputLayer"
    assert input_layer.input == []
    assert input_layer.output is x
    layer = keras.layers.InputLayer(shape=(2,))
    assert layer.input == []
    assert tuple(layer.output.shape) == (None, 2)
    assert layer.output.dtype == "float32"


def test_called_layers_give_their_first_calls_tensors_flattened():
    a, b = keras.Input((2,)), keras.Input((2,))
    dense = keras.layers.Dense(4)
    y = dense(a)
    dense(b)
    assert dense.input is a
    assert dense.output is y
    add = keras.layers.Add()
    add([a, b])
    assert len(add.input) == 2 and add.input[0] is a and add.input[1] is b
    concat = keras.layers.Concatenate()
    concat([a])
    assert concat.input is a  # a one-tensor list comes out on its own

    class Two(keras.layers.Layer):
        def call(self, first, second):
            return first + second, {"k": first}

    two = Two()
    two(a, b)
    assert [t is a for t in two.input] == [True, False]
    assert isinstance(two.output, list) and len(two.output) == 2


def test_an_uncalled_layer_has_no_input_or_output():
    dense = keras.layers.Dense(4, name="never_called")
    with pytest.raises(AttributeError, match="never_called has never been called and thus has no defined input"):
        _ = dense.input
    with pytest.raises(AttributeError, match="has no defined output"):
        _ = dense.output
