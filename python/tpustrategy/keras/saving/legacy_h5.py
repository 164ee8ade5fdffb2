"""``model.save("m.h5")`` / ``load_model("m.h5")``: the legacy H5 full-model format Keras 3 still reads and writes.

The file's attributes hold ``backend``, ``keras_version``, ``model_config`` (JSON ``{"class_name", "config"}``,
layers listed without their ``module`` / ``registered_name`` / ``build_config``) and, for a compiled model,
``training_config`` (the compile arguments, the optimizer as ``optimizer_config``). Group ``model_weights``
lists ``layer_names``; each layer's group lists its ``weight_names`` (the weights' paths, ``"dense/kernel"``)
and holds one dataset per name. Weights load by layer order among the layers that have weights, as Keras.
With ``include_optimizer`` (the default) the optimizer's state is written as Keras 3 writes it and restored on
a compiled load (legacy_h5_optimizer.py), so training resumes with the same numbers.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import numpy as np

from tpustrategy.keras.saving import legacy_h5_optimizer, weights_h5
from tpustrategy.keras.saving.serialization_lib import (
    custom_object_scope,
    deserialize_keras_object,
    serialize_keras_object,
)

if TYPE_CHECKING:
    from tpustrategy.keras.layers.layer import Layer
    from tpustrategy.keras.models.model import Model

_DROPPED = ("module", "registered_name", "build_config")


def _legacy_config(model: Model) -> dict[str, Any]:
    config = serialize_keras_object(model)
    inner = dict(config["config"])
    if "layers" in inner:
        inner["layers"] = [{k: v for k, v in layer.items() if k not in _DROPPED} for layer in inner["layers"]]
    return {"class_name": config["class_name"], "config": inner}


def _training_config(model: Model) -> dict[str, Any] | None:
    from tpustrategy.keras.saving.keras_file import compile_config

    config = compile_config(model)
    if config is None:
        return None
    optimizer = config.pop("optimizer")
    config["optimizer_config"] = {"class_name": optimizer["class_name"], "config": optimizer["config"]}
    return config


def _weight_layers(model: Model) -> list[Layer]:
    return list(getattr(model, "layers", []))


def save_model(model: Model, filepath: str | os.PathLike[str], overwrite: bool = True,
               include_optimizer: bool = True) -> None:
    from tpustrategy.keras.saving.keras_file import KERAS_VERSION

    filepath = os.fspath(filepath)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath} exists and overwrite=False")
    model_config = json.dumps(_legacy_config(model))  # before any file is touched: unserializable writes nothing
    training: dict[str, Any] | str | None = _training_config(model)
    training = json.dumps(training) if training is not None else None
    h5py = weights_h5._h5py()
    strings = h5py.string_dtype()
    with h5py.File(filepath, "w") as f:
        f.attrs["backend"] = "tensorflow"
        f.attrs["keras_version"] = KERAS_VERSION
        f.attrs["model_config"] = model_config
        if training is not None:
            f.attrs["training_config"] = training
        group = f.create_group("model_weights")
        layers = _weight_layers(model)
        group.attrs["backend"] = "tensorflow"
        group.attrs["keras_version"] = KERAS_VERSION
        group.attrs["layer_names"] = np.array([layer.name for layer in layers], dtype=strings)
        for layer in [*layers, None]:
            weights = layer.weights if layer is not None else []
            layer_group = group.create_group(layer.name if layer is not None else "top_level_model_weights")
            names = [w.path for w in weights]
            layer_group.attrs["weight_names"] = np.array(names, dtype=strings) if names else np.zeros((0,))
            for name, weight in zip(names, weights, strict=True):
                layer_group.create_dataset(name, data=np.asarray(weight.numpy()))
        if include_optimizer and getattr(model, "optimizer", None) is not None:
            legacy_h5_optimizer.write_optimizer_weights(f, model.optimizer)


def _text(value: bytes | str) -> str:
    return value.decode("utf8") if isinstance(value, bytes) else str(value)


def load_model(filepath: str | os.PathLike[str], custom_objects: dict[str, Any] | None = None,
               compile: bool = True) -> Model:  # noqa: A002 - Keras' name
    from tpustrategy.keras.saving.keras_file import compile_from_config

    filepath = os.fspath(filepath)
    h5py = weights_h5._h5py()
    with h5py.File(filepath, "r") as f:
        if "model_config" not in f.attrs or "model_weights" not in f:
            raise ValueError(f"{filepath} has no model config / `model_weights`: not a Keras H5 model file (a weights-"
                             "only file loads with `model.load_weights`).")
        config = json.loads(_text(f.attrs["model_config"]))
        training = json.loads(_text(f.attrs["training_config"])) if "training_config" in f.attrs else None
        group = f["model_weights"]
        layer_values = []
        for layer_name in (_text(n) for n in group.attrs["layer_names"]):
            names = [_text(n) for n in group[layer_name].attrs["weight_names"]]
            if names:
                layer_values.append((layer_name, [np.asarray(group[layer_name][n]) for n in names]))
        optimizer_values = legacy_h5_optimizer.read_optimizer_weights(f)
    with custom_object_scope(custom_objects):
        model: Model = deserialize_keras_object(config, custom_objects=custom_objects)
    layers = [layer for layer in _weight_layers(model) if layer.weights]
    if len(layers) != len(layer_values):
        raise ValueError(f"Layer count mismatch when loading weights from file. Model expected {len(layers)} layers, "
                         f"found {len(layer_values)} saved layers.")
    for layer, (name, values) in zip(layers, layer_values, strict=True):
        if len(layer.weights) != len(values):
            raise ValueError(f"Layer {layer.name!r}: {len(layer.weights)} weights, but the file's layer {name!r} holds "
                             f"{len(values)}.")
        layer.set_weights(values)
    if compile and training is not None:
        optimizer = training.get("optimizer_config")
        compile_from_config(model, {**training, "optimizer": {"module": "keras.optimizers", **optimizer}})
        if optimizer_values is not None:
            legacy_h5_optimizer.set_optimizer_weights(model, optimizer_values)
    return model


__all__ = ["load_model", "save_model"]
