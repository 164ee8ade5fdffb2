"""``tf.keras.Sequential`` (Keras 3): a stack of single-input, single-output layers.

With an ``Input`` first (or ``input_shape=`` on the first layer) the model is built as layers are added;
otherwise it builds on the first call, from that input's shape (batch dimension unknown). ``layers``
does not list the InputLayer, as Keras 3.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tpustrategy.keras.layers.input_layer import InputLayer
from tpustrategy.keras.layers.keras_tensor import KerasTensor
from tpustrategy.keras.layers.layer import Layer, name_scope
from tpustrategy.keras.models.model import Model


class Sequential(Model):
    """A model that applies its layers one after another (``keras.Sequential``).

    Args:
      layers: Layers to add in order (see ``add``); a ``keras.Input`` tensor first fixes the input shape.
      trainable: Whether the model's weights are trainable.
      name: The model's name; ``sequential``, ``sequential_1`` ... by default.

    Raises:
      ValueError: As ``add`` raises for one of `layers`.
    """

    def __init__(self, layers: Iterable[Layer | KerasTensor] | None = None, trainable: bool = True,
                 name: str | None = None) -> None:
        if name is None:
            from tpustrategy.keras import backend

            name = backend.unique_name("sequential")
        super().__init__(trainable=trainable, name=name)
        self._input_layer: InputLayer | None = None
        self._call_has_training_arg = True
        self.built = False
        for layer in layers or []:
            self.add(layer, rebuild=False)
        self._maybe_rebuild()

    def add(self, layer: Layer | KerasTensor, rebuild: bool = True) -> None:
        """Appends a layer (a KerasTensor from ``keras.Input`` adds its InputLayer)."""
        if isinstance(layer, KerasTensor) and layer._node is not None and isinstance(layer._node.layer, InputLayer):
            layer = layer._node.layer
        if not isinstance(layer, Layer):
            raise ValueError(f"Only instances of `keras.Layer` can be added to a Sequential model. Received: {layer!r} "
                             f"(of type {type(layer)})")
        if isinstance(layer, InputLayer):
            if self._input_layer is not None or self._layers:
                raise ValueError(f"Sequential model '{self.name}' has already been configured to use an input shape; "
                                 "an InputLayer can only be the first layer.")
            self._input_layer = layer
        else:
            if any(existing.name == layer.name for existing in self._layers):
                raise ValueError(f"All layers added to a Sequential model should have unique names. Name '{layer.name}'"
                                 " is already the name of a layer in this model. Update the `name` argument to pass a "
                                 "unique name.")
            if not self._layers and self._input_layer is None and layer._batch_input_shape is not None:
                self._input_layer = InputLayer(batch_shape=layer._batch_input_shape)
            self._layers.append(layer)
        self.built = False
        if rebuild:
            self._maybe_rebuild()

    def pop(self, rebuild: bool = True) -> Layer:
        """Removes and returns the last layer; with `rebuild`, rebuilds the model when its input shape is known.

        Raises:
          TypeError: The model has no layers.
        """
        if not self._layers:
            raise TypeError("There are no layers in the model.")
        layer: Layer = self._layers.pop()
        self.built = False
        if rebuild:
            self._maybe_rebuild()
        return layer

    def _maybe_rebuild(self) -> None:
        if self._input_layer is not None and self._layers:
            self.build(self._input_layer.batch_shape)
        elif self._input_layer is not None:
            self._output_shape_seen = self._input_layer.batch_shape

    @property
    def layers(self) -> list[Layer]:
        return list(self._layers)

    def build(self, input_shape: Any = None) -> None:
        if input_shape is None:
            if self._input_layer is None:
                raise ValueError("You must provide an `input_shape` argument.")
            input_shape = self._input_layer.batch_shape
        input_shape = (None,) + tuple(input_shape[1:])
        if not self._layers:
            raise ValueError(f"Sequential model {self.name} cannot be built because it has no layers. Call "
                             "`model.add(layer)`.")
        if self._input_layer is None:
            self._input_layer = InputLayer(batch_shape=input_shape)
        x = self._input_layer.output_tensor
        with name_scope(self.name, self):  # the layers' variables get "sequential/dense/kernel" paths, as Keras 3
            for layer in self._layers:
                x = layer(x)
        self._output_shape_seen = x.shape
        self.built = True

    def call(self, inputs: Any, training: bool | None = None, mask: Any = None) -> Any:
        x = inputs
        for layer in self._layers:
            x = layer(x, training=training) if layer._call_has_training_arg else layer(x)
        return x

    @property
    def inputs(self) -> Any:
        """``[the InputLayer's KerasTensor]`` once the input shape is known, else None."""
        return [self._input_layer.output_tensor] if self._input_layer is not None else None

    @property
    def input_shape(self) -> Any:
        """The input's batch shape (a tuple, batch dimension usually None) once known, else None."""
        return self._input_layer.batch_shape if self._input_layer is not None else None

    @property
    def output_shape(self) -> Any:
        """The output shape from the latest build (or first call), None before."""
        return self._output_shape_seen

    def get_config(self) -> dict[str, Any]:
        from tpustrategy.keras.models.model_config import sequential_config

        return sequential_config(self)

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Sequential:
        from tpustrategy.keras.models.model_config import sequential_from_config

        return sequential_from_config(cls, config, custom_objects)
