"""``model.save_weights`` / ``load_weights`` in Keras 3's ``.weights.h5`` layout (HDF5, via h5py).

Layout (as Keras 3 writes it): the model's own variables under ``vars/<i>`` (the group's ``name``
attribute is the object's name), each layer's under ``layers/<layer name>/vars/<i>`` (nested layers
under their parent's ``layers/``), and, once the optimizer has applied a step, ``optimizer/vars/<i>``:
the iteration count (int64), the learning rate (float32), then each trainable variable's slots in order.
Every value is checked against the file before any variable is assigned, so a failed load changes nothing.
"""

from __future__ import annotations

import os

import numpy as np

_SUFFIX = ".weights.h5"


def _h5py():
    try:
        import h5py
    except ImportError as error:  # pragma: no cover - h5py is a dependency of the dev install
        raise ImportError("save_weights / load_weights need h5py (`pip install h5py`).") from error
    return h5py


def _check_path(filepath) -> str:
    filepath = os.fspath(filepath)
    if not filepath.endswith(_SUFFIX):
        raise ValueError(f"The filename must end in `{_SUFFIX}`. Received: filepath={filepath}")
    return filepath


def _own_variables(layer) -> list:
    return list(layer._trainable_variables) + list(layer._non_trainable_variables)


def _walk(layer, prefix=""):
    """(group path, variables) for the object and every layer below it."""
    yield (prefix + "vars"), _own_variables(layer), layer.name
    for sub in layer._layers:
        if type(sub).__name__ == "InputLayer" and prefix == "" and type(layer).__name__ == "Sequential":
            continue
        yield from _walk(sub, f"{prefix}layers/{sub.name}/")


def _optimizer_values(model):
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None or optimizer._iterations is None:
        return None, []
    from tpustrategy.keras.optimizers.optimizer import _var_key

    lr = optimizer._learning_rate
    lr_value = float(lr(optimizer.iterations).numpy()) if callable(lr) else float(lr)
    slots = []
    for variable in model.trainable_weights:
        slots.extend(optimizer._slots.get(_var_key(variable), {}).values())
    return optimizer, [optimizer._iterations, np.float32(lr_value)] + slots


def save_weights(model, filepath, overwrite=True) -> None:
    filepath = _check_path(filepath)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath} exists and overwrite=False")
    h5py = _h5py()
    with h5py.File(filepath, "w") as f:
        for path, variables, name in _walk(model):
            group = f.require_group(path)
            group.attrs["name"] = name
            for i, v in enumerate(variables):
                group.create_dataset(str(i), data=np.asarray(v.numpy()))
        optimizer, values = _optimizer_values(model)
        if optimizer is not None:
            group = f.require_group("optimizer/vars")
            group.attrs["name"] = optimizer.name
            for i, v in enumerate(values):
                group.create_dataset(str(i), data=np.asarray(v.numpy() if hasattr(v, "numpy") else v))


def load_weights(model, filepath, skip_mismatch=False) -> None:
    filepath = _check_path(filepath)
    h5py = _h5py()
    if not os.path.exists(filepath):
        raise FileNotFoundError(f"No such file: {filepath}")
    assignments = []
    with h5py.File(filepath, "r") as f:
        for path, variables, name in _walk(model):
            if not variables:
                continue
            if path not in f:
                raise ValueError(f"Layer '{name}' expected {len(variables)} variables, but the file has no group "
                                 f"'{path}'.")
            group = f[path]
            if len(group) != len(variables):
                if skip_mismatch:
                    continue
                raise ValueError(f"Layer '{name}' expected {len(variables)} variables, but received {len(group)} "
                                 "variables during loading.")
            for i, variable in enumerate(variables):
                value = np.asarray(group[str(i)])
                if tuple(value.shape) != tuple(variable.shape):
                    if skip_mismatch:
                        break
                    raise ValueError(f"The shape of the target variable and the shape of the target value in "
                                     f"`variable.assign(value)` must match. variable.shape={tuple(variable.shape)}, "
                                     f"Received: value.shape={value.shape}. Target variable: {variable.name} of "
                                     f"layer '{name}'")
                assignments.append((variable, value))
        optimizer, values = _optimizer_values(model)
        if optimizer is not None and "optimizer/vars" in f and len(f["optimizer/vars"]) == len(values):
            group = f["optimizer/vars"]
            for i, variable in enumerate(values):
                if i == 1:
                    continue  # the learning rate is configuration here, not a variable
                assignments.append((variable, np.asarray(group[str(i)])))
    with model._strategy_scope():
        for variable, value in assignments:
            variable.assign(value.astype(np.dtype(variable.dtype.name)))
