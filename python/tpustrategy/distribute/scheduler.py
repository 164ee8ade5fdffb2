"""The cooperative replica scheduler behind ``Strategy.run`` (ARCHITECTURE.md, "Execution model").

Each replica's function runs in its own greenlet on the calling thread, started in replica order. A
replica that reaches a synchronisation point (an all-reduce, all-gather, ``merge_call``, a variable
aggregation) parks its contribution and switches back here. When every replica has parked at the same
point — same kind, op, dtypes, shapes — the point's ``combine`` runs once over all contributions (in
C++ for collectives), and each replica is resumed with its share of the result.

Failures are known at once, so nothing ever waits: if a replica raises, returns while others are parked,
or parks at a different point, the parked replicas get a ``CancelledError`` thrown in (their ``finally``
blocks run) and ``run`` raises — the replica's own exception, or a ``ReplicaSyncError`` naming the
replicas. The next ``run`` starts from scratch.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Sequence
from typing import Any

import greenlet

from tpustrategy import errors
from tpustrategy.framework import device_scope

_FINISHED = "returned from its function"


class ReplicaSyncError(RuntimeError):
    """Replicas disagreed about a synchronisation point (a different collective, a different number of
    ``merge_call``s or collectives, or one returned while others waited)."""


class _Park:
    """What a parked replica is waiting for."""

    __slots__ = ("signature", "contribution", "combine")

    def __init__(self, signature, contribution, combine):
        self.signature = signature
        self.contribution = contribution
        self.combine = combine


class ReplicaRun:
    """One ``run``: drives the replica greenlets and executes their synchronisation points."""

    def __init__(self, num_replicas: int):
        self.num_replicas = num_replicas
        self._parked: list[_Park | None] = [None] * num_replicas
        self._driver: greenlet.greenlet | None = None
        self._sync_count = 0

    # ---- called from inside a replica ----
    def synchronize(self, replica_id: int, signature: tuple, contribution: Any,
                    combine: Callable[[list], Sequence]) -> Any:
        """Parks replica `replica_id` until every replica reaches a point with the same `signature`.

        `combine(contributions)` runs once, in the caller of ``run``, with the contributions in replica
        order, and returns one result per replica; this replica gets its own.
        """
        if self.num_replicas == 1:
            return combine([contribution])[0]
        self._parked[replica_id] = _Park(signature, contribution, combine)
        result = self._driver.switch()
        device_scope.sync_current_device()
        return result

    # ---- called by the strategy, in the caller's context ----
    def execute(self, replica_main: Callable[[int], Any]) -> list:
        """Runs ``replica_main(i)`` for every replica and returns their results in replica order."""
        n = self.num_replicas
        if n == 1:
            return [replica_main(0)]
        self._driver = greenlet.getcurrent()
        replicas = []
        for _ in range(n):
            g = greenlet.greenlet(replica_main, parent=self._driver)
            g.gr_context = contextvars.copy_context()
            replicas.append(g)
        results: list = [None] * n
        sends: list = [i for i in range(n)]  # the first switch passes replica_main its replica id
        try:
            while True:
                expected = None
                for i, g in enumerate(replicas):
                    try:
                        out = g.switch(sends[i])
                    except BaseException as error:
                        self._cancel(replicas, f"replica {i} raised {type(error).__name__}: {error}")
                        _add_note(error, f"raised in replica {i} of {n} while running the replica function")
                        raise
                    outcome = _FINISHED if g.dead else self._parked[i].signature
                    if g.dead:
                        results[i] = out
                    if i == 0:
                        expected = outcome
                    elif outcome != expected:
                        message = self._mismatch_message(i, outcome, expected)
                        self._cancel(replicas, message)
                        raise ReplicaSyncError(message)
                if expected == _FINISHED:
                    return results
                sends = self._combine(replicas)
        finally:
            device_scope.sync_current_device()

    def _combine(self, replicas) -> list:
        self._sync_count += 1
        parked = self._parked
        self._parked = [None] * self.num_replicas
        device_scope.sync_current_device()
        try:
            outputs = list(parked[0].combine([p.contribution for p in parked]))
        except BaseException as error:
            self._cancel(replicas, f"{_describe(parked[0].signature)} failed: {type(error).__name__}: {error}")
            raise
        if len(outputs) != self.num_replicas:
            raise AssertionError(f"combine returned {len(outputs)} results for {self.num_replicas} replicas")
        return outputs

    def _mismatch_message(self, replica_id: int, outcome, expected) -> str:
        point = self._sync_count + 1
        return (f"Replicas disagree at synchronisation point {point} of this run: replica 0 "
                f"{_describe(expected)} but replica {replica_id} {_describe(outcome)}. Every replica must "
                "make the same collectives and merge_calls, in the same order, with the same dtypes and shapes.")

    def _cancel(self, replicas, reason: str) -> None:
        """Throws CancelledError into every parked replica so that its finally blocks run."""
        for i, g in enumerate(replicas):
            attempts = 0
            while g and not g.dead and attempts < 3:  # started and parked (a replica may catch and park again)
                attempts += 1
                try:
                    g.throw(errors.CancelledError(None, None, f"Replica {i} cancelled: {reason}"))
                except BaseException:  # noqa: BLE001 - the replica's exit is expected; its error is secondary
                    break
        self._parked = [None] * self.num_replicas


def _describe(outcome) -> str:
    if outcome == _FINISHED:
        return _FINISHED
    kind, *details = outcome
    return f"is waiting in {kind}({', '.join(str(d) for d in details)})"


def _add_note(error: BaseException, note: str) -> None:
    if hasattr(error, "add_note"):
        error.add_note(note)
