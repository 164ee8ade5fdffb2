"""The mode stack: which strategy is current and whether code runs in replica or cross-replica context.

The stack lives in the per-replica C++ context (``_core.runtime``: the context the scheduler switches once per
greenlet switch, with the device and the tapes), so every replica has its own, as every replica thread has its
own in TensorFlow, and the replica's state lives in one place. Each thread starts with an empty stack (its
default context). An empty stack is the default mode: the default strategy, in its default replica context
(replica id 0).
"""

from __future__ import annotations

import contextvars
from typing import TYPE_CHECKING, Any, NamedTuple

from tpustrategy import _core

if TYPE_CHECKING:
    from tpustrategy.distribute.distribute_lib import StrategyBase
    from tpustrategy.distribute.replica_context import ReplicaContext


class _Mode(NamedTuple):
    """One stack entry. Exactly one of cross_replica_context / replica_context is set."""

    strategy: StrategyBase
    cross_replica_context: StrategyBase | None  # the strategy in cross-replica context, else None
    replica_context: ReplicaContext | None  # a ReplicaContext in replica context, else None


_top_mode = _core.runtime.current_mode  # the top of the current context's stack, or None
# The default strategy lives above this module (distribute_lib), which registers it when it is defined.
_default_mode: _Mode | None = None


def set_default_mode(strategy: StrategyBase, replica_context: ReplicaContext) -> None:
    """Registers the default strategy and its replica context (called once, by distribute_lib)."""
    global _default_mode
    _default_mode = _Mode(strategy, None, replica_context)


def _get_default_mode() -> _Mode:
    if _default_mode is None:
        raise RuntimeError("The default strategy is not defined yet: import tpustrategy.distribute first")
    return _default_mode


def current_mode() -> _Mode:
    mode: _Mode | None = _top_mode()
    return _get_default_mode() if mode is None else mode


def is_default_mode(mode: _Mode) -> bool:
    return mode is _get_default_mode()


push_mode = _core.runtime.push_mode  # onto the current context's stack
# Pops `mode`, which must be on top (else RuntimeError: scopes exited out of order).
pop_mode = _core.runtime.pop_mode
# Pops down to and including `mode` if it is on the stack (a replica's end, whatever it left open).
unwind_mode = _core.runtime.unwind_mode


def cross_replica_mode(strategy: StrategyBase) -> _Mode:
    return _Mode(strategy, strategy, None)


def replica_mode(replica_context: ReplicaContext) -> _Mode:
    return _Mode(replica_context.strategy, None, replica_context)


def default_strategy() -> StrategyBase:
    """The default (single-replica) strategy."""
    return _get_default_mode().strategy


def get_strategy() -> StrategyBase:
    """The strategy whose scope is active, else the default (single-replica) strategy."""
    return current_mode().strategy


def has_strategy() -> bool:
    """True when a strategy other than the default one is current."""
    return current_mode().strategy is not _get_default_mode().strategy


def in_cross_replica_context() -> bool:
    """True inside ``strategy.scope()`` (and a ``merge_call``'s merge_fn), False in replica context."""
    return current_mode().cross_replica_context is not None


def get_replica_context() -> ReplicaContext | None:
    """The ReplicaContext in replica context (inside ``run``, or the default one outside every scope);
    None in cross-replica context."""
    mode: _Mode | None = _top_mode()  # current_mode(), inlined: every replica of every step asks
    return (_get_default_mode() if mode is None else mode).replica_context


def get_cross_replica_context() -> StrategyBase | None:
    """The strategy in cross-replica context, else None."""
    return current_mode().cross_replica_context


def experimental_set_strategy(strategy: StrategyBase | None) -> None:
    """Makes `strategy` current without a ``with`` block; None restores the default.

    Raises:
      RuntimeError: called inside a ``with strategy.scope()`` block.
    """
    if strategy is not None and not callable(getattr(strategy, "scope", None)):
        raise TypeError(
            f"experimental_set_strategy: `strategy` must be a tf.distribute.Strategy or None, "
            f"got {type(strategy).__name__}: {strategy!r}"
        )
    old_scope = _global_scope.get()
    if old_scope is not None:
        old_scope.__exit__(None, None, None)
        _global_scope.set(None)
    if has_strategy():
        raise RuntimeError("Must not be called inside a `tf.distribute.Strategy` scope.")
    if strategy is not None:
        new_scope = strategy.scope()
        new_scope.__enter__()
        _global_scope.set(new_scope)


_global_scope: contextvars.ContextVar[Any] = contextvars.ContextVar("tpustrategy_global_scope", default=None)

# Per-replica state read by the variables and set by the strategies' extended (one copy per replica
# greenlet, like the mode stack).
# The replica an ``extended.update`` function is updating (None outside update).
update_replica_id: contextvars.ContextVar[int | None] = contextvars.ContextVar(
    "tpustrategy_update_replica_id", default=None
)
# The variable new variables are colocated with (``colocate_vars_with``).
colocation_variable: contextvars.ContextVar[Any] = contextvars.ContextVar("tpustrategy_colocate_with", default=None)
# The logical core new work lands on (``experimental_logical_device``).
current_logical_device: contextvars.ContextVar[int] = contextvars.ContextVar("tpustrategy_logical_device", default=0)
