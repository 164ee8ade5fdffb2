"""Identifier lookups the Keras modules share: class-name spelling and ``get(identifier)``."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

_Callable = TypeVar("_Callable", bound=Callable[..., Any])


def snake_case(name: str) -> str:
    """"GlorotUniform" -> "glorot_uniform" (Keras' spelling of class names as identifiers)."""
    name = re.sub(r"\W+", "", name)
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def lookup(identifier: object, base: type[_Callable], by_name: Mapping[str, Callable[[], Callable[..., Any]]],
           what: str, wrap_callable: Callable[[Callable[..., Any]], Callable[..., Any]] | None = None,
           ) -> Callable[..., Any] | None:
    """An instance of `base` for `identifier`: None, an instance, a subclass, a name (as given or the
    snake_case of a class name) in `by_name`, or a callable (wrapped by `wrap_callable` when given)."""
    if identifier is None:
        return None
    if isinstance(identifier, base):
        return identifier
    if isinstance(identifier, dict):  # a Keras 3 serialization ({"class_name": ..., "config": ...})
        # lazy: serialization_lib knows every built-in Keras class, so it sits above this module
        from tpustrategy.keras.saving.serialization_lib import deserialize_keras_object

        deserialized: Callable[..., Any] = deserialize_keras_object(identifier, printable_module_name=what)
        return deserialized
    if isinstance(identifier, type) and issubclass(identifier, base):
        instance: _Callable = identifier()
        return instance
    if isinstance(identifier, str):
        cls = by_name.get(identifier) or by_name.get(snake_case(identifier))
        if cls is not None:
            return cls()
    elif callable(identifier):
        return wrap_callable(identifier) if wrap_callable is not None else identifier
    raise ValueError(f"Could not interpret {what} identifier: {identifier!r}")
