"""``tf.compat.v1.train`` global step: one int64, non-trainable variable named ``global_step`` per process
(TF keeps it in the default graph's collection, which in eager mode lives as long as the process). Created
inside a strategy's scope it is that strategy's (mirrored) variable, as TF."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tpustrategy import _core
from tpustrategy.variables import Variable, VariableAggregation

if TYPE_CHECKING:
    from tpustrategy.distribute.distributed_variables import DistributedVariable

_global_step: list[Variable | DistributedVariable | None] = [None]  # distributed when made in a strategy's scope


def get_global_step(graph: object = None) -> Any:  # a Variable (a distributed one under a strategy) or None
    """The global step variable, or None if none was created."""
    return _global_step[0]


def _check_graph(caller: str, graph: object) -> None:
    # Eager only: there is one (implicit) graph, so the argument can only be None.
    if graph is not None:
        raise TypeError(f"{caller}: `graph` must be None (eager execution has no graphs), got "
                        f"{type(graph).__name__}: {graph!r}")


def create_global_step(graph: object = None) -> Any:
    """Creates the global step variable (ValueError if it exists)."""
    _check_graph("create_global_step", graph)
    if _global_step[0] is not None:
        raise ValueError('"global_step" already exists.')
    _global_step[0] = Variable(_core.tensor.constant(0, _core.tensor.int64), trainable=False, name="global_step",
                               aggregation=VariableAggregation.ONLY_FIRST_REPLICA)
    return _global_step[0]


def get_or_create_global_step(graph: object = None) -> Any:
    """The global step variable, created on first call."""
    _check_graph("get_or_create_global_step", graph)
    return _global_step[0] if _global_step[0] is not None else create_global_step(graph)


def _reset_global_step() -> None:
    """Forgets the global step (what a fresh default graph gives TF); for tests."""
    _global_step[0] = None
