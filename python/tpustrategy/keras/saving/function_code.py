"""A Python lambda as Keras 3 stores it in a Lambda layer's config: its code object marshalled and
base64-encoded (``{"class_name": "__lambda__", "config": {"code", "defaults", "closure"}}``), or a named
function as ``{"module", "class_name": "function", "config": <name>, "registered_name"}``.

Marshalled code is specific to the Python minor version that wrote it, as in Keras. Loading code runs
whatever the file holds, so it is refused unless safe mode is off (``load_model(..., safe_mode=False)`` or
``keras.config.enable_unsafe_deserialization()``), with Keras' error.
"""

from __future__ import annotations

import builtins
import codecs
import importlib
import json
import marshal
import threading
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, cast

_STATE = threading.local()
_UNSAFE_GLOBALLY = [False]

# Keras 3.15's message, word for word (its closing backtick is missing there too)
LAMBDA_REFUSED = ("Requested the deserialization of a `Lambda` layer whose `function` is a Python lambda. This "
                  "carries a potential risk of arbitrary code execution and thus it is disallowed by default. If you "
                  "trust the source of the artifact, you can override this error by passing `safe_mode=False` to the "
                  "loading function, or calling `keras.config.enable_unsafe_deserialization().")


def enable_unsafe_deserialization() -> None:
    """Lets every later load deserialize Lambda code (Keras 3's ``keras.config`` switch)."""
    _UNSAFE_GLOBALLY[0] = True


@contextmanager
def safe_mode_scope(safe_mode: bool | None) -> Iterator[None]:
    previous = getattr(_STATE, "safe_mode", None)
    _STATE.safe_mode = safe_mode
    try:
        yield
    finally:
        _STATE.safe_mode = previous


def in_safe_mode() -> bool:
    if _UNSAFE_GLOBALLY[0]:
        return False
    return getattr(_STATE, "safe_mode", None) is not False  # unset counts as safe (fails closed, as Keras)


def _jsonable(value: list[Any] | None, what: str, layer_name: str) -> list[Any] | None:
    try:
        json.dumps(value)
    except TypeError as error:
        raise TypeError(f"Lambda layer {layer_name!r}: the function's {what} {value!r} cannot be saved (only plain "
                        "values can be stored with its code); use a registered custom layer instead.") from error
    return value


def serialize_function(fn: Callable[..., Any], layer_name: str) -> dict[str, Any]:
    if isinstance(fn, types.LambdaType) and fn.__name__ == "<lambda>":
        code = codecs.encode(marshal.dumps(fn.__code__), "base64").decode("ascii")
        defaults = _jsonable(list(fn.__defaults__) if fn.__defaults__ else None, "defaults", layer_name)
        closure: tuple[Any, ...] | list[Any] | None = (tuple(c.cell_contents for c in fn.__closure__)
                                                       if fn.__closure__ else None)
        closure = _jsonable(list(closure) if closure else None, "closure", layer_name)
        return {"class_name": "__lambda__", "config": {"code": code, "defaults": defaults, "closure": closure}}
    if callable(fn) and hasattr(fn, "__name__"):
        registered = vars(fn).get("_keras_registered_name") if hasattr(fn, "__dict__") else None
        return {"module": fn.__module__, "class_name": "function", "config": fn.__name__,
                "registered_name": registered or fn.__name__}
    raise ValueError(f"Invalid input type for serialization. Received: {fn} of type {type(fn)}.")


def _cell(value: Any) -> types.CellType:
    return cast("tuple[types.CellType]", (lambda: value).__closure__)[0]  # the lambda closes over `value`


def deserialize_function(config: str | dict[str, Any],
                         custom_objects: dict[str, Any] | None = None) -> Any:
    """The function a Lambda config holds (a registered object or a module's attribute, as found); a lambda's
    code only outside safe mode."""
    from tpustrategy.keras.object_registration import get_registered_object

    if isinstance(config, str):
        found = get_registered_object(config, custom_objects)
        if found is None:
            raise ValueError(f"Unknown function {config!r} in a Lambda layer's config: pass it in `custom_objects`.")
        return found
    if config.get("class_name") == "__lambda__":
        if in_safe_mode():
            raise ValueError(LAMBDA_REFUSED)
        inner = config["config"]
        code = marshal.loads(codecs.decode(inner["code"].encode("ascii"), "base64"))
        defaults = tuple(inner["defaults"]) if inner.get("defaults") is not None else None
        closure = tuple(_cell(v) for v in inner["closure"]) if inner.get("closure") else None
        return types.FunctionType(code, {"__builtins__": builtins}, code.co_name, defaults, closure)
    name, module = config.get("config"), config.get("module")
    for key in (config.get("registered_name"), name):
        found = get_registered_object(key, custom_objects) if key else None
        if found is not None:
            return found
    try:
        # a missing module or name (None) raises the TypeError below
        return getattr(importlib.import_module(module), name)  # type: ignore[arg-type]
    except (ImportError, AttributeError, TypeError) as error:
        raise TypeError(f"Could not locate function '{name}' (module {module!r}) of a Lambda layer: register it "
                        "with `@keras.saving.register_keras_serializable()` or pass it in `custom_objects`.") from error


__all__ = ["LAMBDA_REFUSED", "deserialize_function", "enable_unsafe_deserialization", "in_safe_mode",
           "safe_mode_scope", "serialize_function"]
