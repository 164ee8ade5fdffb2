"""The graph of a functional model: the Nodes between its input and output KerasTensors, in call order."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tpustrategy import nest
from tpustrategy.keras.layers.input_layer import InputLayer
from tpustrategy.keras.layers.keras_tensor import KerasTensor

if TYPE_CHECKING:
    from tpustrategy.keras.layers.keras_tensor import Node
    from tpustrategy.keras.layers.layer import Layer


class FunctionalGraph:
    """Nodes ordered so each runs after the nodes producing its inputs; ``run`` evaluates the outputs."""

    def __init__(self, inputs: Any, outputs: Any) -> None:
        self.inputs = inputs
        self.outputs = outputs
        self.flat_inputs: list[KerasTensor] = nest.flatten(inputs)  # checked just below
        self.flat_outputs: list[KerasTensor] = nest.flatten(outputs)
        for t in self.flat_inputs + self.flat_outputs:
            if not isinstance(t, KerasTensor):
                raise ValueError(f"All `inputs` and `outputs` values must be KerasTensors. Received: {t!r}")
        input_ids = {id(t) for t in self.flat_inputs}
        for t in self.flat_inputs:
            if t._node is None or not isinstance(t._node.layer, InputLayer):
                raise ValueError(f"Model inputs must come from `keras.Input`; received {t!r}")
        self.nodes: list[Node] = []
        visited: set[int] = set()
        reached_inputs: set[int] = set()

        def visit(t: KerasTensor) -> None:
            if id(t) in input_ids:
                reached_inputs.add(id(t))
                return
            node = t._node
            if node is None or isinstance(node.layer, InputLayer):
                raise ValueError(f"Output tensors of a Functional model must be the output of a Keras layer reachable "
                                 f"from the model's inputs; {t!r} is not reachable from the inputs given.")
            if id(node) in visited:
                return
            for parent in node.input_tensors:
                visit(parent)
            visited.add(id(node))
            self.nodes.append(node)

        for t in self.flat_outputs:
            visit(t)
        self.layers: list[Layer] = []
        for t in self.flat_inputs:
            assert t._node is not None  # checked above
            self.layers.append(t._node.layer)
        for node in self.nodes:
            if all(node.layer is not layer for layer in self.layers):
                self.layers.append(node.layer)

    def run(self, inputs: Any, training: bool | None = None) -> Any:
        flat = nest.flatten(inputs) if nest.is_nested(inputs) else [inputs]
        if len(flat) != len(self.flat_inputs):
            raise ValueError(f"The model expects {len(self.flat_inputs)} input(s), but it received {len(flat)} input "
                             "tensors.")
        values = {id(k): v for k, v in zip(self.flat_inputs, flat, strict=True)}
        for node in self.nodes:
            outputs = node.run(values, training)
            for k, v in zip(nest.flatten(node.outputs), nest.flatten(outputs), strict=True):
                values[id(k)] = v
        return nest.pack_sequence_as(self.outputs, [values[id(t)] for t in self.flat_outputs]) \
            if nest.is_nested(self.outputs) else values[id(self.outputs)]
