"""The replicas of a run hand over to each other (scheduler.py, ``_core.runtime.drive`` / ``finish_job`` /
``ReplicaRendezvous.park``): replicas that never park share one worker, a parked replica starts or resumes the next,
the last of a round returns to the driver; and the one-tensor all_reduce taken in one call into C++. Behaviour only:
values, order, contextvars, devices, errors and cleanup."""

from __future__ import annotations

import contextvars

import greenlet
import numpy as np
import pytest
from distribute_helpers import ms2, values_of

import tpustrategy as tf

ds = tf.distribute
_core = tf._core


def four():
    return ds.MirroredStrategy([f"GPU:{i}" for i in range(4)])


def replica_id():
    return int(ds.get_replica_context().replica_id_in_sync_group)


def _run_expecting(strategy, fn, error_type, match):
    with pytest.raises(error_type, match=match) as info:
        strategy.run(fn)
    return info


# ---- replicas handing over to each other (no driver between them; one worker while none parks) ----

_marker = contextvars.ContextVar("scheduler_test_marker", default="caller")


def test_replicas_that_never_park_each_get_their_own_contextvars_device_and_order():
    strategy = four()
    token = _marker.set("set by the caller")
    seen = []

    def fn():
        rid = replica_id()
        seen.append((rid, _marker.get(), tf.constant(1.0).device.split("/")[-1], greenlet.getcurrent()))
        _marker.set(f"set by replica {rid}")  # visible to nobody else
        return rid

    try:
        for _ in range(2):
            seen.clear()
            assert strategy.run(fn).values == (0, 1, 2, 3)
            assert [(r, m, d) for r, m, d, _ in seen] == [(i, "set by the caller", f"device:GPU:{i}") for i in range(4)]
            assert len({id(g) for *_, g in seen}) == 1  # one worker ran the four jobs one after the other
            assert _marker.get() == "set by the caller"
    finally:
        _marker.reset(token)
    assert _core.runtime.current_context().replica_id == -1


def test_a_replica_raising_before_any_park_stops_the_others_and_unwinds_their_modes():
    strategy = four()
    started = []

    def fn():
        rid = replica_id()
        started.append(rid)
        if rid == 2:
            raise KeyError("boom in replica 2")
        return rid

    info = _run_expecting(strategy, fn, KeyError, "boom")
    assert "replica 2" in "".join(getattr(info.value, "__notes__", []))
    assert started == [0, 1, 2]  # replica 3 never started
    assert not ds.has_strategy() and ds.get_replica_context() is not None
    contexts = strategy.extended._cached_replica_contexts(strategy.extended._replica_devices())[1]
    assert [c.mode_depth for c in contexts] == [0] * 4
    assert strategy.run(replica_id).values == (0, 1, 2, 3)


def test_replicas_finishing_after_others_parked_is_an_error_naming_them():
    def fn():
        if replica_id() >= 2:
            ds.get_replica_context().all_reduce("sum", 1.0)
        return replica_id()

    _run_expecting(four(), fn, tf.errors.FailedPreconditionError,
                   r"replica 0 finished without joining all_reduce.*replicas \[2, 3\] are waiting")


def test_rounds_alternate_collectives_merge_calls_and_per_replica_results_in_replica_order():
    strategy = four()
    log = []

    def fn(x):
        rid = replica_id()
        context = ds.get_replica_context()
        log.append(("start", rid))
        total = context.all_reduce("sum", x)
        log.append(("reduced", rid))
        merged = context.merge_call(lambda s, v: [float(np.asarray(c)) for c in v.values], args=(x,))
        log.append(("merged", rid))
        gathered = context.all_gather(tf.reshape(x, [1]), 0)
        return float(np.asarray(total)), merged, np.asarray(gathered)

    inputs = strategy.experimental_distribute_values_from_function(
        lambda c: tf.constant(float(c.replica_id_in_sync_group + 1)))
    totals, merged, gathered = strategy.run(fn, args=(inputs,))
    assert totals.values == (10.0,) * 4
    assert merged == [1.0, 2.0, 3.0, 4.0]
    assert [g.tolist() for g in gathered.values] == [[1.0, 2.0, 3.0, 4.0]] * 4
    assert log == [(stage, i) for stage in ("start", "reduced", "merged") for i in range(4)]


def test_the_last_replica_of_a_round_raising_cancels_every_parked_replica():
    cancelled = []

    def fn():
        try:
            ds.get_replica_context().all_reduce("sum", tf.constant([1.0]))
            if replica_id() == 3:
                raise OverflowError("after the collective, in the last replica")
            ds.get_replica_context().all_reduce("sum", tf.constant([1.0]))
        except tf.errors.CancelledError:
            cancelled.append(replica_id())
            raise

    _run_expecting(four(), fn, OverflowError, "in the last replica")
    assert cancelled == [0, 1, 2]


@pytest.mark.parametrize(("dtype", "op", "expected"), [
    ("float32", "mean", [2.5, 2.5]),   # taken in C++ in one call
    ("int32", "sum", [5, 5]),          # taken in C++
    ("int32", "mean", [2.5, 2.5]),     # declined: TF sums, then divides (float64)
    ("bool", "sum", [True, True]),     # taken in C++
], ids=["f32-mean", "i32-sum", "i32-mean", "bool-sum"])
def test_one_tensor_all_reduce_matches_the_general_path_for_each_dtype(dtype, op, expected):
    def fn():
        rid = replica_id()
        value = tf.constant(np.asarray([2 + rid if dtype != "bool" else bool(rid)], dtype))
        one = ds.get_replica_context().all_reduce(op, value)
        nested = ds.get_replica_context().all_reduce(op, [value])[0]  # the general path
        assert one.dtype == nested.dtype and np.array_equal(np.asarray(one), np.asarray(nested))
        return one

    results = ms2().run(fn)
    assert [np.asarray(v).tolist() for v in results.values] == [[e] for e in expected]
    assert results.values[0].dtype.name == ("float64" if (dtype, op) == ("int32", "mean") else dtype)


def test_one_tensor_all_reduce_of_a_rejected_dtype_raises_tfs_error_and_the_strategy_stays_usable():
    strategy = ms2()

    def fn():
        return ds.get_replica_context().all_reduce("sum", tf.constant(np.asarray([1], np.uint8)))

    _run_expecting(strategy, fn, tf.errors.InvalidArgumentError, "uint8 is not in the list of allowed values")
    assert values_of(strategy.run(lambda: ds.get_replica_context().all_reduce("sum", tf.constant(1.0)))) == [2.0, 2.0]


def test_drive_without_the_driver_greenlet_is_an_error_before_any_switch():
    rendezvous = _core.runtime.ReplicaRendezvous(2)
    context = _core.runtime.current_context()
    workers = [greenlet.greenlet(lambda *a: pytest.fail("switched into")) for _ in range(2)]
    with pytest.raises(tf.errors.InvalidArgumentError, match="needs the driver greenlet"):
        _core.runtime.drive(workers, [context, context], [None, None], False, [None, None], [False, False],
                            rendezvous, context, object(), object(), object(), object())
