"""``Optimizer.get_config`` / ``from_config`` in Keras 3's form.

The config holds ``name``, ``learning_rate`` (a float, or a schedule's serialization when it has
``get_config``), the clipping options and the subclass's own hyperparameters. Keras 3 also writes options
this package does not build (EMA, weight decay on the base class, loss-scale factor, gradient
accumulation); ``from_config`` accepts them at their defaults and names any other value.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tpustrategy.keras.optimizers.optimizer import Optimizer

# Keras 3 base-optimizer options that are not built here, with the default value Keras writes.
_UNBUILT_DEFAULTS = {"weight_decay": None, "use_ema": False, "ema_momentum": 0.99, "ema_overwrite_frequency": None,
                     "gradient_accumulation_steps": None}


def optimizer_config(optimizer: Optimizer) -> dict[str, Any]:
    # lazy: serialization_lib knows every built-in Keras class, so it sits above this module
    from tpustrategy.keras.saving.serialization_lib import serialize_keras_object

    lr = optimizer._learning_rate
    if callable(lr):
        if not hasattr(lr, "get_config"):
            raise NotImplementedError(f"The learning-rate schedule {lr!r} has no `get_config`; it cannot be saved.")
        lr = serialize_keras_object(lr)
    else:
        lr = float(lr)
    config = {"name": optimizer.name, "learning_rate": lr, "clipnorm": optimizer.clipnorm,
              "global_clipnorm": optimizer.global_clipnorm, "clipvalue": optimizer.clipvalue,
              "loss_scale_factor": optimizer.loss_scale_factor}
    for name, p in inspect.signature(type(optimizer).__init__).parameters.items():
        if name in ("self", "learning_rate", "name", "kwargs") or p.kind is p.VAR_KEYWORD:
            continue
        config[name] = getattr(optimizer, name, None if p.default is p.empty else p.default)
    return config


def optimizer_from_config(cls: type[Optimizer], config: Mapping[str, Any]) -> Optimizer:
    # lazy: serialization_lib knows every built-in Keras class, so it sits above this module
    from tpustrategy.keras.saving.serialization_lib import deserialize_keras_object

    config = dict(config)
    accepted = set(inspect.signature(cls.__init__).parameters) | {"clipnorm", "clipvalue", "global_clipnorm",
                                                                  "loss_scale_factor"}
    for key, default in _UNBUILT_DEFAULTS.items():
        if key in config and key not in accepted:
            value = config.pop(key)
            if value != default:
                raise ValueError(f"{cls.__name__}.from_config: `{key}`={value!r} is not built in this package "
                                 f"(only the default {default!r}).")
    if isinstance(config.get("learning_rate"), dict):
        config["learning_rate"] = deserialize_keras_object(config["learning_rate"])
    return cls(**config)


__all__ = ["optimizer_config", "optimizer_from_config"]
