"""The registry of custom Keras objects (``register_keras_serializable``, ``custom_object_scope``) and
dtype-policy names: the part of serialization that the low Keras modules (activations, layers) need, kept
apart from serialization_lib, which knows every built-in class."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from typing import Any, cast

_REGISTERED: dict[str, Any] = {}  # "package>name" -> class or function
_CUSTOM_OBJECTS: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("keras_custom_objects",
                                                                                       default=None)


def register_keras_serializable(package: str = "Custom", name: str | None = None) -> Callable[[Any], Any]:
    """Registers a class or function under ``"package>name"`` so ``load_model`` finds it (Keras 3)."""

    def decorator(arg: Any) -> Any:
        registered = f"{package}>{name or arg.__name__}"
        if registered in _REGISTERED and _REGISTERED[registered] is not arg:
            raise ValueError(f"{registered} has already been registered to {_REGISTERED[registered]}")
        _REGISTERED[registered] = arg
        arg._keras_registered_name = registered
        return arg

    return decorator


def get_registered_name(obj: Any) -> str:
    """The name `obj` is serialized under: its ``"package>name"`` if registered, else its class or function name.

    An instance with ``get_config`` is looked up through its class.
    """
    target = obj if isinstance(obj, type) or callable(obj) and not hasattr(obj, "get_config") else type(obj)
    name: str = vars(target).get("_keras_registered_name", target.__name__) if hasattr(target, "__dict__") \
        else target.__name__
    return name


def get_registered_object(name: str | None, custom_objects: dict[str, Any] | None = None) -> Any:
    """Looks up a registered class or function by its serialized name.

    Objects passed in `custom_objects` or an enclosing ``custom_object_scope`` take precedence over the
    global registry.

    Args:
        name: The ``"package>name"`` (or custom-object key) to find; None finds nothing.
        custom_objects: Extra name -> object mappings to search first.

    Returns:
        The object, or None when nothing matches.
    """
    if name is None:  # nothing is registered without a name
        return None
    custom = {**(_CUSTOM_OBJECTS.get() or {}), **(custom_objects or {})}
    return custom.get(name) or _REGISTERED.get(name)


@contextlib.contextmanager
def custom_object_scope(custom_objects: dict[str, Any] | None) -> Iterator[None]:
    """Makes `custom_objects` (name -> class or function) visible to deserialization inside the block."""
    token = _CUSTOM_OBJECTS.set({**(_CUSTOM_OBJECTS.get() or {}), **(custom_objects or {})})
    try:
        yield
    finally:
        _CUSTOM_OBJECTS.reset(token)


def dtype_name(dtype: Any) -> str:
    """A dtype name from a name, a DType, or a Keras DTypePolicy dict / object."""
    if isinstance(dtype, dict):
        if dtype.get("class_name") not in ("DTypePolicy", "FloatDTypePolicy"):
            raise ValueError(f"Unsupported dtype policy {dtype.get('class_name')!r} in {dtype!r}")
        name: str = dtype["config"]["name"]
        return name
    return cast(str, getattr(dtype, "name", dtype))  # a DType's or policy's name, or the name as given


__all__ = ["custom_object_scope", "dtype_name", "get_registered_name", "get_registered_object",
           "register_keras_serializable"]
