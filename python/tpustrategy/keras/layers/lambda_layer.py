"""``keras.layers.Lambda``: wraps a function of tensors as a layer (``arguments`` passed as keywords)."""

from __future__ import annotations

import inspect

from tpustrategy.keras.layers.layer import Layer


class Lambda(Layer):
    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        if not callable(function):
            raise TypeError(f"`function` of a Lambda layer must be callable. Received: function={function!r}")
        self.function = function
        self.arguments = dict(arguments or {})
        self._output_shape = output_shape
        params = inspect.signature(function).parameters if _has_signature(function) else {}
        self._fn_training = "training" in params
        self._fn_mask = "mask" in params

    def call(self, inputs, mask=None, training=None):
        kwargs = dict(self.arguments)
        if self._fn_mask:
            kwargs["mask"] = mask
        if self._fn_training:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def get_config(self):
        """Not built: Keras 3 stores a Lambda's Python bytecode (loadable only with safe_mode=False); this
        package does not serialize code, so a model with a Lambda (or a KerasTensor operator, which makes one)
        cannot be saved as ``.keras``; ``save_weights`` works."""
        raise NotImplementedError(f"Lambda layer {self.name!r} cannot be serialized here (Keras stores Python "
                                  "bytecode); replace it with a registered custom layer, or use `save_weights`.")


def _has_signature(fn) -> bool:
    try:
        inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    return True
