"""``keras.callbacks.LambdaCallback``: callables as hooks (``on_epoch_end=lambda epoch, logs: ...``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tpustrategy.keras.callbacks.callback import Callback


class LambdaCallback(Callback):
    """A Callback whose hooks are the callables given (``keras.callbacks.LambdaCallback``).

    Each callable replaces the hook of that name on this instance, so it is called with that hook's arguments
    (``on_epoch_end(epoch, logs)``, ``on_train_begin(logs)`` ...); hooks not given do nothing.

    Args:
      on_epoch_begin, on_epoch_end, on_train_begin, on_train_end, on_train_batch_begin, on_train_batch_end:
        Callables for those hooks, or None.
      **kwargs: Callables for any other Callback hook, by its name (``on_test_end=...``).

    Raises:
      ValueError: A keyword that names no Callback attribute.
    """

    def __init__(self, on_epoch_begin: Callable[..., Any] | None = None, on_epoch_end: Callable[..., Any] | None = None,
                 on_train_begin: Callable[..., Any] | None = None, on_train_end: Callable[..., Any] | None = None,
                 on_train_batch_begin: Callable[..., Any] | None = None,
                 on_train_batch_end: Callable[..., Any] | None = None, **kwargs: Callable[..., Any]) -> None:
        super().__init__()
        hooks = dict(on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end, on_train_begin=on_train_begin,
                     on_train_end=on_train_end, on_train_batch_begin=on_train_batch_begin,
                     on_train_batch_end=on_train_batch_end, **kwargs)
        for name, fn in hooks.items():
            if fn is None:
                continue
            if not hasattr(Callback, name):
                raise ValueError(f"Unrecognized LambdaCallback hook: {name!r}")
            setattr(self, name, fn)
