"""Nested structures (``tf.nest``), over dm-tree: the C++ ``flatten`` / ``assert_same_structure`` that
TensorFlow's own nest was extracted into, so structures, orders and error messages are TF's.

A structure is built from sequences (lists, tuples, namedtuples, any ``collections.abc.Sequence``
but strings), mappings (dicts and OrderedDicts alike visited in sorted key order; a rebuilt mapping
keeps its template's key order), mapping views and ``attrs`` classes; anything else is a leaf,
``None`` and ``DistributedValues`` included.

``pack_sequence_as`` is Python, as in TensorFlow (dm-tree's is slower: it re-flattens every level).
``expand_composites=True`` expands the composite tensors (SparseTensor, IndexedSlices, RaggedTensor: any object
with ``_composite_components()`` and ``_from_composite_components(components)``) into their component tensors,
in TF's order, and rebuilds them when packing.
"""

from __future__ import annotations

import collections
import types
from collections.abc import Callable, Mapping, MappingView
from typing import Any

# dm-tree is imported on first use rather than with tpustrategy (through wrapt it adds ~25 ms to the
# import). Until then the names below are stubs that load it and rebind themselves to dm-tree's C++
# functions (not its Python wrappers, which only forward to them: one call less on the run() path).
_tree: Any = None


def _load() -> None:
    global _tree, _is_sequence, _flatten, _check_same_structure, is_nested
    import tree

    extension = getattr(tree, "_tree", tree)
    _tree = tree
    _is_sequence = is_nested = getattr(extension, "is_sequence", tree.is_nested)
    _flatten = getattr(extension, "flatten", tree.flatten)
    _check_same_structure = getattr(extension, "assert_same_structure", tree.assert_same_structure)


def _is_sequence(structure: Any) -> bool:
    _load()
    return _is_sequence(structure)


def _flatten(structure: Any) -> list[Any]:
    _load()
    return _flatten(structure)


def _check_same_structure(nest1: Any, nest2: Any, check_types: bool) -> None:
    _load()
    _check_same_structure(nest1, nest2, check_types)


def is_nested(structure: Any) -> bool:  # noqa: F811  (the stub _load replaces)
    """True for the structures the module docstring lists, False for leaves."""
    _load()
    return is_nested(structure)


__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure", "pack_sequence_as"]


def _is_composite(value: Any) -> bool:
    return (hasattr(value, "_composite_components") or hasattr(value, "_nest_components")) and \
        not isinstance(value, type)


def _components(composite: Any) -> list[Any]:
    # PerReplica / Mirrored expand to their replicas' values (TF's are CompositeTensors) without counting as
    # tensors for tf.is_tensor, hence their own hook.
    components: list[Any] = composite._nest_components() if hasattr(composite, "_nest_components") else \
        composite._composite_components()
    return components


def _expanded(structure: Any) -> Any:
    """`structure` with each composite tensor replaced by the list of its component tensors."""
    if _is_composite(structure):
        return [_expanded(c) for c in _components(structure)]
    if not _is_sequence(structure):
        return structure
    return _sequence_like(structure, [_expanded(c) for c in _children(structure)]) \
        if not isinstance(structure, MappingView) else [_expanded(c) for c in _children(structure)]


def _flatten_expanded(structure: Any) -> list[Any]:
    return _flatten(_expanded(structure))


def _rebuild_composites(template: Any, flat: list[Any]) -> Any:
    """`flat` (leaves in expanded flatten order) packed into `template`, composites rebuilt from their parts."""
    expected = len(_flatten_expanded(template))
    if expected != len(flat):
        raise ValueError(f"Could not pack sequence. Structure had {expected} atoms, but flat_sequence had {len(flat)} "
                         "items.")
    leaves, index = [], 0
    for leaf in _flatten(template):
        if _is_composite(leaf):
            count = len(_flatten_expanded(leaf))
            leaves.append(_rebuild_one(leaf, flat[index:index + count]))
            index += count
        else:
            leaves.append(flat[index])
            index += 1
    return pack_sequence_as(template, leaves)


def _rebuild_one(composite: Any, flat: list[Any]) -> Any:
    parts = _rebuild_composites(_components(composite), flat)
    return composite._from_composite_components(list(parts))


def flatten(structure: Any, expand_composites: bool = False) -> list[Any]:
    """The leaves of `structure`, depth first (dict values by sorted key); a leaf flattens to ``[leaf]``.
    With `expand_composites`, composite tensors flatten to their component tensors."""
    if expand_composites:
        return _flatten_expanded(structure)
    return _flatten(structure)


def assert_same_structure(nest1: Any, nest2: Any, check_types: bool = True, expand_composites: bool = False) -> None:
    """Raises ValueError when the nesting or the number of elements differ and, with `check_types`, TypeError
    when sequence types differ (namedtuples of the same name and fields count as the same type) and
    ValueError when dict keys differ; the messages are TensorFlow's."""
    if expand_composites:
        _assert_same_composite_types(nest1, nest2, check_types)
        nest1, nest2 = _expanded(nest1), _expanded(nest2)
    try:
        _check_same_structure(nest1, nest2, check_types)
    except (ValueError, TypeError):
        _tree.assert_same_structure(nest1, nest2, check_types)  # raises again, with TF's whole-structure text
        raise


def _assert_same_composite_types(nest1: Any, nest2: Any, check_types: bool) -> None:
    if not check_types:
        return
    for a, b in zip(_flatten(nest1), _flatten(nest2), strict=False):
        if (_is_composite(a) or _is_composite(b)) and type(a) is not type(b):
            raise TypeError(f"The two structures don't have the same sequence type. Input structure has type "
                            f"{type(a)}, while shallow structure has type {type(b)}.")


def _assert_same_mapping_keys(nest1: Any, nest2: Any) -> None:
    """For tpustrategy's own callers that compare with ``check_types=False`` but still need every mapping
    to have the same keys (tf.nest checks keys only with check_types): ValueError in TF's words otherwise.
    Assumes the two already have the same nesting."""
    if isinstance(nest1, Mapping):
        keys1, keys2 = _sorted(nest1), _sorted(nest2) if isinstance(nest2, Mapping) else None
        if keys1 != keys2:
            raise ValueError(f"The two dictionaries don't have the same set of keys. First structure has keys "
                             f"type=list str={keys1}, while second structure has keys type=list str={keys2}")
    if is_nested(nest1) and is_nested(nest2):
        for child1, child2 in zip(_children(nest1), _children(nest2), strict=False):
            _assert_same_mapping_keys(child1, child2)


def _sorted(mapping: Mapping[Any, Any]) -> list[Any]:
    try:
        return sorted(mapping)
    except TypeError:
        raise TypeError("nest only supports dicts with sortable keys.") from None


def _is_attrs(value: Any) -> bool:
    return hasattr(type(value), "__attrs_attrs__")


def _children(structure: Any) -> Any:
    """The children of a nested `structure` in flatten order."""
    if isinstance(structure, (list, tuple)):
        return structure  # namedtuples and other subclasses: in field / index order
    if isinstance(structure, Mapping):
        return [structure[key] for key in _sorted(structure)]
    if _is_attrs(structure):
        return [getattr(structure, a.name) for a in type(structure).__attrs_attrs__]
    return structure


def _sequence_like(instance: Any, args: list[Any]) -> Any:
    """`args` in a container of `instance`'s type (mapping keys in `instance`'s own order)."""
    if isinstance(instance, tuple) and hasattr(type(instance), "_fields"):
        return type(instance)(*args)
    if isinstance(instance, Mapping):
        by_key = dict(zip(_sorted(instance), args, strict=True))
        items = ((key, by_key[key]) for key in instance)
        if isinstance(instance, collections.defaultdict):
            return type(instance)(instance.default_factory, items)
        if isinstance(instance, types.MappingProxyType):
            return types.MappingProxyType(dict(items))
        return type(instance)(items)  # type: ignore[call-arg]  # a concrete mapping class
    if isinstance(instance, MappingView):
        return list(args)  # views cannot be built directly
    if _is_attrs(instance):
        return type(instance)(**{a.name: arg for a, arg in zip(type(instance).__attrs_attrs__, args, strict=True)})
    return type(instance)(args)


def _pack(structure: Any, flat: list[Any], index: int) -> tuple[Any, int]:
    """(`structure` rebuilt around flat[index:...], the index after its leaves); IndexError if `flat` is short.

    Plain lists, tuples and dicts (nearly every run() argument) take the direct path."""
    kind = type(structure)
    if kind is dict:
        by_key = {}
        for key in _sorted(structure):
            child = structure[key]
            if _is_sequence(child):
                by_key[key], index = _pack(child, flat, index)
            else:
                by_key[key] = flat[index]
                index += 1
        return {key: by_key[key] for key in structure}, index
    children = []
    for child in (structure if kind is list or kind is tuple else _children(structure)):
        if _is_sequence(child):
            child, index = _pack(child, flat, index)
        else:
            child = flat[index]
            index += 1
        children.append(child)
    if kind is list:
        return children, index
    if kind is tuple:
        return tuple(children), index
    return _sequence_like(structure, children), index


def _truncate(value: Any, length: int = 100) -> str:
    text = str(value)
    return text[:length] + ("..." if len(text) > length else "")


def pack_sequence_as(structure: Any, flat_sequence: Any, expand_composites: bool = False) -> Any:
    """`flat_sequence` (a list of leaves in flatten order) packed into the shape of `structure`.

    Raises:
      TypeError: `flat_sequence` is not a sequence.
      ValueError: the number of leaves differs from `structure`'s.
    """
    if expand_composites and any(_is_composite(leaf) for leaf in _flatten(structure)):
        if not is_nested(flat_sequence):
            raise TypeError(f"Attempted to pack value:\n  {_truncate(flat_sequence)}\ninto a structure, but found "
                            f"incompatible type `{type(flat_sequence)}` instead.")
        return _rebuild_composites(structure, list(flat_sequence))
    if not is_nested(flat_sequence):
        raise TypeError(f"Attempted to pack value:\n  {_truncate(flat_sequence)}\ninto a structure, but found "
                        f"incompatible type `{type(flat_sequence)}` instead.")
    if not is_nested(structure):
        if len(flat_sequence) != 1:
            raise ValueError(f"The target structure is of type `{type(structure)}`\n  {_truncate(structure)}\n"
                             f"However the input is a sequence ({type(flat_sequence)}) of length "
                             f"{len(flat_sequence)}.\n  {_truncate(flat_sequence)}\nnest cannot guarantee that it "
                             "is safe to map one to the other.")
        return flat_sequence[0]
    try:
        packed, end = _pack(structure, flat_sequence, 0)
        if end < len(flat_sequence):
            raise IndexError
    except IndexError:
        expected = len(_flatten(structure))
        raise ValueError(f"Could not pack sequence. Structure had {expected} atoms, but flat_sequence had "
                         f"{len(flat_sequence)} items.  Structure: {structure}, flat_sequence: "
                         f"{flat_sequence}.") from None
    return packed


def map_structure(func: Callable[..., Any], *structure: Any, **kwargs: Any) -> Any:
    """``func`` applied to the corresponding leaves of the structures, in flatten order; the result has the
    first structure's shape. Keyword arguments: ``check_types`` (default True), ``expand_composites``."""
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    expand_composites = kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError("Only valid keyword arguments are `check_types` and `expand_composites`, not: `"
                         + "`, `".join(kwargs) + "`")
    first = structure[0]
    if expand_composites:
        for other in structure[1:]:
            assert_same_structure(first, other, check_types, expand_composites=True)
        flats = [flatten(s, expand_composites=True) for s in structure]
        return pack_sequence_as(first, [func(*leaves) for leaves in zip(*flats, strict=True)], expand_composites=True)
    if len(structure) == 1:
        return pack_sequence_as(first, [func(leaf) for leaf in _flatten(first)])
    for other in structure[1:]:
        assert_same_structure(first, other, check_types)
    return pack_sequence_as(first, [func(*leaves) for leaves in zip(*map(_flatten, structure), strict=True)])
