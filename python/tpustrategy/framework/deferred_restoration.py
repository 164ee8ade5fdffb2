"""Checkpoint values waiting for objects that do not exist yet (TF's deferred restoration).

``tf.train.Checkpoint.restore`` registers, per existing object, the checkpoint children it could not
match (a layer's kernel before the layer is built, an optimizer's slots before its first step). An
object that gains children calls ``notify(self)`` — ``tf.Module`` on every attribute assignment, the
optimizers after creating slots — and the waiting values are restored into the new variables at once.
Kept here, below both, so that neither tf.Module nor the optimizers import the checkpoint code.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

# object -> {key: callable(object)}: one callback per restoration waiting on the object
pending: weakref.WeakKeyDictionary[Any, dict[int, Callable[[Any], object]]] = weakref.WeakKeyDictionary()


def notify(obj: object) -> None:
    """Restores the checkpoint values waiting for children of `obj` that now exist."""
    if not pending:
        return
    try:
        callbacks = pending.get(obj)
    except TypeError:  # unhashable or not weak-referenceable: never registered
        return
    for callback in list((callbacks or {}).values()):
        callback(obj)
