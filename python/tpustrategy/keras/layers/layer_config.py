"""``get_config`` / ``from_config`` for layers, as Keras 3 does it.

A layer's config is ``{"name", "trainable", "dtype": <DTypePolicy dict>}`` followed by its constructor's
arguments. For the built-in layers each argument's value is read back from the attribute of the same
name (so normalised values such as ``kernel_size=(3, 3)`` appear), falling back to the argument as given;
for user subclasses the arguments as given are used (Keras 3's auto-config), and a value that is not
serializable asks the user to write ``get_config``. ``from_config`` passes the config to the constructor,
dropping keys that Keras writes but this package has no use for when they hold their neutral value
(None / False, e.g. ``quantization_config``, ``ragged``), and naming any other unknown key.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, cast

from tpustrategy.keras.config_kwargs import _is_builtin, constructor_kwargs

if TYPE_CHECKING:
    from tpustrategy.keras.layers.layer import Layer

_NOT_ARGUMENTS = {"self", "weights", "kwargs", "args"}  # Embedding's `weights=` is an initial value, not config


def dtype_policy(name: str) -> dict[str, Any]:
    return {"module": "keras", "class_name": "DTypePolicy", "config": {"name": name}, "registered_name": None}


def layer_config(layer: Layer) -> dict[str, Any]:
    # lazy: serialization_lib knows every built-in Keras class, so it sits above this module
    from tpustrategy.keras.saving.serialization_lib import serialize_keras_object

    config: dict[str, Any] = {"name": layer.name, "trainable": layer.trainable,
                              "dtype": dtype_policy(layer.dtype_policy.name)}
    if layer.activity_regularizer is not None:
        config["activity_regularizer"] = serialize_keras_object(layer.activity_regularizer)
    cls = type(layer)
    captured = getattr(layer, "_init_args", None) or {}
    own = [n for n in inspect.signature(cls.__init__).parameters if n not in _NOT_ARGUMENTS]
    if _is_builtin(cls):
        # the base, without importing it
        layer_class = cast("type[Layer]", next(k for k in cls.__mro__ if k.__name__ == "Layer"))
        base = set(inspect.signature(layer_class.__init__).parameters)
        for name in own:
            if name in base:
                continue
            value = getattr(layer, name) if name in vars(layer) else captured.get(name, _default(cls, name))
            config[name] = _serialize_value(name, value)
        return config
    if captured is None:
        raise NotImplementedError(f"Layer {cls.__name__} does not implement `get_config()`, and its constructor "
                                  "arguments could not be recorded; define `get_config()`.")
    takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in inspect.signature(cls.__init__).parameters.values())
    if not takes_kwargs:  # the base keys go only where the constructor accepts them (Keras 3 does the same)
        config = {k: v for k, v in config.items() if k in own}
    for name, value in captured.items():
        try:
            config[name] = _serialize_value(name, value)
        except TypeError as error:
            raise NotImplementedError(
                f"Layer {cls.__name__} does not have a `get_config()` method implemented, and its argument "
                f"`{name}`={value!r} is not serializable: define `get_config()` (and `from_config()` if needed)."
            ) from error
    return config


def _default(cls: type[Layer], name: str) -> Any:
    p = inspect.signature(cls.__init__).parameters[name]
    return None if p.default is inspect.Parameter.empty else p.default


def _serialize_value(name: str, value: Any) -> Any:
    from tpustrategy.keras import activations

    # lazy: serialization_lib knows every built-in Keras class, so it sits above this module
    from tpustrategy.keras.saving.serialization_lib import serialize_keras_object

    if name == "activation" and callable(value):
        return activations.serialize(value)
    if isinstance(value, tuple):
        return [_serialize_value(name, v) for v in value]
    if type(value).__module__ == "numpy":
        return value.tolist()
    return serialize_keras_object(value)


__all__ = ["constructor_kwargs", "dtype_policy", "layer_config"]  # constructor_kwargs: re-exported
