"""The one replica engine: the C++ Rendezvous validates every synchronisation point of Strategy.run
(TF's error types, naming the replicas), the C++ execution context is the current device, and the
defects of issue 10 (mismatched nests, one strategy on two threads, greenlet switches inside fn)."""

from __future__ import annotations

import gc
import threading

import greenlet
import numpy as np
import pytest
from distribute_helpers import ms2, values_of

import tpustrategy as tf
from tpustrategy import _core

ds = tf.distribute


def four():
    return ds.MirroredStrategy([f"GPU:{i}" for i in range(4)])


def replica_id():
    return int(ds.get_replica_context().replica_id_in_sync_group)


# ---- the execution context ----

def test_each_replica_runs_in_its_own_cpp_context():
    outside = _core.runtime.current_context()

    seen = []

    def fn():
        context = _core.runtime.current_context()
        ds.get_replica_context().merge_call(lambda s: None)  # a switch away and back
        again = _core.runtime.current_context()
        seen.append((context.replica_id, again.replica_id, again.mode, again.num_replicas, again.device.name))

    four().run(fn)
    assert len(seen) == 4
    for i, (rid, rid_after, mode, n, device) in enumerate(sorted(seen)):
        assert (rid, rid_after, mode, n) == (i, i, "replica", 4)
        assert device.endswith(f"GPU:{i}")
    assert _core.runtime.current_context().replica_id == outside.replica_id == -1
    assert _core.runtime.current_context().mode == "cross_replica"
    assert tf.constant(1.0).device.endswith("CPU:0")


def test_merge_fn_runs_in_the_callers_context_in_merge_mode():
    modes = []

    def merge_fn(strategy):
        context = _core.runtime.current_context()
        modes.append((context.mode, context.replica_id))

    four().run(lambda: ds.get_replica_context().merge_call(merge_fn))
    assert modes == [("merge", -1)]
    assert _core.runtime.current_context().mode == "cross_replica"


def test_device_scope_inside_a_replica_is_that_replicas_only():
    def fn():
        with tf.device("CPU:0"):
            ds.get_replica_context().merge_call(lambda s: None)  # others run while this scope is open
            inside = tf.constant(1.0).device
        return inside, tf.constant(1.0).device

    inside, after = ms2().run(fn)
    assert all(d.endswith("CPU:0") for d in inside.values)
    assert [d.split("/")[-1] for d in after.values] == ["device:GPU:0", "device:GPU:1"]


def test_set_current_context_binds_and_unbinds():
    gpu = _core.devices.find_device("GPU:1")
    context = _core.runtime.ExecutionContext(gpu, 3, 4, "merge")
    _core.runtime.set_current_context(context)
    try:
        assert tf.constant(1.0).device.endswith("GPU:1")
        assert _core.runtime.current_context().mode == "merge"
    finally:
        _core.runtime.set_current_context(None)
    assert tf.constant(1.0).device.endswith("CPU:0")
    with pytest.raises(ValueError, match="unknown mode 'sideways'"):
        _core.runtime.ExecutionContext(None, 0, 1, "sideways")


# ---- mismatches: TF's error types, before any data moves (issue 10, defect 2) ----

def test_all_reduce_of_nests_with_different_keys_raises_value_error_naming_replicas():
    def fn():
        x = tf.constant([1.0, 2.0])
        value = {"b": x} if replica_id() == 0 else {"a": x}
        return ds.get_replica_context().all_reduce("sum", value)

    with pytest.raises(ValueError, match=r"replica 1 issued all_reduce.*'a'.*replica 0 issued all_reduce.*'b'.*"
                                         r"differing: structure"):
        four().run(fn)


@pytest.mark.parametrize("make", [
    lambda rid, x: [x] * (1 + rid % 2),                      # lengths
    lambda rid, x: (x, x) if rid == 0 else [x, x],           # types
    lambda rid, x: {"a": x} if rid == 0 else {"a": (x,)},    # depth
])
def test_all_reduce_and_all_gather_of_mismatched_nests_raise(make):
    def reduce_fn():
        return ds.get_replica_context().all_reduce("sum", make(replica_id(), tf.constant([1.0])))

    def gather_fn():
        return ds.get_replica_context().all_gather(make(replica_id(), tf.constant([1.0])), 0)

    for fn in (reduce_fn, gather_fn):
        with pytest.raises(ValueError, match="replica 1 issued.*replica 0 issued.*structure"):
            ms2().run(fn)


def test_matching_nests_still_reduce():
    def fn():
        x = tf.constant([float(replica_id())])
        return ds.get_replica_context().all_reduce("sum", {"a": x, "b": (x, x)})

    out = four().run(fn)
    assert values_of(out["a"]) == [[6.0]] * 4 and values_of(out["b"][1]) == [[6.0]] * 4


def test_merge_call_arguments_of_different_structure_raise_before_merge_fn():
    called = []

    def fn():
        args = ([1, 2],) if replica_id() == 0 else ([1],)
        return ds.get_replica_context().merge_call(lambda s, v: called.append(v), args=args)

    with pytest.raises(ValueError, match="replica 1 issued merge_call.*replica 0 issued merge_call.*structure"):
        ms2().run(fn)
    assert called == []


def test_merge_call_against_a_collective_is_a_runtime_error():
    def fn():
        if replica_id() == 0:
            return ds.get_replica_context().merge_call(lambda s: None)
        return ds.get_replica_context().all_reduce("sum", 1.0)

    with pytest.raises(RuntimeError, match="replica 1 issued all_reduce.*replica 0 issued merge_call.*kind"):
        ms2().run(fn)


def test_tpu_all_gather_of_different_sizes_along_the_axis_concatenates():
    # TF's collectives pad to the longest and slice; on TPU, TF traces one program so sizes cannot differ there,
    # and the simulator gathers them as MirroredStrategy does (TF's tests skip the case on TPU).
    def fn():
        return ds.get_replica_context().all_gather(tf.constant([float(replica_id())] * (1 + replica_id() % 2)), 0)

    out = ds.TPUStrategy().run(fn)
    assert values_of(out) == [[0.0, 1.0, 1.0, 2.0, 3.0, 3.0, 4.0, 5.0, 5.0, 6.0, 7.0, 7.0]] * 8


def test_all_gather_of_different_non_axis_sizes_is_rejected_before_gathering():
    strategy = ds.TPUStrategy()

    def fn():
        return ds.get_replica_context().all_gather(tf.constant([[1.0] * (1 + replica_id() % 2)]), 0)

    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Shape mismatch in the collective: replica 1 issued all_gather.*differing: shape"):
        strategy.run(fn)
    gc.collect()  # the traceback held replica 1's frame (and its input) until the exception was collected
    assert [tf.config.experimental.get_memory_info(f"TPU:{i}")["current"] for i in range(8)] == [0] * 8


def test_mirrored_all_gather_allows_different_sizes_along_the_axis():
    def fn():
        return ds.get_replica_context().all_gather(tf.constant([[float(replica_id())]] * (1 + replica_id())), 0)

    out = ms2().run(fn)
    assert values_of(out) == [[[0.0], [1.0], [1.0]]] * 2


# ---- one strategy from two Python threads (issue 10, defect 3) ----

def test_one_strategy_from_two_threads_300_steps_each():
    strategy = ds.TPUStrategy()
    n = strategy.num_replicas_in_sync
    before = [tf.config.experimental.get_memory_info(f"TPU:{i}")["current"] for i in range(n)]
    failures, checked = [], []

    def worker(tag: float):
        try:
            for step in range(300):
                def fn():
                    ctx = ds.get_replica_context()
                    x = tf.constant(np.full(16, tag + int(ctx.replica_id_in_sync_group), np.float32))
                    total = ctx.all_reduce("sum", x)
                    merged = ctx.merge_call(lambda s, v: len(v.values), args=(ctx.replica_id_in_sync_group,))
                    return total, merged

                total, merged = strategy.run(fn)
                expected = tag * n + n * (n - 1) / 2
                assert [int(np.asarray(m)) for m in strategy.experimental_local_results(merged)] == [n] * n
                assert all(float(np.asarray(c)[0]) == expected for c in total.values), step
                checked.append(step)
        except BaseException as error:  # noqa: BLE001 - reported below
            failures.append(error)

    # Issue 10's defect 1 (a cold first numpy conversion on two threads at once deadlocks in the bindings'
    # lazy imports) is fixed separately: warm up on this thread so that this test checks the scheduler only.
    tf.constant(np.ones(3, np.float32))
    threads = [threading.Thread(target=worker, args=(tag,)) for tag in (100.0, 200.0)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not failures, failures[:3]
    assert len(checked) == 600
    gc.collect()
    assert [tf.config.experimental.get_memory_info(f"TPU:{i}")["current"] for i in range(n)] == before


# ---- a greenlet switch inside fn (issue 10, defect 4) ----

def test_switching_to_the_parent_greenlet_inside_fn_is_a_clear_error_and_the_strategy_stays_usable():
    strategy = ms2()
    cleaned = []

    def fn():
        try:
            if replica_id() == 1:
                greenlet.getcurrent().parent.switch("escaped")
            return ds.get_replica_context().all_reduce("sum", 1.0)
        finally:
            cleaned.append(replica_id())

    with pytest.raises(RuntimeError, match="replica 1 switched out of its greenlet"):
        strategy.run(fn)
    assert sorted(cleaned) == [0, 1]  # both unwound: the parked one cancelled, the escaped one killed
    assert values_of(strategy.run(lambda: ds.get_replica_context().all_reduce("sum", 2.0))) == [4.0, 4.0]
    assert _core.runtime.current_context().replica_id == -1


# ---- the hook point ----

def test_the_hook_point_sees_every_collective_of_a_run():
    strategy = four()

    def fn():
        ctx = ds.get_replica_context()
        ctx.all_reduce("sum", {"a": tf.constant([1.0]), "b": tf.constant([2.0])})  # two leaves
        ctx.all_gather(tf.constant([1.0]), 0)
        ctx.merge_call(lambda s: None)  # not a collective: no data moves
        return ctx.all_reduce("mean", 1.0)

    with _core.runtime.CollectiveCounter() as counter:
        strategy.run(fn)
        strategy.reduce("sum", strategy.run(lambda: tf.constant(1.0)), axis=None)  # the cross-replica path
    assert counter.counts == {"all_reduce": 4, "all_gather": 1}
    with _core.runtime.CollectiveCounter() as idle:
        pass
    strategy.run(fn)
    assert idle.counts == {}
