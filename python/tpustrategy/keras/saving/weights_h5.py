"""``model.save_weights`` / ``load_weights`` in Keras 3's ``.weights.h5`` layout (HDF5, via h5py).

Layout (as Keras 3 writes it): the model's own variables under ``vars/<i>`` (the group's ``name``
attribute is the object's name), each layer's under the path ``_walk`` names (``layers/dense_1/vars/<i>``
in a Sequential or functional model, the attribute's name in a subclassed one), and, once the optimizer
has applied a step, ``optimizer/vars/<i>``: the iteration count (int64), the learning rate (float32),
then each trainable variable's slots in order.
Every value is checked against the file before any variable is assigned, so a failed load changes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import h5py

    from tpustrategy.keras.layers.layer import Layer
    from tpustrategy.keras.models.model import Model
    from tpustrategy.keras.optimizers.optimizer import Optimizer
    from tpustrategy.variables import Variable

_SUFFIX = ".weights.h5"


def _h5py() -> Any:  # the h5py module, which has no type information
    try:
        import h5py
    except ImportError as error:  # pragma: no cover - h5py is a dependency of the dev install
        raise ImportError("save_weights / load_weights need h5py (`pip install h5py`).") from error
    return h5py


def _check_path(filepath: str | os.PathLike[str]) -> str:
    filepath = os.fspath(filepath)
    if not filepath.endswith(_SUFFIX):
        raise ValueError(f"The filename must end in `{_SUFFIX}`. Received: filepath={filepath}")
    return filepath


def _own_variables(layer: Layer) -> list[Variable]:
    return list(layer._trainable_variables) + list(layer._non_trainable_variables)


def _walk(layer: Layer, prefix: str = "",
          visited: set[int] | None = None) -> Iterator[tuple[str, list[Variable], str]]:
    """(group path, variables, name) for the object and every layer below it, on Keras 3's paths: a
    Sequential's or functional model's layers under ``layers/<class name in snake_case, made unique>``
    (a Sequential's InputLayer is not among them), any other layer's sub-layers under the attribute that
    holds them (lists and dicts as containers named like ``layers/``), each object once."""
    visited = set() if visited is None else visited
    visited.add(id(layer))
    yield (prefix + "vars"), _own_variables(layer), layer.name
    for path, sub in _children(layer, prefix):
        if id(sub) not in visited:
            yield from _walk(sub, path + "/", visited)


def _children(layer: Layer, prefix: str) -> Iterator[tuple[str, Layer]]:
    from tpustrategy.keras.layers.layer import Layer
    from tpustrategy.keras.naming import snake_case

    def container(items: Iterable[Any], path: str) -> Iterator[tuple[str, Layer]]:
        used: dict[str, int] = {}
        for item in items:
            if not isinstance(item, Layer):
                continue
            name = snake_case(type(item).__name__)
            used[name] = used.get(name, -1) + 1
            yield f"{path}/{name}" + (f"_{used[name]}" if used[name] else ""), item

    if type(layer).__name__ == "Sequential" or getattr(layer, "_graph", None) is not None:
        yield from container(layer.layers, prefix + "layers")
        return
    for attr in sorted(k for k in vars(layer) if not k.startswith("_")):
        value = vars(layer)[attr]
        if isinstance(value, Layer):
            yield prefix + attr, value
        elif isinstance(value, list | tuple | dict):
            yield from container(value.values() if isinstance(value, dict) else value, prefix + attr)


def _optimizer_values(model: Model) -> tuple[Optimizer | None, list[Any]]:
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


def _check_no_orphans(f: h5py.File, paths: set[str], model: Model) -> None:
    """Values in the file that no variable of the model would receive are an error (as Keras 3), so an
    unbuilt model or a different architecture is not silently left with its initial weights."""
    orphans: list[str] = []

    def visit(name: str, obj: Any) -> None:
        if name.startswith("optimizer") or not name.endswith("vars") or not len(obj):
            return
        if name not in paths:
            orphans.append(name)

    f.visititems(visit)
    if orphans:
        raise ValueError(f"The file holds weights for {sorted(orphans)} but model '{model.name}' has no variables "
                         f"there (was the model built? its weight paths are {sorted(paths)}).")


def save_weights(model: Model, filepath: str | os.PathLike[str], overwrite: bool = True) -> None:
    filepath = _check_path(filepath)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath} exists and overwrite=False")
    with _h5py().File(filepath, "w") as f:
        write_weights(model, f)


def write_weights(model: Model, f: h5py.File) -> None:
    """Writes the model's (and its optimizer's) variables into the open h5py file `f`."""
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


def load_weights(model: Model, filepath: str | os.PathLike[str], skip_mismatch: bool = False) -> None:
    filepath = _check_path(filepath)
    if not os.path.exists(filepath):
        raise FileNotFoundError(f"No such file: {filepath}")
    with _h5py().File(filepath, "r") as f:
        read_weights(model, f, skip_mismatch)


def read_weights(model: Model, f: h5py.File, skip_mismatch: bool = False) -> None:
    """Assigns the values in the open h5py file `f`; checks them all before assigning any."""
    assignments = []
    walked = list(_walk(model))
    if not skip_mismatch:
        _check_no_orphans(f, {path for path, variables, _ in walked if variables}, model)
    for path, variables, name in walked:
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
