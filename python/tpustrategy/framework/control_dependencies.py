"""``tf.control_dependencies``: eager ops run in program order, so the dependencies are already met (TF ignores
them eagerly too); the inputs are still checked as TF checks them."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any


@contextlib.contextmanager
def control_dependencies(control_inputs: Iterable[Any] | None) -> Iterator[None]:
    """A no-op block in eager mode; `control_inputs` must be None or an iterable (of ops, tensors or None)."""
    if control_inputs is not None and not hasattr(control_inputs, "__iter__"):
        raise TypeError(f"control_inputs must be None or an iterable, got {type(control_inputs).__name__}")
    yield
