"""The cooperative replica scheduler behind ``Strategy.run`` (ARCHITECTURE.md, "Execution model").

It only parks and resumes greenlets; the C++ runtime does the rest. Each replica's function runs in its
own greenlet on the calling thread (taken from a per-thread pool of workers: creating a greenlet costs
more than a whole run's switches), in a copy of the caller's contextvars, started in replica order, with
its own C++ execution context (device, mode, replica id) made current exactly once per switch into it, its
tf.distribute mode pushed on that context's stack for the job. The driver loop is one C++ call
(``_core.runtime.drive``): it starts each round (replicas 0 … n-1 in order) by switching into replica 0, and the
replicas hand over to each other from C++ without coming back to it — one that parks starts or resumes the next;
one whose job ends (``_core.runtime.finish_job``) runs the next replica's new job in its own greenlet (replicas that
never park share one worker and need no switch) or resumes the next — until the last one of the round switches back
to the driver. Collectives run in the driver between rounds; Python takes over for ``merge_call``, failures and the
end of the run.
A replica that reaches a synchronisation point (an all-reduce, all-gather, ``merge_call``) arrives at the
run's C++ Rendezvous (``_core.runtime.ReplicaRendezvous``), which checks it against the replicas already there —
kind, op, dtypes, shapes, nest structure, order — and raises TF's error at once, naming the replicas; then
it parks (``ReplicaRendezvous.park``) and the round goes on. Once every replica has parked, the Rendezvous runs the
collective through the Communicator (a ``merge_call`` runs its merge function in the driver, in cross-replica
context) and each replica is resumed with its share of the result.

Failures are known at once, so nothing ever waits: if a replica raises (a mismatch raises in the replica
that arrived with it), returns while others are parked at a point it will never reach, switches out of its
greenlet by itself, or the collective fails, the parked replicas get a ``CancelledError`` thrown in (their
``finally`` blocks run; one that catches it and parks again gets it again, and after three tries its worker
is abandoned) and ``run`` raises. If the driver itself is interrupted, parked replicas are cancelled the
same way, so no worker returns to the pool mid-function. The next ``run`` starts from scratch, and pooled
workers keep no reference to a finished run's outputs (or their HBM).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

import greenlet

from tpustrategy import _core, errors
from tpustrategy.distribute import _gc_headroom

if TYPE_CHECKING:
    from tpustrategy._core.runtime import ExecutionContext, ReplicaRendezvous
    from tpustrategy._core.tensor import Tensor

_set_context = _core.runtime.set_current_context
_drive = _core.runtime.drive
_finish_job = _core.runtime.finish_job
_T = TypeVar("_T")


class _Merge:
    """A replica parked in ``merge_call``: its arguments and the merge function's driver."""

    __slots__ = ("contribution", "combine")

    def __init__(self, contribution: Any, combine: Callable[[list[Any]], Sequence[Any]]) -> None:
        self.contribution = contribution
        self.combine = combine


class ReplicaRun:
    """One ``run``: drives the replica greenlets and executes their synchronisation points."""

    def __init__(self, num_replicas: int, contexts: list[ExecutionContext] | None = None, communicator: Any = None,
                 modes: list[Any] | None = None, devices_of: Callable[[], Any] | None = None) -> None:
        self.num_replicas = num_replicas
        # The strategy's ``_replica_devices`` (bound): where a replica's collective delivers its results, asked at
        # each collective (a TPU replica's logical-device scope changes them). None: the replicas' contexts ask.
        self.devices_of = devices_of
        # The group the replicas belong to: None for all of them in this process; an MPI communicator when
        # they are this process's share of a multi-process slice (positions = its local ranks).
        self._communicator = communicator
        # The replicas' C++ execution contexts (current while each replica's greenlet runs) and the mode frame
        # each replica's job runs in (pushed on its context's stack at the start, unwound at the end).
        self._contexts = contexts
        self._modes = modes
        self._rendezvous: ReplicaRendezvous | None = None  # taken from the thread's pool for the run
        self._parked: list[_Merge | None] = [None] * num_replicas  # replicas in merge_call: their _Merge
        self._driver: greenlet.greenlet | None = None
        # Inside a synchronisation point (parked, or being resumed): kept by the C++ driver loop.
        self._suspended = [False] * num_replicas
        # A finished replica leaves its value (_DONE) or error (_FAILED) here rather than passing it through
        # switch(): an argument of a suspended switch() stays referenced by the pooled worker's frame, which
        # would keep the last step's outputs (and their HBM) alive until the worker's next run.
        self._finished: list[Any] = [None] * num_replicas
        self._clean = False  # every replica finished normally: the Rendezvous needs no reset
        self._driver_context: ExecutionContext | None = None  # the caller's execution context

    # ---- called from inside a replica ----
    def collective(self, replica_id: int, kind: str, tensors: list[Tensor], devices: Sequence[_core.devices.Device],
                   op: str = "", axis: int = 0, structure: str = "", ragged: bool = True,
                   **tpu_args: Any) -> list[Tensor]:
        """Replica `replica_id` takes part in collective `kind` over `tensors` (a nest's leaves, whose
        structure is `structure`); returns its result tensors, delivered to `devices` (one per replica).
        `ragged`: an all_gather's inputs may differ in size along `axis`. `tpu_args`: ``groups`` (TF's
        group_assignment), ``split_axis`` (all_to_all), ``pairs`` (collective_permute)."""
        if self.num_replicas == 1:
            rendezvous = self._rendezvous or self._take_rendezvous()
            rendezvous.arrive(replica_id, kind, tensors, op, axis, structure, ragged, **tpu_args)
            return cast("list[Tensor]", rendezvous.complete(devices)[0])  # one replica: its result is there
        # Raises on a mismatch with the replicas already there; else parks until the driver resumes it.
        assert self._rendezvous is not None  # taken by execute() for the run
        if tpu_args:
            out: list[Tensor] = self._rendezvous.park(replica_id, kind, tensors, op, axis, structure, ragged, devices,
                                                      self._driver, _PARKED, **tpu_args)
            return out
        # positional only: pybind matches keywords by name, at a cost per replica
        out = self._rendezvous.park(replica_id, kind, tensors, op, axis, structure, ragged, devices, self._driver,
                                    _PARKED)
        return out

    def merge(self, replica_id: int, contribution: Any, combine: Callable[[list[Any]], Sequence[Any]],
              structure: str = "") -> Any:
        """Parks replica `replica_id` in ``merge_call`` until every replica is there; `combine` runs once,
        in the caller of ``run``, over the contributions in replica order and returns one result each.
        `structure` (of the arguments) must be the same for every replica."""
        if self.num_replicas == 1:
            return combine([contribution])[0]
        self._parked[replica_id] = _Merge(contribution, combine)
        # Raises on a mismatch (the _Merge left behind is dropped with the failed run); else parks until the driver
        # has run the merge function.
        assert self._rendezvous is not None  # taken by execute() for the run
        return self._rendezvous.park(replica_id, "merge_call", [], "", 0, structure, True, None, self._driver, _MERGED)

    # ---- called by the strategy, in the caller's context ----
    def execute(self, calls: Sequence[tuple[Callable[..., Any], Sequence[Any], dict[str, Any]]]) -> list[Any]:
        """Runs ``fn(*args, **kwargs)`` for each ``(fn, args, kwargs)`` of `calls` (one per replica) in that replica,
        and returns their results in replica order."""
        n = self.num_replicas
        if n == 1:
            fn, args, kwargs = calls[0]
            return [fn(*args, **kwargs)]
        self._driver = greenlet.getcurrent()
        driver_context = self._driver_context = _core.runtime.current_context()
        contexts, modes, suspended = self._contexts, self._modes, self._suspended
        assert contexts is not None and modes is not None  # given for every run of more than one replica
        workers = _take_workers(n)
        rendezvous = self._take_rendezvous()
        results: list[Any] | None = None
        # The first switch into a worker starts its job; after a merge_call, each replica gets its result.
        values: list[Any] | None = [(self, call, i) for i, call in enumerate(calls)]
        fresh = True
        gc_raised = _gc_headroom.enter(n)  # n replicas' objects alive at once: room in GC generation 0
        try:
            while True:
                assert values is not None  # None only once the run failed (below)
                try:
                    i, out, finished_count = _drive(workers, contexts, values, fresh, modes, suspended, rendezvous,
                                                    driver_context, _PARKED, _MERGED, _DONE, _FAILED, self._driver,
                                                    _ROUND)
                except BaseException as error:  # a collective failed (or the driver was interrupted)
                    _set_context(driver_context)
                    self._cancel(workers, f"a synchronisation point failed: {type(error).__name__}: {error}")
                    raise
                _set_context(driver_context)
                if i < n:  # replica i stopped the round: it raised, or switched out by itself
                    if out is not _FAILED:
                        self._escaped(workers, i)
                    failure, self._finished[i] = self._finished[i], None
                    self._cancel(workers, f"replica {i} raised {type(failure).__name__}: {failure}")
                    _add_note(failure, f"raised in replica {i} of {n} while running the replica function")
                    raise failure
                if finished_count == n:
                    results, self._finished = self._finished, [None] * n
                    self._clean = True
                    return results
                if finished_count:
                    # Some replicas finished while others wait at a point they will never reach: the
                    # Rendezvous names them (a replica that arrived after another finished already raised).
                    for i in range(n):
                        if not suspended[i]:
                            rendezvous.depart(i)
                    self._fail(workers, rendezvous.raise_if_failed)
                    raise errors.InternalError(None, None, f"{finished_count} of {n} replicas finished, others wait")
                values, fresh = self._combine(workers), False
        except BaseException:
            # This frame lives on in the error's traceback: drop the step's outputs (and their HBM).
            results = values = None
            self._finished = [None] * n
            raise
        finally:
            _set_context(driver_context)
            if any(suspended):
                # The driver itself failed (KeyboardInterrupt between switches, an internal error): no
                # replica may go back to the pool parked, or the next run would resume it mid-function.
                self._cancel(workers, "the run was interrupted")
            if not self._clean:
                for worker in workers:
                    worker.gr_context = None  # drop the replica's context (and what it references)
            _return_workers(workers, self._clean)
            self._return_rendezvous()
            if not self._clean:
                self._parked = [None] * n
            if gc_raised:
                _gc_headroom.leave()

    def _combine(self, replicas: list[Any]) -> list[Any]:
        """Every replica is in merge_call: runs the merge function once, here, over their contributions."""
        parked = cast("list[_Merge]", self._parked)  # every replica parked in merge_call left its _Merge
        self._parked = [None] * self.num_replicas
        first = parked[0]
        assert self._rendezvous is not None and self._driver_context is not None  # set by execute()
        self._fail_on_error(replicas, self._rendezvous.complete)
        context = self._driver_context  # the merge function runs here, in merge mode
        previous_mode, context.mode = context.mode, "merge"
        try:
            outputs = self._fail_on_error(replicas, lambda: list(first.combine([p.contribution for p in parked])))
        finally:
            context.mode = previous_mode
        if len(outputs) != self.num_replicas:
            raise AssertionError(f"combine returned {len(outputs)} results for {self.num_replicas} replicas")
        return outputs

    def _fail_on_error(self, replicas: list[Any], action: Callable[[], _T]) -> _T:
        try:
            return action()
        except BaseException as error:
            self._cancel(replicas, f"a synchronisation point failed: {type(error).__name__}: {error}")
            raise

    def _fail(self, replicas: list[Any], action: Callable[[], object]) -> None:
        self._fail_on_error(replicas, action)

    def _escaped(self, workers: list[Any], i: int) -> None:
        """Replica i switched out of its greenlet by itself (e.g. ``greenlet.getcurrent().parent.switch()``
        inside the replica function): it can never be resumed at a synchronisation point."""
        message = (f"replica {i} switched out of its greenlet outside a synchronisation point (a greenlet switch "
                   "inside the replica function); replica functions must not switch greenlets themselves")
        worker, workers[i] = workers[i], _new_worker()
        self._finished[i] = None
        assert self._contexts is not None and self._driver_context is not None  # set for a run of many replicas
        try:
            worker.parent = greenlet.getcurrent()  # so that its end comes back here
            _set_context(self._contexts[i])  # its finally blocks run in its own context (device, mode stack)
            worker.throw(greenlet.GreenletExit)  # unwind its frames (finally blocks run); the worker is dropped
        except BaseException:  # noqa: BLE001 - whatever it does while unwinding, the run fails as below
            pass
        finally:
            self._end_job(i)
            _set_context(self._driver_context)
        self._cancel(workers, message)
        raise RuntimeError(message)

    def _cancel(self, workers: list[Any], reason: str) -> None:
        """Throws CancelledError into every parked replica so that its finally blocks run."""
        driver_context = self._driver_context
        assert self._contexts is not None and driver_context is not None  # set for a run of many replicas
        suspended = self._suspended
        for i, worker in enumerate(workers):
            attempts = 0
            # A replica that catches the error and parks again gets it again (a few times).
            while suspended[i] and attempts < 3:
                attempts += 1
                suspended[i] = False
                _set_context(self._contexts[i])
                out = worker.throw(errors.CancelledError(None, None, f"Replica {i} cancelled: {reason}"))
                _set_context(driver_context)
                # A cancelled replica's outcome (its CancelledError, whose traceback holds the replica's
                # frames and tensors) must not outlive the run through the caller's exception.
                self._finished[i] = None
                if out is _PARKED or out is _MERGED:
                    suspended[i] = True
                else:
                    self._end_job(i)
            if suspended[i]:  # it insists on waiting: abandon this worker (and the mode its job pushed)
                workers[i] = _new_worker()
                suspended[i] = False
                self._end_job(i)
        self._parked = [None] * self.num_replicas

    def _end_job(self, i: int) -> None:
        """Replica i's job ended outside the driver loop (cancelled, escaped): its mode frame goes with it."""
        if self._modes is not None:
            assert self._contexts is not None  # given with the modes
            self._contexts[i].unwind_mode(self._modes[i])

    def _take_rendezvous(self) -> ReplicaRendezvous:
        if self._communicator is not None:  # not pooled: one per run of a multi-process slice
            self._rendezvous = _core.runtime.ReplicaRendezvous(self.num_replicas, self._communicator)
            return self._rendezvous
        free = _free_rendezvous(self.num_replicas)
        self._rendezvous = free.pop() if free else _core.runtime.ReplicaRendezvous(self.num_replicas)
        return self._rendezvous

    def _return_rendezvous(self) -> None:
        rendezvous, self._rendezvous = self._rendezvous, None
        if rendezvous is not None and self._communicator is None:
            if not self._clean:  # a failed run leaves departures, cancellation or parked contributions
                rendezvous.reset()
            free = _free_rendezvous(self.num_replicas)
            if len(free) < 4:
                free.append(rendezvous)


_PARKED = object()  # what a replica hands the driver when it parks in a collective
_MERGED = object()  # ... when it parks in merge_call (its _Merge is in run._parked)
_DONE = object()  # what a replica's job hands on when it returned (its value is in run._finished)
_FAILED = object()  # ... when it raised (its error is in run._finished)
_ROUND = object()  # what the last replica of a round hands the driver


def _worker_loop(job: Any) -> None:
    """A reusable replica greenlet: runs jobs (run, (fn, args, kwargs), position) until the thread ends.

    Creating a greenlet costs ~12 µs, switching to a live one well under 1 µs, so workers are pooled. At a job's
    end the worker hands over to the next replica of the round (``_core.runtime.finish_job``); when that replica's
    job is new, this worker runs it itself, so replicas that never park share one worker and no switch.
    """
    while True:
        run, (fn, args, kwargs), position = job
        driver = run._driver
        handed = _DONE
        try:
            # fn() when there are no arguments: a call with * or ** nests a C frame of the interpreter, and every
            # byte of C stack under a replica's switch is copied out and back at each switch (issue #11).
            outcome = fn(*args, **kwargs) if args or kwargs else fn()
        except greenlet.GreenletExit:
            raise
        except BaseException as error:  # noqa: BLE001 - handed to the driver, which re-raises it
            outcome, handed = error, _FAILED
        run._finished[position] = outcome
        del run, fn, args, kwargs, job, outcome  # hold nothing of a finished run while idle in the pool
        job = _finish_job(position, handed, driver)


class _ThreadPool(threading.local):
    """This thread's idle replica workers, and its free Rendezvous by replica count (a run takes and returns both
    every step: attributes, not getattr with a default)."""

    def __init__(self) -> None:
        self.workers: list[Any] = []  # greenlets
        self.rendezvous: dict[int, list[ReplicaRendezvous]] = {}


_pool = _ThreadPool()


def _free_rendezvous(num_replicas: int) -> list[ReplicaRendezvous]:
    by_size = _pool.rendezvous
    free = by_size.get(num_replicas)
    if free is None:
        free = by_size[num_replicas] = []
    return free


def _primed_worker() -> None:
    """A new worker's start: back to its creator at once, then the job loop from its first job on."""
    _worker_loop(greenlet.getcurrent().parent.switch())


def _new_worker() -> greenlet.greenlet:
    # Started here, in the caller of run(), not by the replica that hands over to it: a greenlet's Python recursion
    # depth begins at its starter's, so workers first started inside one another (a parked replica starting the
    # next one's worker) stacked their depths and a run of about 500 replicas raised RecursionError.
    worker = greenlet.greenlet(_primed_worker)
    worker.switch()
    return worker


def _take_workers(count: int) -> list[Any]:
    free = _pool.workers
    if len(free) >= count:  # the common case: one slice off the end of the pool
        workers = free[-count:]
        del free[-count:]
        workers.reverse()
        return workers
    return [free.pop() if free else _new_worker() for _ in range(count)]


def _return_workers(workers: list[Any], clean: bool) -> None:
    workers.reverse()  # the next run takes them back in replica order
    # After a clean run every job returned, so no worker died (one dies only by GreenletExit: _escaped).
    _pool.workers.extend(workers if clean else (w for w in workers if not w.dead))


def _add_note(error: BaseException, note: str) -> None:
    if hasattr(error, "add_note"):
        error.add_note(note)
