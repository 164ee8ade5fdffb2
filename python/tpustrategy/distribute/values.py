"""Distributed values: one component per replica, in replica order (``tf.distribute.DistributedValues``).

``PerReplica`` holds values that may differ between replicas; ``Mirrored`` holds values known to be equal.
``select_replica`` and ``regroup`` move between a nest of distributed values and per-replica nests.
"""

from __future__ import annotations

from collections import abc
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from tpustrategy import _core, nest
from tpustrategy._pictures import distribute_pictures
from tpustrategy.distribute import distribution_strategy_context as ds_context
from tpustrategy.framework.constant import convert_to_tensor
from tpustrategy.framework.operators import TensorOperators


class DistributedValues:
    """Base of every distributed value: ``.values`` is the tuple of components in replica order."""

    def __init__(self, values: Iterable[Any]) -> None:
        self._values = tuple(values)

    @property
    def values(self) -> tuple[Any, ...]:
        """The components, one per replica, in replica order."""
        return self._values

    def _local_replica_id(self) -> int | None:
        context = ds_context.get_replica_context()
        if context is None or ds_context.is_default_mode(ds_context.current_mode()):
            return None
        return context._position

    def _get(self) -> Any:
        """The component of the replica that is running, else the primary (replica 0) component."""
        replica_id = self._local_replica_id()
        return self._values[0 if replica_id is None else replica_id]

    def _as_tensor(self) -> Any:
        return convert_to_tensor(self._get_for_conversion())

    def _get_for_conversion(self) -> Any:
        return self._get()

    def __len__(self) -> int:
        return len(self._values)

    def _format(self, item_repr: Callable[[Any], str]) -> str:
        body = ",\n".join(f"  {i}: {item_repr(v)}" for i, v in enumerate(self._values))
        return f"{type(self).__name__}:{{\n{body}\n}}"

    def __repr__(self) -> str:
        return self._format(repr)

    def __str__(self) -> str:
        return self._format(str)

    def _repr_html_(self) -> str:
        """Jupyter: one row per replica with its component's device and a summary of its value."""
        return distribute_pictures.values_html(self)


class PerReplica(DistributedValues):
    """Values that may differ between replicas (e.g. the result of ``run``)."""

    def _nest_components(self) -> list[Any]:  # tf.nest with expand_composites=True sees the replicas' values
        return list(self._values)

    def _from_composite_components(self, components: Iterable[Any]) -> DistributedValues:
        return type(self)(components)

    def _get_for_conversion(self) -> Any:
        if self._local_replica_id() is None and len(self._values) > 1:
            raise ValueError("A PerReplica value cannot be used as a tensor in cross-replica context; use "
                             "strategy.experimental_local_results, strategy.reduce or strategy.gather")
        return self._get()


class Mirrored(TensorOperators, DistributedValues):
    """Values equal on every replica (e.g. an all-reduce result)."""

    _nest_components = PerReplica._nest_components
    _from_composite_components = PerReplica._from_composite_components

    def numpy(self) -> Any:
        """The running replica's component (the first outside a replica) as a NumPy array."""
        import numpy as np

        return np.asarray(self._get())

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Any:
        import numpy as np

        array = np.asarray(self._get())
        return array.astype(dtype) if dtype is not None else array


def is_distributed_variable(value: Any) -> bool:
    return getattr(value, "_is_distributed_variable", False)


_Tensor = _core.tensor.Tensor
# Results regroup walks without container checks: what replica functions return most (None, a tensor, a number).
_LEAF_TYPES = frozenset((type(None), _Tensor, int, float, bool, str))


def select_replica(replica_id: int, structure: Any) -> Any:
    """Replica `replica_id`'s view of `structure`: DistributedValues that are not variables become their
    component; variables and plain values pass through."""

    def select(value: Any) -> Any:
        if isinstance(value, DistributedValues) and not is_distributed_variable(value):
            return value.values[replica_id]
        return value

    return nest.map_structure(select, structure)


# Each replica's (args, kwargs), in replica order.
ReplicaArguments = list[tuple[Sequence[Any], dict[str, Any]]]


def select_flat_arguments(args: Sequence[Any], kwargs: dict[str, Any], count: int) -> ReplicaArguments | None:
    """``(select_replica(i, args), select_replica(i, kwargs))`` for i < `count`, when no argument is a nest (the
    common ``run(fn, args=(x,))``); None otherwise. Builds each replica's arguments with one pass per step."""
    if any(nest.is_nested(a) for a in args) or any(nest.is_nested(v) for v in kwargs.values()):
        return None
    values = (*args, *kwargs.values())
    return _flat_rows(args, kwargs, values, [_column(a) for a in values], count)


_ARGUMENT_TYPES = frozenset((tuple, list))


def replica_arguments(args: Sequence[Any], kwargs: dict[str, Any], count: int,
                      ) -> tuple[bool, ReplicaArguments | None]:
    """``(contains_distributed_values((args, kwargs)), select_flat_arguments(args, kwargs, count))`` (the latter
    only when the former is true, else None) in one pass over the arguments when none is a nest: ``run`` asks it
    every step."""
    if type(kwargs) is not dict or type(args) not in _ARGUMENT_TYPES:  # a bad call fails later, where it always has
        distributed = contains_distributed_values((args, kwargs))
        return distributed, select_flat_arguments(args, kwargs, count) if distributed else None
    values = (*args, *kwargs.values()) if kwargs else args
    columns: list[tuple[Any, ...] | None] = []
    distributed = False
    for value in values:
        if type(value) not in _LEAF_TYPES:
            if isinstance(value, DistributedValues):
                distributed = True
                columns.append(None if is_distributed_variable(value) else value.values)
                continue
            if nest.is_nested(value):  # a nest: the general walk, per replica (no flat rows for nests)
                return contains_distributed_values((args, kwargs)), None
        columns.append(None)
    if not distributed:
        return False, None
    return True, _flat_rows(args, kwargs, values, columns, count)


def _flat_rows(args: Sequence[Any], kwargs: dict[str, Any], values: Sequence[Any],
               columns: list[tuple[Any, ...] | None], count: int) -> ReplicaArguments | None:
    if any(c is not None and len(c) < count for c in columns):
        return None  # a component missing: select_replica raises it in the replica that lacks it
    rows = list(zip(*[(a,) * count if c is None else c[:count] for a, c in zip(values, columns, strict=True)],
                    strict=True))
    if not kwargs:
        return [(row, kwargs) for row in rows] if args else [((), kwargs)] * count
    names, positional = tuple(kwargs), len(args)
    return [(row[:positional], dict(zip(names, row[positional:], strict=True))) for row in rows]


def _column(value: object) -> tuple[Any, ...] | None:
    if isinstance(value, DistributedValues) and not is_distributed_variable(value):
        return value.values
    return None


def contains_distributed_values(structure: Any) -> bool:
    return any(isinstance(v, DistributedValues) for v in nest.flatten(structure))


def regroup(per_replica_results: Iterable[Any], wrap_class: Callable[[list[Any]], Any] = PerReplica,
            always_wrap: bool = False) -> Any:
    """Merges one result nest per replica into one nest of distributed values, as TF's ``regroup``.

    Lists, tuples (namedtuples rebuilt) and mappings are walked; replicas whose nests differ there raise
    AssertionError with TF's messages. At each other leaf: the same object from every replica comes back
    unwrapped (a variable stays the variable); the replicas' components of one distributed variable come back
    as that variable; anything else becomes `wrap_class`. One replica's result is returned as is unless
    `always_wrap`.
    """
    values = list(per_replica_results)
    v0 = values[0]
    if type(v0) in _LEAF_TYPES:  # the common results (None, a tensor): no container checks (abc's are slow)
        return _regroup_leaf(values, wrap_class, always_wrap)
    if isinstance(v0, list):
        for v in values[1:]:
            assert isinstance(v, list)
            assert len(v) == len(v0), f"len(v) == {len(v)}, len(v0) == {len(v0)}, v: {v}, v0: {v0}"
        return [regroup([v[i] for v in values], wrap_class, always_wrap) for i in range(len(v0))]
    if isinstance(v0, tuple):
        for v in values[1:]:
            assert isinstance(v, tuple)
            assert len(v) == len(v0), ("Values to regroup had different lengths: "
                                       f"len(v) == {len(v)}, len(v0) == {len(v0)}, v: {v}, v0: {v0}")
        items = tuple(regroup([v[i] for v in values], wrap_class, always_wrap) for i in range(len(v0)))
        return v0._make(items) if hasattr(v0, "_fields") else items  # type: ignore[attr-defined]  # a namedtuple
    if isinstance(v0, abc.Mapping):
        for v in values[1:]:
            assert isinstance(v, abc.Mapping), f"v[0]: {v0!r}  v[i]: {v!r}"
            assert set(v.keys()) == set(v0.keys()), f"v[0].keys: {set(v0.keys())}  v[i].keys: {set(v.keys())}"
        return type(v0)(  # type: ignore[call-arg]  # a concrete mapping class, built from a dict
            {key: regroup([v[key] for v in values], wrap_class, always_wrap) for key in v0})
    return _regroup_leaf(values, wrap_class, always_wrap)


def _regroup_leaf(values: list[Any], wrap_class: Callable[[list[Any]], Any], always_wrap: bool) -> Any:
    first = values[0]
    if len(values) == 1 and not always_wrap:
        return first
    for v in values:
        if v is not first:
            break
    else:  # the same object from every replica
        return wrap_class(values) if always_wrap and not is_distributed_variable(first) else first
    return _regroup_components(values, first, wrap_class)


def _regroup_components(values: list[Any], first: Any, wrap_class: Callable[[list[Any]], Any]) -> Any:
    # Components of one distributed variable come back as it (variables know their container; tensors do not).
    container = None if type(first) is _Tensor else getattr(first, "_distributed_container", None)
    if container is not None and len(values) == len(container.values) and all(
        a is b for a, b in zip(values, container.values, strict=True)
    ):
        return container
    return wrap_class(values)


class PerReplicaSpec:
    """The spec of a PerReplica value: one spec per replica (``values.PerReplicaSpec``)."""

    def __init__(self, *value_specs: Any) -> None:
        self._value_specs = tuple(value_specs)

    @property
    def _component_specs(self) -> tuple[Any, ...]:
        return self._value_specs

    @property
    def value_type(self) -> type[PerReplica]:
        return PerReplica

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._value_specs == other._value_specs

    def __hash__(self) -> int:
        return hash(self._value_specs)

    def __repr__(self) -> str:
        return f"PerReplicaSpec({', '.join(repr(s) for s in self._value_specs)})"
