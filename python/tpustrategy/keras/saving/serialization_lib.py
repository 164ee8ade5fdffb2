"""Keras 3's object serialization: ``{"module", "class_name", "config", "registered_name"}`` dicts.

``serialize_keras_object`` turns layers, initializers, regularizers, optimizers, losses and metrics into
that form (plain values pass through; a named function such as an activation becomes its name);
``deserialize_keras_object`` reverses it, finding the class by ``registered_name`` among the objects
registered with ``register_keras_serializable`` or passed as ``custom_objects``, else by ``class_name``
in the built-in module that ``module`` names. Keras' DTypePolicy dicts become dtype names.
"""

from __future__ import annotations

import types
from typing import Any

from tpustrategy.keras.object_registration import (
    custom_object_scope,
    dtype_name,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
)


def _builtin_modules() -> dict[str, types.ModuleType]:
    from tpustrategy import keras  # lazy: the facade is the registry of built-in classes, and imports this

    return {"keras.layers": keras.layers, "keras.initializers": keras.initializers,
            "keras.regularizers": keras.regularizers, "keras.constraints": keras.constraints,
            "keras.optimizers": keras.optimizers,
            "keras.optimizers.schedules": keras.optimizers.schedules, "keras.losses": keras.losses,
            "keras.metrics": keras.metrics, "keras.models": keras.models, "keras": keras}


def _module_of(obj: Any) -> str:
    """The Keras module name a built-in class is exported from ("keras.layers" ...), else its own module."""
    from tpustrategy import keras  # lazy: the facade is the registry of built-in classes, and imports this

    if isinstance(obj, keras.Sequential) or type(obj) is keras.Model:
        return "keras"
    for name, module in _builtin_modules().items():
        if name not in ("keras", "keras.models") and getattr(module, type(obj).__name__, None) is type(obj):
            return name
    return type(obj).__module__


def serialize_keras_object(obj: Any) -> Any:
    """The Keras 3 serialization of `obj` (None, plain values and containers are returned as they are)."""
    if obj is None or isinstance(obj, bool | int | float | str):
        return obj
    if isinstance(obj, list | tuple):
        return [serialize_keras_object(x) for x in obj]
    if isinstance(obj, dict):
        return {k: serialize_keras_object(v) for k, v in obj.items()}
    if not hasattr(obj, "get_config"):
        if callable(obj) and hasattr(obj, "__name__"):
            registered = vars(obj).get("_keras_registered_name") if hasattr(obj, "__dict__") else None
            return registered or obj.__name__
        raise TypeError(f"Cannot serialize {obj!r}: it has no `get_config`.")
    registered = vars(type(obj)).get("_keras_registered_name")
    module = _module_of(obj)
    config = {"module": module, "class_name": type(obj).__name__, "config": obj.get_config(),
              "registered_name": registered}
    from tpustrategy.keras.layers.layer import Layer  # lazy: layers use this module for their configs
    from tpustrategy.keras.models.model import Model  # lazy: models use this module for their configs

    if isinstance(obj, Model) and obj._graph is not None and type(obj) is Model:
        config.update(module="keras.src.models.functional", class_name="Functional", registered_name="Functional")
    if isinstance(obj, Layer) and obj._build_shapes is not None:
        config["build_config"] = {"input_shape": _jsonable_shape(obj._build_shapes)}
    return config


def _jsonable_shape(shape: Any) -> Any:
    if isinstance(shape, list | tuple):
        return [_jsonable_shape(s) for s in shape]
    return shape


def deserialize_keras_object(config: Any, module_objects: dict[str, Any] | None = None,
                             custom_objects: dict[str, Any] | None = None,
                             printable_module_name: str = "object") -> Any:
    """The object a Keras 3 serialization describes; strings and None pass through."""
    if config is None or isinstance(config, bool | int | float | str):
        return config
    if isinstance(config, list):
        return [deserialize_keras_object(c, module_objects, custom_objects) for c in config]
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"Could not deserialize {printable_module_name}: expected a dict with `class_name`, got "
                         f"{config!r}")
    class_name = config["class_name"]
    inner = config.get("config", {})
    registered = config.get("registered_name")
    cls: Any = None  # a registered object may be any callable
    for key in (registered, class_name):
        if key is not None and cls is None:
            cls = get_registered_object(key, custom_objects)
    if cls is None and class_name == "Functional":
        from tpustrategy.keras.models.model import Model  # lazy: models use this module for their configs

        cls = Model
    if cls is None:
        modules = _builtin_modules()
        module = modules.get(config.get("module") or "", None)
        # a legacy (.h5) config names no module: any built-in module may hold the class
        candidates = [module] if module is not None else [] if config.get("module") else list(modules.values())
        candidates += list(module_objects.values()) if isinstance(module_objects, dict) else []
        for candidate in candidates:
            found = getattr(candidate, class_name, None)
            if isinstance(found, type):
                cls = found
                break
    if cls is None:
        raise TypeError(f"Could not locate class '{class_name}' (module {config.get('module')!r}). Make sure custom "
                        "classes are decorated with `@keras.saving.register_keras_serializable()` or passed in "
                        "`custom_objects`.")
    with custom_object_scope(custom_objects):
        if class_name == "Functional" or hasattr(cls, "from_config"):
            obj = cls.from_config(dict(inner)) if inner is not None else cls()
        else:
            obj = cls(**inner)
        build_config = config.get("build_config")
        if build_config and build_config.get("input_shape") is not None and not getattr(obj, "built", True):
            shape = _shape_from_json(build_config["input_shape"])
            obj._maybe_build(shape) if hasattr(obj, "_maybe_build") else obj.build(shape)
    return obj


def _shape_from_json(shape: list[Any]) -> tuple[Any, ...] | list[tuple[Any, ...]]:
    if isinstance(shape, list) and shape and all(isinstance(s, list) for s in shape):
        return [tuple(s) for s in shape]
    return tuple(shape)


__all__ = ["custom_object_scope", "deserialize_keras_object", "dtype_name", "get_registered_name",
           "get_registered_object", "register_keras_serializable", "serialize_keras_object"]
