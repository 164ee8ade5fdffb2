"""The object graph of a checkpoint: which objects hold state and what their children are called.

As TF's trackable objects: a variable (plain or distributed) is a leaf saved under the attribute
``VARIABLE_VALUE``; an object's children are, in this order of preference, what its
``_trackable_children()`` returns (Checkpoint, the optimizers), the items of a list / tuple / dict
(named "0", "1", ... / by key), or a ``tf.Module``'s (or any object's) attributes in assignment order.
Only trackable values count: variables, Modules, objects with ``_trackable_children``, and containers
holding any of those. The graph is walked breadth first from the root; an object's checkpoint key is
the path by which the walk first reaches it, each name escaped as TF does ("." -> "..", "/" -> ".S").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tpustrategy.module import Module
from tpustrategy.variables import VariableAggregation, VariableSynchronization

ATTRIBUTE = "VARIABLE_VALUE"
# (objects, paths, references) of a walk: see breadth_first.
Graph = tuple[list[Any], list[tuple[str, ...]], list[list[tuple[int, str]]]]


def escape(name: str) -> str:
    return name.replace(".", "..").replace("/", ".S")


def checkpoint_key(path: Sequence[str]) -> str:
    return "/".join(escape(p) for p in path) + "/.ATTRIBUTES/" + ATTRIBUTE


def is_leaf(obj: object) -> bool:
    """A variable, or a value holder with ``_checkpoint_read`` / ``_checkpoint_assign``."""
    return bool(getattr(obj, "_is_variable", False)) or callable(getattr(obj, "_checkpoint_read", None))


def is_container(obj: object) -> bool:
    return isinstance(obj, (list, tuple, dict))


def is_trackable(obj: Any, depth: int = 0) -> bool:
    if is_leaf(obj) or isinstance(obj, Module):
        return True
    if isinstance(obj, type):
        return False
    if callable(getattr(obj, "_trackable_children", None)):
        return True
    if is_container(obj) and depth < 64:
        values = obj.values() if isinstance(obj, dict) else obj
        return any(is_trackable(v, depth + 1) for v in values)
    return False


def children(obj: Any) -> list[tuple[str, Any]]:
    """(name, child) pairs of `obj`, in TF's order."""
    if is_leaf(obj):
        return []
    method = getattr(obj, "_trackable_children", None)
    if callable(method) and not isinstance(obj, type):
        return [(str(name), child) for name, child in method() if child is not None]
    if isinstance(obj, dict):
        return [(str(key), value) for key, value in obj.items() if is_trackable(value)]
    if isinstance(obj, (list, tuple)):
        return [(str(i), value) for i, value in enumerate(obj) if is_trackable(value)]
    if isinstance(obj, Module):
        return [(name, value) for name, value in vars(obj).items() if is_trackable(value)]
    return []


def breadth_first(root: Any) -> Graph:
    """(objects, paths, references): objects in node order, the path (names) of each, and each node's
    child references as (node id, name)."""
    objects: list[Any] = [root]
    paths: list[tuple[str, ...]] = [()]
    references: list[list[tuple[int, str]]] = []
    ids = {id(root): 0}
    i = 0
    while i < len(objects):
        refs: list[tuple[int, str]] = []
        for name, child in children(objects[i]):
            node_id = ids.get(id(child))
            if node_id is None:
                node_id = ids[id(child)] = len(objects)
                objects.append(child)
                paths.append(paths[i] + (name,))
            refs.append((node_id, name))
        references.append(refs)
        i += 1
    return objects, paths, references


def full_name(obj: Any) -> str:
    name: str = getattr(obj, "_checkpoint_full_name", None) or getattr(obj, "name", "") or ""
    return name[:-2] if name.endswith(":0") else name


def _is_distributed(var: object) -> bool:
    return bool(getattr(var, "_is_distributed_variable", False))


def read_value(obj: Any) -> np.ndarray:
    """The value saved for a leaf: a distributed variable's primary (Mirrored) or aggregate (SyncOnRead),
    as TF saves one value per distributed variable."""
    if callable(getattr(obj, "_checkpoint_read", None)):
        return np.asarray(obj._checkpoint_read())
    if _is_distributed(obj) and obj.synchronization == VariableSynchronization.ON_READ and \
            obj.aggregation == VariableAggregation.NONE:
        return np.asarray(obj._primary.numpy())
    return np.asarray(obj.numpy())


def signature(obj: Any) -> tuple[np.dtype[Any], tuple[int, ...]] | None:
    """(numpy dtype, shape) of a variable leaf, read from one component; None for value holders, which convert
    themselves."""
    if callable(getattr(obj, "_checkpoint_read", None)):
        return None
    value = np.asarray(obj._primary.numpy() if _is_distributed(obj) else obj.numpy())
    return value.dtype, value.shape


def assign_value(obj: Any, array: np.ndarray | bytes) -> None:
    """Restores a leaf; a distributed variable gets the value on every component (a SyncOnRead SUM
    variable value / replicas, as TF), so a checkpoint restores under any strategy or replica count."""
    if callable(getattr(obj, "_checkpoint_assign", None)):
        obj._checkpoint_assign(array)
        return
    if not _is_distributed(obj):
        obj.assign(array)
        return
    components = obj._values
    if obj.synchronization == VariableSynchronization.ON_READ and obj.aggregation == VariableAggregation.SUM:
        assert isinstance(array, np.ndarray)  # SUM variables are numeric: their dtype was checked
        array = (array / len(components)).astype(array.dtype)
    for component in components:
        component.assign(array)
