"""``keras.layers.Add``: the elementwise sum of a list of same-shaped inputs."""

from __future__ import annotations

from tpustrategy.keras.layers.layer import Layer


def check_merge_inputs(layer, inputs):
    if not isinstance(inputs, list | tuple) or len(inputs) < 1:
        raise ValueError(f"A merge layer should be called on a list of inputs. Received: inputs={inputs!r} "
                         "(not a list of tensors)")
    return list(inputs)


class Add(Layer):
    def build(self, input_shape):
        if not isinstance(input_shape, list | tuple) or not input_shape or not isinstance(input_shape[0], tuple | list):
            raise ValueError(f"A merge layer should be called on a list of inputs. Received: input_shape={input_shape}"
                             " (not a list of shapes)")
        self.built = True

    def call(self, inputs):
        inputs = check_merge_inputs(self, inputs)
        total = inputs[0]
        for x in inputs[1:]:
            total = total + x
        return total
