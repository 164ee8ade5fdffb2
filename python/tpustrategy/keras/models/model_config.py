"""Configs of Sequential and functional models in Keras 3's form, and the models rebuilt from them.

Sequential: ``{"name", "trainable", "dtype", "layers": [serialized layers, the InputLayer first when
there is one], "build_input_shape"}``. Functional: ``{"name", "trainable", "layers": [each serialized
layer plus its "name" and "inbound_nodes"], "input_layers", "output_layers"}`` where an inbound node is
``{"args": [...], "kwargs": {...}}`` with each KerasTensor written as ``{"class_name":
"__keras_tensor__", "config": {"shape", "dtype", "keras_history": [layer name, node index, tensor
index]}}``; node indices count only the layer's calls inside this model, as Keras renumbers them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from tpustrategy import nest
from tpustrategy.keras.layers.keras_tensor import KerasTensor
from tpustrategy.keras.layers.layer_config import dtype_policy

if TYPE_CHECKING:
    from tpustrategy.keras.layers.layer import Layer
    from tpustrategy.keras.models.model import Model
    from tpustrategy.keras.models.sequential import Sequential

_ModelT = TypeVar("_ModelT", bound="Model")
_SequentialT = TypeVar("_SequentialT", bound="Sequential")


def sequential_config(model: Sequential) -> dict[str, Any]:
    # lazy: serialization_lib knows every built-in Keras class, so it sits above this module
    from tpustrategy.keras.saving.serialization_lib import serialize_keras_object

    layers = ([model._input_layer] if model._input_layer is not None else []) + list(model._layers)
    config: dict[str, Any] = {"name": model.name, "trainable": model.trainable,
                              "dtype": dtype_policy(model.dtype_policy.name),
                              "layers": [serialize_keras_object(layer) for layer in layers]}
    if model._input_layer is not None:
        config["build_input_shape"] = list(model._input_layer.batch_shape)
    return config


def sequential_from_config(cls: type[_SequentialT], config: dict[str, Any],
                           custom_objects: dict[str, Any] | None = None) -> _SequentialT:
    # lazy: serialization_lib knows every built-in Keras class, so it sits above this module
    from tpustrategy.keras.saving.serialization_lib import deserialize_keras_object

    layers = [deserialize_keras_object(c, custom_objects=custom_objects) for c in config.get("layers", [])]
    model = cls(layers=layers, name=config.get("name"), trainable=config.get("trainable", True))
    shape = config.get("build_input_shape")
    if not model.built and shape is not None and model.layers:
        model.build(tuple(shape))
    return model


def functional_config(model: Model) -> dict[str, Any]:
    # lazy: serialization_lib knows every built-in Keras class, so it sits above this module
    from tpustrategy.keras.saving.serialization_lib import serialize_keras_object

    graph = model._graph
    assert graph is not None  # Model.get_config calls this for a functional model only
    in_model = {id(node) for node in graph.nodes} | {id(t._node) for t in graph.flat_inputs}
    node_index: dict[int, int] = {}  # id(node) -> index among its layer's nodes in this model
    for layer in graph.layers:
        kept = [node for node in layer._inbound_nodes if id(node) in in_model]
        for i, node in enumerate(kept):
            node_index[id(node)] = i

    def history(t: KerasTensor) -> list[Any]:
        assert t._node is not None  # every tensor of the graph has its node
        return [t._node.layer.name, node_index[id(t._node)], getattr(t, "_output_index", 0)]

    def encode(value: Any) -> Any:
        if isinstance(value, KerasTensor):
            return {"class_name": "__keras_tensor__",
                    "config": {"shape": list(value.shape), "dtype": value.dtype, "keras_history": history(value)}}
        if isinstance(value, list | tuple):
            return [encode(v) for v in value]
        if isinstance(value, dict):
            return {k: encode(v) for k, v in value.items()}
        return value

    layers: list[dict[str, Any]] = []
    for layer in graph.layers:
        entry = serialize_keras_object(layer)
        entry["name"] = layer.name
        entry["inbound_nodes"] = [{"args": encode(list(node.call_args)), "kwargs": encode(dict(node.call_kwargs))}
                                  for node in layer._inbound_nodes if id(node) in in_model and node.call_args]
        layers.append(entry)

    def ends(tensors: Any, flat: list[KerasTensor]) -> Any:
        if nest.is_nested(tensors):
            return [history(t) for t in flat]
        return history(tensors)

    return {"name": model.name, "trainable": model.trainable, "layers": layers,
            "input_layers": ends(graph.inputs, graph.flat_inputs), "output_layers": ends(graph.outputs,
                                                                                        graph.flat_outputs)}


def functional_from_config(cls: type[_ModelT], config: dict[str, Any],
                           custom_objects: dict[str, Any] | None = None) -> _ModelT:
    """Rebuilds the layers, replays each layer's calls once the tensors they need exist, then the model."""
    # lazy: serialization_lib knows every built-in Keras class, so it sits above this module
    from tpustrategy.keras.saving.serialization_lib import deserialize_keras_object

    created: dict[str, Layer] = {}  # layer name -> layer
    outputs: dict[tuple[str, int], Any] = {}  # (layer name, node index) -> output structure
    pending: list[tuple[str, int, dict[str, Any]]] = []
    for entry in config["layers"]:
        entry = dict(entry)
        name, inbound = entry.pop("name", entry["config"].get("name")), entry.pop("inbound_nodes", [])
        layer = deserialize_keras_object(entry, custom_objects=custom_objects)
        created[name] = layer
        if type(layer).__name__ == "InputLayer":
            outputs[(name, 0)] = layer.output_tensor
        pending.extend((name, i, node) for i, node in enumerate(inbound))

    def decode(value: Any) -> Any:
        if isinstance(value, dict) and value.get("class_name") == "__keras_tensor__":
            layer_name, node, index = value["config"]["keras_history"]
            produced = outputs[(layer_name, node)]  # KeyError: not produced yet
            return nest.flatten(produced)[index]
        if isinstance(value, list):
            return [decode(v) for v in value]
        if isinstance(value, dict):
            return {k: decode(v) for k, v in value.items()}
        return value

    while pending:
        progressed, waiting = False, []
        for name, i, node in pending:
            try:
                args, kwargs = decode(node.get("args", [])), decode(node.get("kwargs", {}))
            except KeyError:
                waiting.append((name, i, node))
                continue
            outputs[(name, i)] = created[name](*args, **kwargs)
            progressed = True
        if not progressed:
            missing = sorted({name for name, _, _ in waiting})
            raise ValueError(f"Could not rebuild the functional model {config.get('name')!r}: the inputs of layers "
                             f"{missing} are never produced.")
        pending = waiting

    def ends(spec: Any) -> Any:
        if spec and isinstance(spec[0], list):
            return [nest.flatten(outputs[(n, i)])[j] for n, i, j in spec]
        n, i, j = spec
        return nest.flatten(outputs[(n, i)])[j]

    return cls(inputs=ends(config["input_layers"]), outputs=ends(config["output_layers"]), name=config.get("name"),
               trainable=config.get("trainable", True))


__all__ = ["functional_config", "functional_from_config", "sequential_config", "sequential_from_config"]
