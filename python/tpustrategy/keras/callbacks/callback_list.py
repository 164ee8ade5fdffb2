"""``keras.callbacks.CallbackList``: forwards every hook to its callbacks in order; adds History and
ProgbarLogger as Keras 3 does (``add_history``, ``add_progbar``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from tpustrategy.keras.callbacks.callback import Callback
from tpustrategy.keras.callbacks.history import History
from tpustrategy.keras.callbacks.progbar_logger import ProgbarLogger

if TYPE_CHECKING:
    from tpustrategy.keras.models.model import Model

_HOOKS = ("on_batch_begin", "on_batch_end", "on_epoch_begin", "on_epoch_end", "on_train_batch_begin",
          "on_train_batch_end", "on_test_batch_begin", "on_test_batch_end", "on_predict_batch_begin",
          "on_predict_batch_end", "on_train_begin", "on_train_end", "on_test_begin", "on_test_end",
          "on_predict_begin", "on_predict_end")


class CallbackList(Callback):
    """A Callback that forwards every hook to its callbacks, in list order (``keras.callbacks.CallbackList``).

    ``fit``, ``evaluate`` and ``predict`` wrap the ``callbacks`` they are given in one; passing a CallbackList
    uses it as is (no History or ProgbarLogger is added).

    Args:
      callbacks: The callbacks to forward to.
      add_history: Append a History unless one is in `callbacks`.
      add_progbar: Append a ProgbarLogger unless one is in `callbacks`.
      model: If given, attached to every callback (``set_model``).
      **params: If any, passed to every callback (``set_params``).

    Raises:
      TypeError: An element of `callbacks` is not a Callback.
    """

    def __init__(self, callbacks: Iterable[Callback] | None = None, add_history: bool = False,
                 add_progbar: bool = False, model: Model | None = None, **params: Any) -> None:
        super().__init__()
        self.callbacks = list(callbacks or [])
        for callback in self.callbacks:
            if not isinstance(callback, Callback):
                raise TypeError(f"Expected a keras.callbacks.Callback, got {callback!r} (of type {type(callback)})")
        if add_history and not any(isinstance(c, History) for c in self.callbacks):
            self.callbacks.append(History())
        if add_progbar and not any(isinstance(c, ProgbarLogger) for c in self.callbacks):
            self.callbacks.append(ProgbarLogger())
        if model is not None:
            self.set_model(model)
        if params:
            self.set_params(params)

    def append(self, callback: Callback) -> None:
        """Adds `callback` at the end (it is not given the model or params already set)."""
        self.callbacks.append(callback)

    def set_params(self, params: Any) -> None:
        """Stores `params` and passes them to every callback."""
        self.params = params
        for callback in self.callbacks:
            callback.set_params(params)

    def set_model(self, model: Model | None) -> None:
        """Attaches `model` here and to every callback."""
        self._model = model
        for callback in self.callbacks:
            callback.set_model(model)


def _forward(hook: str) -> Callable[..., None]:
    def method(self: CallbackList, *args: Any, **kwargs: Any) -> None:
        for callback in self.callbacks:
            getattr(callback, hook)(*args, **kwargs)

    method.__name__ = hook
    method.__doc__ = f"Calls ``{hook}`` on every callback, in order, with the same arguments."
    return method


for _hook in _HOOKS:
    setattr(CallbackList, _hook, _forward(_hook))
