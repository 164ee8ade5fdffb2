"""``model.save("x.keras")`` and ``keras.models.load_model``: Keras 3's ``.keras`` zip, its unzipped directory
form (``zipped=False``: the same members plus an empty ``assets/``), and the legacy ``.h5`` (legacy_h5.py).

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
import types
import zipfile
from typing import TYPE_CHECKING, Any, cast

from tpustrategy.keras.saving import weights_h5
from tpustrategy.keras.saving.function_code import safe_mode_scope
from tpustrategy.keras.saving.serialization_lib import (
    custom_object_scope,
    deserialize_keras_object,
    serialize_keras_object,
)

if TYPE_CHECKING:
    from tpustrategy.keras.models.model import Model
    from tpustrategy.keras.optimizers.optimizer import Optimizer

KERAS_VERSION = "3.15.1"  # the Keras that TF 2.21's reference environment ships; written into metadata.json
_MEMBERS = ("metadata.json", "config.json", "model.weights.h5")


def _check_path(filepath: str | os.PathLike[str], zipped: bool | None) -> str:
    filepath = os.fspath(filepath)
    if zipped is not False and not filepath.endswith(".keras"):
        raise ValueError("Invalid filepath extension for saving. Please add either a `.keras` extension for the "
                         "native Keras format (recommended) or a `.h5` extension. (SavedModel is not built.) "
                         f"Received: filepath={filepath}")
    return filepath


def compile_config(model: Model) -> dict[str, Any] | None:
    if not getattr(model, "compiled", False):
        return None
    return {"optimizer": serialize_keras_object(model.optimizer), "loss": serialize_keras_object(model.loss),
            "loss_weights": None, "metrics": serialize_keras_object(model._metric_specs or None),
            "weighted_metrics": serialize_keras_object(model._weighted_metric_specs or None), "run_eagerly": False,
            "steps_per_execution": model.steps_per_execution, "jit_compile": False}


def save_model(model: Model, filepath: str | os.PathLike[str], overwrite: bool = True, zipped: bool | None = None,
               **kwargs: Any) -> None:
    """Writes `model` to a ``.keras`` file."""
    include_optimizer = kwargs.pop("include_optimizer", True)  # legacy .h5 only, as Keras 3
    if kwargs:
        raise ValueError(f"The following argument(s) are not supported: {sorted(kwargs)}")
    if zipped is not False and os.fspath(filepath).endswith((".h5", ".hdf5")):
        from tpustrategy.keras.saving import legacy_h5  # lazy: legacy_h5 reuses this module's compile config

        legacy_h5.save_model(model, filepath, overwrite=overwrite, include_optimizer=include_optimizer)
        return
    filepath = _check_path(filepath, zipped)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath} exists and overwrite=False")
    config = serialize_keras_object(model)  # before any file is touched: an unserializable model writes nothing
    config["compile_config"] = compile_config(model)
    metadata = {"keras_version": KERAS_VERSION, "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")}
    weights = io.BytesIO()
    with weights_h5._h5py().File(weights, "w") as f:
        weights_h5.write_weights(model, f)
    members = {"metadata.json": json.dumps(metadata).encode(), "config.json": json.dumps(config).encode(),
               "model.weights.h5": weights.getvalue()}
    if zipped is False:
        os.makedirs(os.path.join(filepath, "assets"), exist_ok=True)
        for name, data in members.items():
            with open(os.path.join(filepath, name), "wb") as f:
                f.write(data)
        return
    with zipfile.ZipFile(filepath, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def _read_archive(filepath: str | os.PathLike[str]) -> tuple[Any, dict[str, Any], bytes]:
    filepath = os.fspath(filepath)
    if not os.path.exists(filepath):
        raise ValueError(f"File not found: filepath={filepath}. Please ensure the file is an accessible `.keras` "
                         "zip file.")
    if os.path.isdir(filepath):
        if not os.path.exists(os.path.join(filepath, "config.json")):
            raise ValueError(f"File format not supported: filepath={filepath}. The directory has no `config.json`: "
                             "not an unzipped Keras model (SavedModel directories are not built).")
        members = {}
        for name in ("config.json", "metadata.json", "model.weights.h5"):
            path = os.path.join(filepath, name)
            if os.path.exists(path):
                with open(path, "rb") as f:
                    members[name] = f.read()
        return _parse_members(filepath, members)
    if not filepath.endswith(".keras"):
        raise ValueError(f"File format not supported: filepath={filepath}. Keras 3 only supports V3 `.keras` files, "
                         "unzipped `.keras` directories and legacy H5 format files (`.h5` extension).")
    if not zipfile.is_zipfile(filepath):
        raise ValueError(f"{filepath} is not a zip archive: not a `.keras` file.")
    with zipfile.ZipFile(filepath) as archive:
        names = set(archive.namelist())
        members = {n: archive.read(n) for n in ("config.json", "metadata.json", "model.weights.h5") if n in names}
    return _parse_members(filepath, members)


def _parse_members(filepath: str, members: dict[str, bytes]) -> tuple[Any, dict[str, Any], bytes]:
    for member in ("config.json", "model.weights.h5"):
        if member not in members:
            raise ValueError(f"{filepath} has no `{member}`: not a complete `.keras` file.")
    try:
        config = json.loads(members["config.json"])
        metadata = json.loads(members["metadata.json"]) if "metadata.json" in members else {}
    except json.JSONDecodeError as error:
        raise ValueError(f"{filepath}: malformed JSON in the archive ({error}).") from error
    return config, metadata, members["model.weights.h5"]


def compile_from_config(model: Model, config: dict[str, Any]) -> None:
    from tpustrategy.keras import losses, metrics

    optimizer = deserialize_keras_object(config["optimizer"])
    loss = config.get("loss")
    loss = deserialize_keras_object(loss, {"losses": losses}) if isinstance(loss, dict) else loss
    model.compile(optimizer=optimizer, loss=loss, metrics=_specs(config.get("metrics"), metrics),
                  weighted_metrics=_specs(config.get("weighted_metrics"), metrics),
                  steps_per_execution=config.get("steps_per_execution", 1))
    if model.built:  # Keras 3 builds the optimizer here, so the saved optimizer variables have a place to go
        optimizer = cast("Optimizer", model.optimizer)  # compile() set it
        optimizer.iterations  # noqa: B018 - creates the iteration counter
        optimizer._build_slots_for(model.trainable_weights, model._distribute_strategy)


def _specs(specs: list[Any] | None, module: types.ModuleType) -> list[Any] | None:
    if specs is None:
        return None
    return [deserialize_keras_object(s, {"metrics": module}) if isinstance(s, dict) else s for s in specs]


def load_model(filepath: str | os.PathLike[str], custom_objects: dict[str, Any] | None = None,
               compile: bool = True, safe_mode: bool = True) -> Model:  # noqa: A002 - Keras' name
    """A model saved as ``.keras``, an unzipped directory or a legacy ``.h5`` (by this package or by Keras 3),
    compiled if it was and `compile`. A Lambda layer's code loads only with ``safe_mode=False``."""
    with safe_mode_scope(safe_mode):
        if os.fspath(filepath).endswith((".h5", ".hdf5")) and not os.path.isdir(filepath):
            from tpustrategy.keras.saving import legacy_h5  # lazy: legacy_h5 reuses this module's compile config

            if not os.path.exists(filepath):
                raise ValueError(f"File not found: filepath={os.fspath(filepath)}. Please ensure the file is an "
                                 "accessible `.h5` file.")
            return legacy_h5.load_model(filepath, custom_objects=custom_objects, compile=compile)
        return _load_keras(filepath, custom_objects, compile)


def _load_keras(filepath: str | os.PathLike[str], custom_objects: dict[str, Any] | None,
                compile: bool) -> Model:  # noqa: A002 - Keras' name
    config, _, weights = _read_archive(filepath)
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"{os.fspath(filepath)}: config.json does not describe a Keras object.")
    with custom_object_scope(custom_objects):
        model: Model = deserialize_keras_object({k: v for k, v in config.items() if k != "compile_config"},
                                         custom_objects=custom_objects)
        if compile and config.get("compile_config"):
            compile_from_config(model, config["compile_config"])
    with weights_h5._h5py().File(io.BytesIO(weights), "r") as f:
        weights_h5.read_weights(model, f)
    return model


__all__ = ["load_model", "save_model"]
