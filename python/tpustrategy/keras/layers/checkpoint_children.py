"""The children a Keras layer or model shows to ``tf.train.Checkpoint``: the names Keras 3 (TF backend) uses,
so that a checkpoint TF writes for a real Keras model restores into the same model built here, and back.

Keras 3 names, read from TF 2.21 + Keras 3.15 checkpoints (tests_py/data/tf_checkpoints/keras_models.json):
a Sequential holds ``_functional``, whose ``_operations`` list is [InputLayer, *layers]; a functional model
holds ``_operations`` itself (InputLayers first, then the layers in call order); Dense and the convolutions
store the kernel as ``_kernel`` and Embedding its table as ``_embeddings``; other variables and sub-layers
keep their attribute names (``bias``, ``gamma``, ``moving_mean``, a subclassed model's ``self.dense``), in the
order they were assigned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from tpustrategy.keras.layers.layer import Layer
    from tpustrategy.keras.models.sequential import Sequential

_RENAMED = {("Dense", "kernel"): "_kernel", ("BaseConv", "kernel"): "_kernel",
            ("Embedding", "embeddings"): "_embeddings"}


class _Functional:
    """Stands for the ``_functional`` object inside a Keras 3 Sequential."""

    def __init__(self, operations: list[Layer]) -> None:
        self._operations = operations

    def _trackable_children(self) -> list[tuple[str, Any]]:
        return [("_operations", self._operations)]


def _renamed(layer: Layer, attr: str) -> str:
    for klass in type(layer).__mro__:
        name = _RENAMED.get((klass.__name__, attr))
        if name is not None:
            return name
    return attr


def checkpoint_children(layer: Layer) -> list[tuple[str, Any]]:
    from tpustrategy.train.object_graph import is_trackable

    out: list[tuple[str, Any]] = []
    if type(layer).__name__ == "Sequential" or any(k.__name__ == "Sequential" for k in type(layer).__mro__):
        sequential = cast("Sequential", layer)  # matched by name: importing Sequential here would be a cycle
        operations = (([sequential._input_layer] if sequential._input_layer is not None else [])
                      + list(sequential._layers))
        out.append(("_functional", _Functional(operations)))
    elif (graph := getattr(layer, "_graph", None)) is not None:  # a functional model
        out.append(("_operations", list(graph.layers)))
    for attr, value in vars(layer).items():
        if not attr.startswith("_") and is_trackable(value):
            out.append((_renamed(layer, attr), value))
    return out


__all__ = ["checkpoint_children"]
