"""``model.save("x.keras")`` and ``keras.models.load_model``: Keras 3's ``.keras`` zip.

The archive holds ``metadata.json`` (``keras_version``, ``date_saved``), ``config.json`` (the model's
serialization with its ``compile_config``) and ``model.weights.h5`` (the ``.weights.h5`` layout, optimizer
variables included). Loading rebuilds the model from the config (custom classes through
``register_keras_serializable`` or ``custom_objects``), builds it, compiles it from the compile config when
asked (building the optimizer's slots so its saved variables load), then assigns every weight; the file
is read completely before anything is created, and a missing or malformed member is a ValueError naming it.
"""

from __future__ import annotations

import datetime
import io
import json
import os
import zipfile

from tpustrategy.keras.saving import weights_h5
from tpustrategy.keras.saving.serialization_lib import (
    custom_object_scope,
    deserialize_keras_object,
    serialize_keras_object,
)

KERAS_VERSION = "3.15.1"  # the Keras that TF 2.21's reference environment ships; written into metadata.json
_MEMBERS = ("metadata.json", "config.json", "model.weights.h5")


def _check_path(filepath, zipped) -> str:
    filepath = os.fspath(filepath)
    if zipped is False:
        raise NotImplementedError("model.save(zipped=False) (an unzipped directory) is not built; save a `.keras` "
                                  "file.")
    if not filepath.endswith(".keras"):
        raise ValueError("Invalid filepath extension for saving. Please add the `.keras` extension (this package "
                         "saves only the Keras 3 format; `.h5` and SavedModel are not built). Received: "
                         f"filepath={filepath}")
    return filepath


def compile_config(model) -> dict | None:
    if not getattr(model, "compiled", False):
        return None
    return {"optimizer": serialize_keras_object(model.optimizer), "loss": serialize_keras_object(model.loss),
            "loss_weights": None, "metrics": serialize_keras_object(model._metric_specs or None),
            "weighted_metrics": serialize_keras_object(model._weighted_metric_specs or None), "run_eagerly": False,
            "steps_per_execution": model.steps_per_execution, "jit_compile": False}


def save_model(model, filepath, overwrite=True, zipped=None, **kwargs) -> None:
    """Writes `model` to a ``.keras`` file."""
    if kwargs:
        raise ValueError(f"The following argument(s) are not supported: {sorted(kwargs)}")
    filepath = _check_path(filepath, zipped)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath} exists and overwrite=False")
    config = serialize_keras_object(model)  # before any file is touched: an unserializable model writes nothing
    config["compile_config"] = compile_config(model)
    metadata = {"keras_version": KERAS_VERSION, "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")}
    weights = io.BytesIO()
    with weights_h5._h5py().File(weights, "w") as f:
        weights_h5.write_weights(model, f)
    with zipfile.ZipFile(filepath, "w") as archive:
        archive.writestr("metadata.json", json.dumps(metadata))
        archive.writestr("config.json", json.dumps(config))
        archive.writestr("model.weights.h5", weights.getvalue())


def _read_archive(filepath) -> tuple[dict, dict, bytes]:
    filepath = os.fspath(filepath)
    if not os.path.exists(filepath):
        raise ValueError(f"File not found: filepath={filepath}. Please ensure the file is an accessible `.keras` "
                         "zip file.")
    if not filepath.endswith(".keras"):
        raise ValueError(f"File format not supported: filepath={filepath}. This package loads only Keras 3 "
                         "`.keras` files (legacy `.h5` and SavedModel directories are not built).")
    if not zipfile.is_zipfile(filepath):
        raise ValueError(f"{filepath} is not a zip archive: not a `.keras` file.")
    with zipfile.ZipFile(filepath) as archive:
        names = set(archive.namelist())
        for member in ("config.json", "model.weights.h5"):
            if member not in names:
                raise ValueError(f"{filepath} has no `{member}`: not a complete `.keras` file.")
        try:
            config = json.loads(archive.read("config.json"))
            metadata = json.loads(archive.read("metadata.json")) if "metadata.json" in names else {}
        except json.JSONDecodeError as error:
            raise ValueError(f"{filepath}: malformed JSON in the archive ({error}).") from error
        return config, metadata, archive.read("model.weights.h5")


def compile_from_config(model, config) -> None:
    from tpustrategy.keras import losses, metrics

    optimizer = deserialize_keras_object(config["optimizer"])
    loss = config.get("loss")
    loss = deserialize_keras_object(loss, {"losses": losses}) if isinstance(loss, dict) else loss
    model.compile(optimizer=optimizer, loss=loss, metrics=_specs(config.get("metrics"), metrics),
                  weighted_metrics=_specs(config.get("weighted_metrics"), metrics),
                  steps_per_execution=config.get("steps_per_execution", 1))
    if model.built:  # Keras 3 builds the optimizer here, so the saved optimizer variables have a place to go
        model.optimizer.iterations  # noqa: B018 - creates the iteration counter
        model.optimizer._build_slots_for(model.trainable_weights, model._distribute_strategy)


def _specs(specs, module):
    if specs is None:
        return None
    return [deserialize_keras_object(s, {"metrics": module}) if isinstance(s, dict) else s for s in specs]


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):  # noqa: A002 - Keras' name
    """A model saved as ``.keras`` (by this package or by Keras 3), compiled if it was and `compile`."""
    config, _, weights = _read_archive(filepath)
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"{os.fspath(filepath)}: config.json does not describe a Keras object.")
    with custom_object_scope(custom_objects):
        model = deserialize_keras_object({k: v for k, v in config.items() if k != "compile_config"},
                                         custom_objects=custom_objects)
        if compile and config.get("compile_config"):
            compile_from_config(model, config["compile_config"])
    with weights_h5._h5py().File(io.BytesIO(weights), "r") as f:
        weights_h5.read_weights(model, f)
    return model


__all__ = ["load_model", "save_model"]
