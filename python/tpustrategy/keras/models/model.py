"""``tf.keras.Model`` (Keras 3): functional (``Model(inputs, outputs)``) or subclassed (override ``call``).

Training, evaluation and prediction live in trainer.py; ``summary`` in summary.py. A model created in
``strategy.scope()`` remembers that strategy: its weights, optimizer slots and metrics are the strategy's
variables, and ``fit`` / ``evaluate`` / ``predict`` split each global batch across its replicas.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, cast

from tpustrategy.keras.layers.keras_tensor import KerasTensor
from tpustrategy.keras.layers.layer import Layer
from tpustrategy.keras.models.functional_graph import FunctionalGraph
from tpustrategy.keras.models.summary import print_summary
from tpustrategy.keras.models.trainer import Trainer
from tpustrategy.keras.saving import weights_h5


class Model(Trainer, Layer):
    """A layer with training methods.

    Functional: ``Model(inputs=keras.Input(...), outputs=...)``; subclassed: define layers in ``__init__``
    and the forward pass in ``call(inputs, training=None)``.

    Args:
      inputs, outputs: The functional form's input and output KerasTensors (nests of them), by keyword or as
        the first two positional arguments; neither for a subclassed model.
      **kwargs: Layer arguments (``name``, ``trainable``, ``dtype`` ...).

    Raises:
      TypeError: More than two positional arguments.
      ValueError: Only one of `inputs` and `outputs`, or both given to a subclass that defines ``call``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        inputs = kwargs.pop("inputs", None)
        outputs = kwargs.pop("outputs", None)
        if args and inputs is None:
            inputs, args = args[0], args[1:]
        if args and outputs is None:
            outputs, args = args[0], args[1:]
        if args:
            raise TypeError(f"Model() got unexpected positional arguments: {args}")
        self._graph: FunctionalGraph | None = None
        functional = inputs is not None or outputs is not None
        if functional and type(self).call is not Model.call:
            raise ValueError("A subclassed Model that defines `call` cannot also be given `inputs` and `outputs`.")
        if functional and (inputs is None or outputs is None):
            raise ValueError("A functional Model needs both `inputs` and `outputs`.")
        if functional:
            kwargs.setdefault("name", None)
            if kwargs["name"] is None:
                from tpustrategy.keras import backend

                kwargs["name"] = backend.unique_name("functional")
        Layer.__init__(self, **kwargs)
        Trainer.__init__(self)
        if functional:
            self._graph = FunctionalGraph(inputs, outputs)
            self._layers = list(self._graph.layers)
            self._call_has_training_arg = True
            self.built = True

    @property
    def inputs(self) -> Any:
        """A functional model's input KerasTensors as a flat list; None for a subclassed model."""
        return self._graph.flat_inputs if self._graph is not None else None

    @property
    def outputs(self) -> Any:
        """A functional model's output KerasTensors as a flat list; None for a subclassed model."""
        return self._graph.flat_outputs if self._graph is not None else None

    # Layer.input / Layer.output: mypy types a property read off the class as its getter, which has no fget.
    @property
    def input(self) -> Any:
        return self._graph.inputs if self._graph is not None else Layer.input.fget(self)  # type: ignore[attr-defined]

    @property
    def output(self) -> Any:
        return self._graph.outputs if self._graph is not None else Layer.output.fget(self)  # type: ignore[attr-defined]

    def call(self, inputs: Any, training: bool | None = None, mask: Any = None) -> Any:
        if self._graph is None:
            raise NotImplementedError(f"Model {self.name!r} has no `call`: subclass Model and define `call`, or build "
                                      "it with `Model(inputs, outputs)`.")
        return self._graph.run(inputs, training)

    def build(self, input_shape: Any) -> None:
        if self._graph is None and type(self).call is not Model.call and type(self).build is Model.build:
            # A subclassed model builds by calling itself on a symbolic input of that shape (Keras 3).
            self.built = True
            self._symbolic_call((KerasTensor(tuple(input_shape)),), {})
            self._inbound_nodes.pop()
            self._build_shapes = tuple(input_shape)  # saved as the build_config, so load_model can rebuild it
        self.built = True

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        """The layer at `index` in ``layers`` when an index is given, else the layer called `name`.

        Raises:
          ValueError: `index` is out of range, or no layer has that name.
        """
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(f"Was asked to retrieve layer at index {index} but model only has {len(self.layers)} "
                                 "layers.")
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}. Existing layers are: {[layer.name for layer in self.layers]}.")

    def summary(self, line_length: int | None = None, positions: list[float] | None = None,
                print_fn: Callable[..., Any] | None = None, expand_nested: bool = False, show_trainable: bool = False,
                layer_range: Any = None) -> None:
        """Prints Keras 3's table: each layer, its output shape and parameter count, then the totals."""
        print_summary(self, line_length=line_length, positions=positions, print_fn=print_fn)

    def get_config(self) -> dict[str, Any]:
        """A functional model's graph config (Keras 3's form); a subclassed model's constructor arguments."""
        if self._graph is not None and type(self) is Model:
            from tpustrategy.keras.models.model_config import functional_config

            return functional_config(self)
        return Layer.get_config(self)

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Model:
        if "input_layers" in config and "output_layers" in config and "layers" in config:
            from tpustrategy.keras.models.model_config import functional_from_config

            return functional_from_config(cls, config, custom_objects)
        return cast("Model", super().from_config(config))  # Layer.from_config builds `cls`

    def save(self, filepath: str | os.PathLike[str], overwrite: bool = True, zipped: bool | None = None,
             **kwargs: Any) -> None:
        """Saves the model as a Keras 3 ``.keras`` zip (config.json, metadata.json, model.weights.h5)."""
        from tpustrategy.keras.saving.keras_file import save_model

        save_model(self, filepath, overwrite=overwrite, zipped=zipped, **kwargs)

    def save_weights(self, filepath: str | os.PathLike[str], overwrite: bool = True) -> None:
        """Saves the weights to an HDF5 ``.weights.h5`` file (Keras 3's format)."""
        weights_h5.save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath: str | os.PathLike[str], skip_mismatch: bool = False, **kwargs: Any) -> None:
        """Loads weights saved by ``save_weights`` (``.weights.h5``)."""
        weights_h5.load_weights(self, filepath, skip_mismatch=skip_mismatch)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"
