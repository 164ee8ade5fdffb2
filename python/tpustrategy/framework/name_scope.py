"""``tf.name_scope`` in eager mode: a stack of scope names that prefixes the names of new variables.

Eager TF does not make scope names unique (two ``name_scope("a")`` both give ``"a/"``); a name
ending in ``/`` is absolute. The stack is a context variable, so each replica greenlet sees its own.
"""

from __future__ import annotations

import contextvars
import re
from types import TracebackType
from typing import Literal

_current: contextvars.ContextVar[str] = contextvars.ContextVar("tpustrategy_name_scope", default="")
_VALID_SCOPE = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")


def current_scope() -> str:
    """The current scope prefix, "" at top level or "outer/inner/"."""
    return _current.get()


class name_scope:  # noqa: N801 - TF's name
    """A context manager for use when defining a Python op; ``with name_scope("a") as scope`` gives "a/"."""

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise ValueError(f"name for name_scope must be a string, got {name!r}")
        if name and not _VALID_SCOPE.match(name):
            raise ValueError(f"'{name}' is not a valid scope name. A scope name has to match the following "
                             r"pattern: ^[A-Za-z0-9_.\\/>-]*$")
        self._name = name
        self._tokens: list[contextvars.Token[str]] = []

    @property
    def name(self) -> str:
        """The name given at construction (not the full scope entered, which ``__enter__`` returns)."""
        return self._name

    def __enter__(self) -> str:
        if not self._name:
            scope = ""
        elif self._name.endswith("/"):
            scope = self._name
        else:
            scope = current_scope() + self._name + "/"
        self._tokens.append(_current.set(scope))
        return scope

    def __exit__(self, typ: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> Literal[False]:
        _current.reset(self._tokens.pop())
        return False
