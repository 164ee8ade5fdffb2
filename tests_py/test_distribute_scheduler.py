"""The cooperative replica scheduler: synchronisation, failure paths and a stress run."""

from __future__ import annotations

import gc
import random
import resource
import time

import numpy as np
import pytest
from distribute_helpers import ms2, values_of

import tpustrategy as tps

ds = tps.distribute


def four():
    return ds.MirroredStrategy([f"GPU:{i}" for i in range(4)])


def replica_id():
    return int(ds.get_replica_context().replica_id_in_sync_group)  # a tensor, as in TF; these tests index with it


def test_replicas_interleave_between_sync_points_in_replica_order():
    log = []

    def fn():
        log.append(("before", replica_id()))
        ds.get_replica_context().all_reduce("sum", 1.0)
        log.append(("after", replica_id()))

    four().run(fn)
    assert log == [("before", i) for i in range(4)] + [("after", i) for i in range(4)]


def test_current_device_follows_each_replica_across_switches():
    strategy = ms2()

    def fn():
        ds.get_replica_context().merge_call(lambda s: None)
        return tps.constant(1.0).device

    devices = strategy.run(fn).values
    assert [d.split("/")[-1] for d in devices] == ["device:GPU:0", "device:GPU:1"]
    assert tps.constant(1.0).device.endswith("CPU:0")


def test_merge_call_receives_per_replica_arguments():
    def merge_fn(strategy, value, scale=1):
        assert isinstance(value, ds.PerReplica)
        return sum(value.values) * scale

    result = ms2().run(lambda: ds.get_replica_context().merge_call(merge_fn, args=(replica_id() + 1,),
                                                                   kwargs={"scale": 10}))
    assert result == 30


def _run_expecting(strategy, fn, error_type, match):
    with pytest.raises(error_type, match=match) as info:
        strategy.run(fn)
    return info


def test_mismatched_collectives_cancel_parked_replicas():
    finished = []

    def fn():
        try:
            if replica_id() == 1:
                ds.get_replica_context().all_reduce("sum", tps.constant([1.0, 2.0]))
            else:
                ds.get_replica_context().all_reduce("sum", tps.constant([1.0]))
        finally:
            finished.append(replica_id())

    info = _run_expecting(ms2(), fn, tps.errors.InvalidArgumentError,
                          r"replica 1 issued all_reduce.*but replica 0 issued all_reduce.*differing: shape")
    assert "float32[1]" in str(info.value) and "float32[2]" in str(info.value)
    assert isinstance(info.value, ValueError)  # TF's InvalidArgumentError is also a ValueError here
    assert sorted(finished) == [0, 1]


def test_different_ops_mismatch():
    def fn():
        op = "sum" if replica_id() == 0 else "mean"
        ds.get_replica_context().all_reduce(op, 1.0)

    _run_expecting(ms2(), fn, tps.errors.InvalidArgumentError, "replica 1 issued all_reduce{op=MEAN.*replica 0 "
                   "issued all_reduce{op=SUM.*differing: op")


def test_differing_merge_call_counts_is_a_runtime_error():
    cleaned = []

    def fn():
        try:
            for _ in range(2 if replica_id() == 0 else 1):
                ds.get_replica_context().merge_call(lambda s: None)
        finally:
            cleaned.append(replica_id())

    _run_expecting(four(), fn, RuntimeError, "replica 1 finished without joining merge_call.*replica 0 is waiting")
    assert sorted(cleaned) == [0, 1, 2, 3]


def test_replica_raising_while_others_are_parked():
    cleaned = []

    def fn():
        try:
            if replica_id() == 2:
                raise KeyError("boom in replica 2")
            ds.get_replica_context().all_reduce("sum", 1.0)
        finally:
            cleaned.append(replica_id())

    info = _run_expecting(four(), fn, KeyError, "boom")
    assert "replica 2" in "".join(getattr(info.value, "__notes__", []))
    assert sorted(cleaned) == [0, 1, 2]  # replica 3 never started


def test_parked_replicas_see_cancelled_error():
    seen = []

    def fn():
        try:
            ds.get_replica_context().merge_call(lambda s: None)
            if replica_id() == 1:
                raise ValueError("late failure")
            ds.get_replica_context().merge_call(lambda s: None)
        except tps.errors.CancelledError as error:
            seen.append(str(error))
            raise

    _run_expecting(ms2(), fn, ValueError, "late failure")
    assert len(seen) == 1 and "replica 1 raised ValueError" in seen[0]


def test_merge_fn_error_propagates_and_strategy_is_reusable():
    strategy = ms2()

    def bad_merge(s):
        raise ZeroDivisionError("in merge_fn")

    with pytest.raises(ZeroDivisionError):
        strategy.run(lambda: ds.get_replica_context().merge_call(bad_merge))
    assert not ds.has_strategy()
    assert values_of(strategy.run(lambda: ds.get_replica_context().all_reduce("sum", 2.0))) == [4.0, 4.0]


def test_collective_errors_in_cpp_name_the_replica():
    def fn():
        dtype = tps.float32 if replica_id() == 0 else tps.float64
        ds.get_replica_context().all_gather(tps.constant([1.0], dtype), 0)

    _run_expecting(ms2(), fn, tps.errors.InvalidArgumentError,
                   r"replica 1 issued all_gather{tensors=\[float64.*replica 0 issued all_gather{tensors=\[float32")


def _rss_mib() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() / 2**20


def test_stress_thousands_of_runs_with_random_failures():
    strategy = ds.MirroredStrategy([f"CPU:{0}"] + [f"GPU:{i}" for i in range(3)])
    rng = random.Random(1234)
    payload = [tps.constant(np.full(64, float(i), np.float32)) for i in range(4)]
    expected_sum = float(sum(range(4)))

    def make_fn(fault, faulty_replica):
        def fn():
            rid = replica_id()
            context = ds.get_replica_context()
            total = context.all_reduce("sum", payload[rid])
            merged = context.merge_call(lambda s, v: len(v.values), args=(rid,))
            if rid == faulty_replica and fault == "raise":
                raise ArithmeticError("injected")
            if rid == faulty_replica and fault == "mismatch":
                context.all_reduce("sum", tps.constant([1.0]))
            else:
                context.all_reduce("mean", tps.constant([float(rid)]))
            return np.asarray(total)[0], merged

        return fn

    start = time.perf_counter()
    baseline = None
    outcomes = {"ok": 0, "raise": 0, "mismatch": 0}
    for step in range(3000):
        fault = rng.choice(["ok"] * 8 + ["raise", "mismatch"])
        fn = make_fn(fault, rng.randrange(4))
        if fault == "ok":
            total, merged = strategy.run(fn)
            assert total.values == (expected_sum,) * 4 and merged == 4
        else:
            with pytest.raises(ArithmeticError if fault == "raise" else tps.errors.InvalidArgumentError):
                strategy.run(fn)
        outcomes[fault] += 1
        if step == 500:
            gc.collect()
            baseline = _rss_mib()
    gc.collect()
    elapsed = time.perf_counter() - start
    assert not ds.has_strategy()
    assert all(outcomes.values())
    assert elapsed < 20, f"stress run took {elapsed:.1f} s"
    assert _rss_mib() - baseline < 20, f"RSS grew from {baseline:.1f} MiB to {_rss_mib():.1f} MiB"
    for device in strategy.extended._replica_devices()[1:]:
        assert device.memory_info()["current"] == 0


def test_run_nested_in_a_merge_fn_keeps_the_outer_run_intact():
    strategy = ms2()

    def merge_fn(s):
        inner = s.run(lambda: ds.get_replica_context().all_reduce("sum", 1.0))
        return values_of(inner)

    def fn():
        assert ds.get_replica_context().merge_call(merge_fn) == [2.0, 2.0]
        return ds.get_replica_context().all_reduce("sum", 2.0)

    assert values_of(strategy.run(fn)) == [4.0, 4.0]


def test_finished_run_holds_no_outputs_in_pooled_replicas():
    # Pooled replica greenlets must not keep the last step's outputs (and their HBM) alive.
    import numpy as np

    import tpustrategy as tf

    strategy = tf.distribute.TPUStrategy()

    def step(x):
        ctx = tf.distribute.get_replica_context()
        return tf.constant(np.zeros(1000, np.float32)), ctx.all_reduce("sum", x)

    result = strategy.run(step, args=(tf.constant(np.ones(10, np.float32)),))
    assert tf.config.experimental.get_memory_info("TPU:1")["current"] == 4000 + 40
    del result
    assert tf.config.experimental.get_memory_info("TPU:1")["current"] == 0


def test_interrupt_in_the_driver_leaves_no_parked_replica_in_the_pool(monkeypatch):
    # A KeyboardInterrupt (or any error) in the driver between switches must cancel the parked replicas
    # (their finally blocks run) instead of pooling them mid-function for the next run to resume.
    from tpustrategy.distribute import scheduler

    strategy = ms2()
    cleaned = []

    def fn():
        try:
            # merge_call: the point the Python driver runs (a collective runs in the C++ driver loop).
            return ds.get_replica_context().merge_call(lambda strategy: 1.0)
        finally:
            cleaned.append(replica_id())

    def interrupted(self, replicas):
        raise KeyboardInterrupt  # as if Ctrl-C arrived while the driver was about to combine

    monkeypatch.setattr(scheduler.ReplicaRun, "_combine", interrupted)
    with pytest.raises(KeyboardInterrupt):
        strategy.run(fn)
    monkeypatch.undo()
    assert sorted(cleaned) == [0, 1]
    cleaned.clear()
    assert strategy.run(fn) == 1.0
    assert sorted(cleaned) == [0, 1]


def test_failed_run_keeps_no_tensors_alive_through_its_exception():
    # The caller's exception (kept by pytest.raises, sys.last_exc in Jupyter, ...) must not pin the
    # step's collective outputs or the cancelled replicas' frames, and so their HBM.
    strategy = tps.distribute.TPUStrategy()

    def step():
        ctx = ds.get_replica_context()
        big = tps.constant(np.zeros(1000, np.float32))
        total = ctx.all_reduce("sum", big)
        if ctx.replica_id_in_sync_group == 1:
            del big, total  # the raising frame is legitimately kept by the traceback: hold nothing in it
            raise ValueError("replica 1 fails")
        ctx.merge_call(lambda s: None)
        return total

    with pytest.raises(ValueError, match="replica 1 fails") as info:
        strategy.run(step)
    gc.collect()
    used = [tps.config.experimental.get_memory_info(f"TPU:{i}")["current"] for i in range(8)]
    assert used == [0] * 8
    del info
