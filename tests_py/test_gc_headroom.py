"""Room in GC generation 0 while many replicas run (distribute/_gc_headroom.py): raised, restored, never lowered."""

from __future__ import annotations

import gc

import pytest

import tpustrategy as tf
from tpustrategy.distribute import _gc_headroom

ds = tf.distribute


@pytest.fixture(autouse=True)
def default_thresholds():
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*saved)


def test_few_replicas_leave_the_thresholds_alone():
    assert _gc_headroom.enter(8) is False  # 16 * 8 = 128 objects fit in the default 700
    assert gc.get_threshold() == (700, 10, 10)


def test_many_replicas_raise_generation_0_until_the_run_ends():
    assert _gc_headroom.enter(2048) is True
    assert gc.get_threshold() == (_gc_headroom.OBJECTS_PER_REPLICA * 2048, 10, 10)
    _gc_headroom.leave()
    assert gc.get_threshold() == (700, 10, 10)


def test_nested_runs_restore_once_the_outermost_ends():
    assert _gc_headroom.enter(100)
    assert _gc_headroom.enter(1000)
    assert gc.get_threshold()[0] == _gc_headroom.OBJECTS_PER_REPLICA * 1000
    assert not _gc_headroom.enter(50)  # already room enough: not counted
    _gc_headroom.leave()
    assert gc.get_threshold()[0] == _gc_headroom.OBJECTS_PER_REPLICA * 1000
    _gc_headroom.leave()
    assert gc.get_threshold() == (700, 10, 10)


def test_a_higher_threshold_is_never_lowered():
    gc.set_threshold(100_000, 10, 10)
    assert not _gc_headroom.enter(2048)
    assert gc.get_threshold() == (100_000, 10, 10)


def test_disabled_collection_stays_disabled():
    gc.set_threshold(0)
    assert not _gc_headroom.enter(2048)
    assert gc.get_threshold()[0] == 0


def test_thresholds_set_during_the_run_are_kept():
    assert _gc_headroom.enter(2048)
    gc.set_threshold(5000, 3, 3)  # the replica function (or another library) chose its own
    _gc_headroom.leave()
    assert gc.get_threshold() == (5000, 3, 3)


def test_strategy_run_raises_it_only_while_replicas_run(monkeypatch):
    monkeypatch.setattr(_gc_headroom, "OBJECTS_PER_REPLICA", 1000)  # so that 4 replicas need more than 700
    strategy = ds.MirroredStrategy([f"GPU:{i}" for i in range(4)])
    seen = []

    def fn():
        seen.append(gc.get_threshold()[0])
        return ds.get_replica_context().all_reduce("sum", 1.0)

    result = strategy.experimental_local_results(strategy.run(fn))
    assert [float(r) for r in result] == [4.0] * 4
    assert seen == [4000] * 4
    assert gc.get_threshold() == (700, 10, 10)


def test_a_failed_run_restores_it_too(monkeypatch):
    monkeypatch.setattr(_gc_headroom, "OBJECTS_PER_REPLICA", 1000)
    strategy = ds.MirroredStrategy([f"GPU:{i}" for i in range(4)])

    def fn():
        if int(ds.get_replica_context().replica_id_in_sync_group) == 2:
            raise ValueError("replica 2 fails")
        return ds.get_replica_context().all_reduce("sum", 1.0)

    with pytest.raises(ValueError, match="replica 2 fails"):
        strategy.run(fn)
    assert gc.get_threshold() == (700, 10, 10)
