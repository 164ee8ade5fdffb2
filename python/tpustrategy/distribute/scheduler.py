"""The cooperative replica scheduler behind ``Strategy.run`` (ARCHITECTURE.md, "Execution model").

With one replica the function simply runs on the caller, and each synchronisation point combines its single
contribution inline. With several, each replica's function runs in its own greenlet on the calling thread
(taken from a per-thread pool of workers: creating a greenlet costs more than a whole run's switches), in a
copy of the caller's context, started in replica order. A replica that reaches a synchronisation point (an
all-reduce, all-gather, ``merge_call``, a variable aggregation) parks its contribution and switches back
here. Once every replica has run to its next point, they must agree with replica 0 — same kind, op, dtypes,
shapes — and the point's ``combine`` runs once over all contributions (in C++ for collectives); each replica
is resumed with its share of the result.

Failures are known at once, so nothing ever waits: if a replica raises, returns while others are parked,
parks at a different point, or ``combine`` fails, the parked replicas get a ``CancelledError`` thrown in
(their ``finally`` blocks run; one that catches it and parks again gets it again, and after three tries its
worker is abandoned) and ``run`` raises — the replica's own exception, the ``combine`` error, or a
``ReplicaSyncError`` naming the replicas. If the driver itself is interrupted, parked replicas are cancelled
the same way, so no worker returns to the pool mid-function. The next ``run`` starts from scratch, and
pooled workers keep no reference to a finished run's outputs (or their HBM).
"""

from __future__ import annotations

import contextvars
import threading
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
        self._suspended = [False] * num_replicas  # inside synchronize: parked, or waiting to be resumed
        # A finished replica leaves its _Finished here rather than passing it through switch(): an
        # argument of a suspended switch() stays referenced by the pooled worker's frame, which would
        # keep the last step's outputs (and their HBM) alive until the worker's next run.
        self._finished: list = [None] * num_replicas

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
        self._suspended[replica_id] = True
        try:
            result = self._driver.switch(_PARKED)
        finally:
            self._suspended[replica_id] = False
        device_scope.sync_current_device()
        return result

    # ---- called by the strategy, in the caller's context ----
    def execute(self, replica_main: Callable[[int], Any]) -> list:
        """Runs ``replica_main(i)`` for every replica and returns their results in replica order."""
        n = self.num_replicas
        if n == 1:
            return [replica_main(0)]
        self._driver = greenlet.getcurrent()
        workers = _take_workers(n)
        results: list = [None] * n
        jobs: list | None = [(self, replica_main, i) for i in range(n)]  # the first switch starts a job
        sends: list = []  # after a synchronisation point: each replica's result
        try:
            while True:
                expected = None
                for i, worker in enumerate(workers):
                    if jobs is not None:
                        worker.gr_context = contextvars.copy_context()  # each replica: a copy of the caller's
                        out = worker.switch(jobs[i])
                    else:
                        out = worker.switch(sends[i])
                    if out is _DONE:
                        out, self._finished[i] = self._finished[i], None
                    finished = isinstance(out, _Finished)
                    if finished and out.error is not None:
                        self._cancel(workers, f"replica {i} raised {type(out.error).__name__}: {out.error}")
                        _add_note(out.error, f"raised in replica {i} of {n} while running the replica function")
                        raise out.error
                    if finished:
                        results[i] = out.value
                    outcome = _FINISHED if finished else self._parked[i].signature
                    if i == 0:
                        expected = outcome
                    elif outcome != expected:
                        message = self._mismatch_message(i, outcome, expected)
                        self._cancel(workers, message)
                        raise ReplicaSyncError(message)
                if expected == _FINISHED:
                    return results
                jobs = None
                sends = self._combine(workers)
        except BaseException:
            # This frame lives on in the error's traceback: drop the step's outputs (and their HBM).
            results = sends = jobs = None
            raise
        finally:
            if any(self._suspended):
                # The driver itself failed (KeyboardInterrupt between switches, an internal error): no
                # replica may go back to the pool parked, or the next run would resume it mid-function.
                self._cancel(workers, "the run was interrupted")
            for worker in workers:
                worker.gr_context = None  # drop the replica's context (and what it references)
            _return_workers(workers)
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

    def _cancel(self, workers, reason: str) -> None:
        """Throws CancelledError into every parked replica so that its finally blocks run."""
        for i, worker in enumerate(workers):
            attempts = 0
            # A replica that catches the error and parks again gets it again (a few times).
            while self._suspended[i] and attempts < 3:
                attempts += 1
                out = worker.throw(errors.CancelledError(None, None, f"Replica {i} cancelled: {reason}"))
                # A cancelled replica's outcome (its CancelledError, whose traceback holds the replica's
                # frames and tensors) must not outlive the run through the caller's exception.
                self._finished[i] = None
                if out is not _PARKED:
                    break
            if self._suspended[i]:  # it insists on waiting: abandon this worker
                workers[i] = _new_worker()
        self._parked = [None] * self.num_replicas


_PARKED = object()  # what a replica hands the driver when it parks
_DONE = object()  # what a replica hands the driver when it finished (the outcome is in run._finished)


class _Finished:
    """What a worker hands the driver when its replica function returned (value) or raised (error)."""

    __slots__ = ("value", "error")

    def __init__(self, value, error):
        self.value = value
        self.error = error


def _worker_loop(job):
    """A reusable replica greenlet: runs jobs (run, replica_main, replica_id) until the thread ends.

    Creating a greenlet costs ~12 µs, switching to a live one well under 1 µs, so workers are pooled.
    """
    while True:
        run, replica_main, replica_id = job
        driver = run._driver
        try:
            outcome = _Finished(replica_main(replica_id), None)
        except greenlet.GreenletExit:
            raise
        except BaseException as error:  # noqa: BLE001 - handed to the driver, which re-raises it
            outcome = _Finished(None, error)
        run._finished[replica_id] = outcome
        del run, replica_main, job, outcome  # hold nothing of a finished run while idle in the pool
        job = driver.switch(_DONE)


_pool = threading.local()


def _new_worker() -> greenlet.greenlet:
    return greenlet.greenlet(_worker_loop)


def _take_workers(count: int) -> list:
    free = getattr(_pool, "free", None)
    if free is None:
        free = _pool.free = []
    return [free.pop() if free else _new_worker() for _ in range(count)]


def _return_workers(workers) -> None:
    _pool.free.extend(reversed(workers))


def _describe(outcome) -> str:
    if outcome == _FINISHED:
        return _FINISHED
    kind, *details = outcome
    return f"is waiting in {kind}({', '.join(str(d) for d in details)})"


def _add_note(error: BaseException, note: str) -> None:
    if hasattr(error, "add_note"):
        error.add_note(note)
