"""The functions a user reaches from ``import tpustrategy as tf``: module functions and the public methods and
properties of public classes (their tpustrategy base classes included), under names without a leading underscore.
Functions of the C++ extension are left out (their signatures are in the generated _core stubs)."""

from __future__ import annotations

import inspect
import types
from collections.abc import Iterator

import tpustrategy

_Member = tuple[str, types.FunctionType | type, type | None]


def public_functions() -> Iterator[tuple[str, types.FunctionType]]:
    """(dotted name as reached, function) for every public Python function, each once."""
    for dotted, value, _ in public_members():
        if isinstance(value, types.FunctionType):
            yield dotted, value


def public_members() -> Iterator[tuple[str, types.FunctionType | type, type | None]]:
    """(dotted name as reached, function or class, the class it was reached through or None) for every public
    Python function and class, each once."""
    seen: set[int] = set()
    yield from _module(tpustrategy.__name__, tpustrategy, seen)


def missing_annotations(function: types.FunctionType) -> list[str]:
    """The parameters (and "return") of `function` without an annotation; `self` / `cls` need none, nor
    ``__init__``'s return."""
    annotations = function.__annotations__
    parameters = list(inspect.signature(function).parameters)
    if parameters and parameters[0] in ("self", "cls"):
        parameters = parameters[1:]
    missing = [name for name in parameters if name not in annotations]
    if "return" not in annotations and function.__name__ != "__init__":
        missing.append("return")
    return missing


def _ours(value: object) -> bool:
    return (getattr(value, "__module__", None) or "").startswith("tpustrategy")


def _once(value: object, seen: set[int]) -> bool:
    if id(value) in seen:
        return False
    seen.add(id(value))
    return True


def _module(dotted: str, module: types.ModuleType, seen: set[int]) -> Iterator[_Member]:
    if not _once(module, seen):
        return
    names = getattr(module, "__all__", None) or dir(module)
    for name in names:
        if name.startswith("_"):
            continue
        value = getattr(module, name, None)
        where = f"{dotted}.{name}"
        if isinstance(value, types.ModuleType):
            if value.__name__.startswith("tpustrategy."):
                yield from _module(where, value, seen)
        elif isinstance(value, type):
            yield from _class(where, value, seen)
        else:
            yield from _function(where, value, seen, None)


def _class(dotted: str, cls: type, seen: set[int]) -> Iterator[_Member]:
    if not _once(cls, seen):
        return
    if _ours(cls):
        yield dotted, cls, None
    for base in cls.__mro__:
        if not _ours(base):
            continue
        for name, value in vars(base).items():
            if name.startswith("_") and name not in ("__init__", "__call__"):
                continue
            where = f"{dotted}.{name}"
            if isinstance(value, property):
                for accessor in (value.fget, value.fset):
                    yield from _function(where, accessor, seen, cls)
            else:
                yield from _function(where, getattr(value, "__func__", value), seen, cls)


def _function(dotted: str, value: object, seen: set[int], owner: type | None) -> Iterator[_Member]:
    if isinstance(value, types.FunctionType) and _ours(value) and _once(value, seen):
        yield dotted, value, owner


