"""``tf.Module``: a named container of variables and sub-modules, what custom models and Keras build on.

Attributes are walked as TF does: in sorted attribute order, through nests (lists, tuples, dicts),
each object once, yielding a module's own matches before recursing into its sub-modules.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

from tpustrategy import nest
from tpustrategy.framework import deferred_restoration as _deferred
from tpustrategy.framework.name_scope import name_scope as _name_scope

_IGNORED = frozenset(("_self_unconditional_checkpoint_dependencies", "_self_unconditional_dependency_names"))
_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")


def _camel_to_snake(name: str) -> str:
    return re.sub(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))", r"_\1", name).lower()


def _is_variable(obj: object) -> bool:
    return getattr(obj, "_is_variable", False) or (hasattr(obj, "_primary") and hasattr(obj, "_values"))


def _is_trainable_variable(obj: object) -> bool:
    return _is_variable(obj) and getattr(obj, "trainable", False)


def _is_non_trainable_variable(obj: object) -> bool:
    return _is_variable(obj) and not getattr(obj, "trainable", False)


def _is_module(obj: object) -> bool:
    return isinstance(obj, Module)


class Module:
    """Base neural network module class (mirrors ``tf.Module``).

    Args:
      name: the module's name (a valid Python identifier); default: the class name in snake_case.

    Raises:
      ValueError: ``name`` is not a valid identifier.
    """

    def __init__(self, name: str | None = None) -> None:
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not _IDENTIFIER.match(str(name)):
            raise ValueError(f"{name!r} is not a valid module name. Module names must be valid Python identifiers "
                             "(e.g. a valid class name).")
        self._name = name
        with _name_scope(name) as scope_name:
            self._scope_name = scope_name
        self._name_scope = _name_scope(self._scope_name)

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if _deferred.pending:  # a checkpoint restored earlier may hold a value for this new child
            _deferred.notify(self)

    @property
    def name(self) -> str:
        """The module's name (as given to the constructor)."""
        return self._name

    @property
    def name_scope(self) -> _name_scope:
        """The name scope of this module: entering it prefixes new variable names with ``<name>/``."""
        return self._name_scope

    @property
    def variables(self) -> tuple[Any, ...]:
        """Every variable owned by this module and its sub-modules."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self) -> tuple[Any, ...]:
        """The trainable variables of this module and its sub-modules."""
        return tuple(self._flatten(predicate=_is_trainable_variable))

    @property
    def non_trainable_variables(self) -> tuple[Any, ...]:
        """The non-trainable variables of this module and its sub-modules."""
        return tuple(self._flatten(predicate=_is_non_trainable_variable))

    @property
    def submodules(self) -> tuple[Module, ...]:
        """Every module reachable from this one (not including itself), parents before children."""
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(self, recursive: bool = True, predicate: Callable[[Any], bool] | None = None,
                 attribute_traversal_key: Callable[[str], Any] | None = None, with_path: bool = False,
                 expand_composites: bool = False) -> Iterator[Any]:
        if predicate is None:
            predicate = lambda _: True  # noqa: E731
        return _flatten_module(self, recursive=recursive, predicate=predicate,
                               attribute_traversal_key=attribute_traversal_key, with_path=with_path,
                               module_path=(), seen={id(self)}, recursion_stack=[])

    @classmethod
    def with_name_scope(cls, method: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator: runs ``method`` inside the module's name scope."""

        @functools.wraps(method)
        def method_with_name_scope(self: Module, *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)

        return method_with_name_scope

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} object at {hex(id(self))}>"


def _leaves_with_paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if not nest.is_nested(value):
        yield path, value
        return
    if isinstance(value, dict):
        items = [(k, value[k]) for k in sorted(value)]
    else:
        items = list(enumerate(value))
    for key, child in items:
        yield from _leaves_with_paths(child, path + (key,))


def _flatten_module(module: Module, recursive: bool, predicate: Callable[[Any], bool],
                    attribute_traversal_key: Callable[[str], Any] | None, with_path: bool,
                    module_path: tuple[Any, ...], seen: set[int], recursion_stack: list[int]) -> Iterator[Any]:
    module_id = id(module)
    if module_id in recursion_stack:
        recursive = False
    submodules: list[tuple[tuple[Any, ...], Module]] = []
    module_dict = vars(module)
    for key in sorted(module_dict, key=attribute_traversal_key):
        if key in _IGNORED:
            continue
        for leaf_path, leaf in _leaves_with_paths(module_dict[key]):
            leaf_path = (key,) + leaf_path
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (module_path + leaf_path, leaf) if with_path else leaf
            if recursive and _is_module(leaf):
                submodules.append((module_path + leaf_path, leaf))
    recursion_stack.append(module_id)
    for submodule_path, submodule in submodules:
        yield from _flatten_module(submodule, recursive, predicate, attribute_traversal_key, with_path,
                                   submodule_path, seen, recursion_stack)
    recursion_stack.pop()
