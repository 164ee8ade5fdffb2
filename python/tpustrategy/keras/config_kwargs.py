"""``from_config`` for Keras objects: a config dict as constructor keyword arguments.

Keys the constructor accepts pass through. Keys Keras 3 writes that this package has no use for are dropped
when they hold their neutral value (None / False, or the class's ``_keras_unbuilt_defaults``, e.g.
``quantization_config``, ``ragged``, BatchNormalization's ``renorm_momentum``); any other unknown key is a
ValueError naming it. A user class whose constructor takes ``**kwargs`` gets the config as it is.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any


def _is_builtin(cls: type) -> bool:
    return cls.__module__.startswith("tpustrategy.keras.")


def _parameters(cls: type) -> dict[str, inspect.Parameter]:
    """The named parameters of cls.__init__ and, while it takes **kwargs, of its bases' __init__."""
    out: dict[str, inspect.Parameter] = {}
    for klass in cls.__mro__:
        if "__init__" not in vars(klass):
            continue
        params = inspect.signature(vars(klass)["__init__"]).parameters
        for name, p in params.items():
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                out.setdefault(name, p)
        if not any(p.kind is p.VAR_KEYWORD for p in params.values()):
            break
    return out


def constructor_kwargs(cls: type[Any], config: Mapping[str, Any]) -> dict[str, Any]:
    """`config` as keyword arguments for cls(...): unknown neutral keys dropped, other unknown keys named."""
    config = dict(config)
    params = _parameters(cls)
    takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in inspect.signature(cls.__init__).parameters.values())
    if not _is_builtin(cls) and takes_kwargs:
        return config  # a user class forwards what it does not know to its base, as in Keras
    out = {}
    unbuilt = getattr(cls, "_keras_unbuilt_defaults", {})  # Keras options not built here, at their defaults
    for key, value in config.items():
        if key in params:
            out[key] = value
        elif key in unbuilt and value == unbuilt[key]:
            continue
        elif value not in (None, False) and not (key == "trainable" and value is True):
            raise ValueError(f"{cls.__name__}.from_config: argument `{key}`={value!r} is not supported by this "
                             f"package's {cls.__name__}.")
    return out


__all__ = ["constructor_kwargs"]
