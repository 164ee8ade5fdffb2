"""``keras.layers.Lambda``: wraps a function of tensors as a layer (``arguments`` passed as keywords)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from tpustrategy.keras.layers.layer import Layer


class Lambda(Layer):
    """Wraps a function of tensors as a layer, called as ``function(inputs, **arguments)``.

    The function also receives ``mask`` and ``training`` when its signature names them. It cannot create
    weights; its output shape is found by calling it, as for any layer here.

    Args:
      function: the callable to wrap.
      output_shape, mask: kept for ``get_config`` only (a shape or callable; a mask or callable).
      arguments: extra keyword arguments for every call.

    Raises:
      TypeError: `function` is not callable.
    """

    def __init__(self, function: Callable[..., Any], output_shape: Any = None, mask: Any = None,
                 arguments: dict[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not callable(function):
            raise TypeError(f"`function` of a Lambda layer must be callable. Received: function={function!r}")
        self.function = function
        self.arguments = dict(arguments or {})
        self._output_shape = output_shape
        self._mask = mask
        params = inspect.signature(function).parameters if _has_signature(function) else {}
        self._fn_training = "training" in params
        self._fn_mask = "mask" in params

    def call(self, inputs: Any, mask: Any = None, training: bool | None = None) -> Any:
        kwargs = dict(self.arguments)
        if self._fn_mask:
            kwargs["mask"] = mask
        if self._fn_training:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def get_config(self) -> dict[str, Any]:
        """Keras 3's config: a lambda's code marshalled (loadable only with safe_mode=False), a named function
        by module and name, then `arguments` (and `output_shape` / `mask` when given)."""
        from tpustrategy.keras.layers.layer_config import dtype_policy

        # lazy: the saving package sits above the layers (it reads and rebuilds them)
        from tpustrategy.keras.saving.function_code import serialize_function
        from tpustrategy.keras.saving.serialization_lib import serialize_keras_object

        config = {"name": self.name, "trainable": self.trainable, "dtype": dtype_policy(self.dtype_policy.name),
                  "function": serialize_function(self.function, self.name)}
        if self._output_shape is not None:
            config["output_shape"] = serialize_function(self._output_shape, self.name) if callable(
                self._output_shape) else list(self._output_shape)
        if self._mask is not None:
            config["mask"] = serialize_function(self._mask, self.name) if callable(self._mask) else self._mask
        config["arguments"] = serialize_keras_object(self.arguments)
        return config

    @classmethod
    def from_config(cls, config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Lambda:
        """A Lambda rebuilt from ``get_config()``'s dict: the function (and a callable output_shape or mask)
        found in `custom_objects`, the registered objects or the module it came from, or rebuilt from marshalled
        code outside safe mode.

        Raises:
          ValueError: a lambda's code in safe mode, or a function name nothing registers.
          TypeError: a function whose module or name cannot be found.
        """
        from tpustrategy.keras.config_kwargs import constructor_kwargs

        # lazy: the saving package sits above the layers (it reads and rebuilds them)
        from tpustrategy.keras.saving.function_code import deserialize_function

        config = dict(config)
        config["function"] = deserialize_function(config["function"], custom_objects)
        for key in ("output_shape", "mask"):
            value = config.get(key)
            if isinstance(value, dict) and value.get("class_name") in ("__lambda__", "function"):
                config[key] = deserialize_function(value, custom_objects)
            elif isinstance(value, list):
                config[key] = tuple(value)
        return cls(**constructor_kwargs(cls, config))

def _has_signature(fn: Callable[..., Any]) -> bool:
    try:
        inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    return True
