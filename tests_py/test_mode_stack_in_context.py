"""The tf.distribute mode stack lives in the per-replica C++ context (ARCHITECTURE.md, "Runtime seam"): one
stack per context, switched with it at every greenlet switch, nothing mirrored in a contextvar; behaviour as
before (scopes, replica / cross-replica / merge contexts, nested runs, out-of-order exits, failed runs)."""

from __future__ import annotations

import gc
import threading
import weakref

import pytest

import tpustrategy as tf
from tpustrategy import _core

ds = tf.distribute


def two():
    return ds.MirroredStrategy(["GPU:0", "GPU:1"])


def test_a_scope_lives_on_the_bound_context_and_follows_it():
    strategy = two()
    outside = _core.runtime.current_context().mode_depth
    with strategy.scope():
        assert _core.runtime.current_context().mode_depth == outside + 1
        assert ds.get_strategy() is strategy and ds.in_cross_replica_context()
        other = _core.runtime.ExecutionContext(None, -1, 1, "cross_replica")
        _core.runtime.set_current_context(other)  # another context: its own (empty) stack
        try:
            assert not ds.has_strategy() and other.mode_depth == 0
        finally:
            _core.runtime.set_current_context(None)
        assert ds.get_strategy() is strategy
    assert _core.runtime.current_context().mode_depth == outside
    assert not ds.has_strategy()


def test_each_replica_has_its_own_stack_and_leaves_it_empty():
    strategy = two()
    seen = []

    def fn():
        context = _core.runtime.current_context()
        depth = context.mode_depth
        ds.get_replica_context().merge_call(lambda s: seen.append(("merge", ds.in_cross_replica_context())))
        seen.append((context.replica_id, depth, context.mode_depth, ds.get_replica_context() is not None))

    with strategy.scope():
        strategy.run(fn)
        assert ds.in_cross_replica_context()
    assert sorted(seen, key=str) == sorted([("merge", True), (0, 1, 1, True), (1, 1, 1, True)], key=str)
    contexts = strategy.extended._replica_contexts_by_thread[threading.get_ident()][1]
    assert [c.mode_depth for c in contexts] == [0, 0]


def _fail_a_run() -> weakref.ref:
    strategy = two()

    def fn():
        replica = int(ds.get_replica_context().replica_id_in_sync_group)
        inner = ds.ReplicaContext(strategy, replica_id_in_sync_group=replica)
        inner.__enter__()  # never exited: the replica's end unwinds it
        if replica == 1:
            raise KeyError("boom")
        ds.get_replica_context().merge_call(lambda s: None)

    with pytest.raises(KeyError, match="boom"):
        strategy.run(fn)
    contexts = strategy.extended._replica_contexts_by_thread[threading.get_ident()][1]
    assert [c.mode_depth for c in contexts] == [0, 0]
    return weakref.ref(strategy)


def test_a_failed_run_leaves_no_frames_and_keeps_no_strategy_alive():
    ref = _fail_a_run()
    assert _core.runtime.current_context().mode_depth == 0
    gc.collect()
    assert ref() is None, "a mode-stack frame keeps the strategy alive"


def test_scopes_exited_out_of_order_are_a_runtime_error():
    strategy = two()
    outer, inner = strategy.scope(), ds.ReplicaContext(strategy, replica_id_in_sync_group=1)
    outer.__enter__()
    try:
        inner.__enter__()
        with pytest.raises(RuntimeError, match="exited out of order"):
            outer.__exit__(None, None, None)
        inner.__exit__(None, None, None)
        outer.__exit__(None, None, None)
        assert not ds.has_strategy()
    finally:
        _core.runtime.current_context().clear_modes()  # whatever happened, later tests start outside any scope


def test_threads_start_with_an_empty_stack():
    strategy = two()
    seen = []
    with strategy.scope():
        thread = threading.Thread(target=lambda: seen.append((ds.has_strategy(), _core.runtime.current_mode())))
        thread.start()
        thread.join()
    assert seen == [(False, None)]
