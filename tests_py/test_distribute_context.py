"""The mode stack and scopes (SEMANTICS.md §2.1, conformance case A)."""

from __future__ import annotations

import copy

import pytest
from distribute_helpers import ms2

import tpustrategy as tf

ds = tf.distribute


def test_default_mode_outside_any_scope():
    context = ds.get_replica_context()
    assert context is not None
    assert context.replica_id_in_sync_group == 0
    assert isinstance(context.replica_id_in_sync_group, int)
    assert not ds.in_cross_replica_context()
    assert not ds.has_strategy()
    assert ds.get_cross_replica_context() is None
    assert ds.get_strategy().num_replicas_in_sync == 1


def test_scope_is_cross_replica_and_run_is_replica_context():
    strategy = ms2()
    with strategy.scope() as entered:
        assert entered is strategy
        assert ds.get_replica_context() is None
        assert ds.in_cross_replica_context()
        assert ds.get_cross_replica_context() is strategy
        assert ds.get_strategy() is strategy
        assert ds.has_strategy()

    seen = []

    def fn():
        context = ds.get_replica_context()
        seen.append((type(context).__name__, ds.in_cross_replica_context(), context.strategy is strategy))

    strategy.run(fn)
    assert seen == [("ReplicaContext", False, True)] * 2
    assert not ds.has_strategy()


def test_same_strategy_scopes_nest_and_unwind():
    strategy = ms2()
    with strategy.scope():
        with strategy.scope():
            assert ds.get_strategy() is strategy
        assert ds.get_strategy() is strategy
    assert not ds.has_strategy()


def test_different_strategy_scope_is_mixing_error():
    first, second = ms2(), ms2()
    with first.scope():
        with pytest.raises(RuntimeError, match="Mixing different tf.distribute.Strategy objects"):
            with second.scope():
                pass
    assert not ds.has_strategy()


def test_default_strategy_scope_inside_another_scope():
    default = ds.get_strategy()
    with default.scope():
        assert not ds.has_strategy()
    with ms2().scope():
        with pytest.raises(RuntimeError, match="Must not nest"):
            with default.scope():
                pass


@pytest.mark.parametrize("method", ["scope", "run", "reduce", "call_for_each_replica", "gather"])
def test_cross_replica_methods_inside_replica_fn(method):
    strategy = ms2()

    def fn():
        if method == "scope":
            with strategy.scope():
                pass
        elif method == "run":
            strategy.run(lambda: None)
        elif method == "reduce":
            strategy.reduce("SUM", 1.0, axis=None)
        elif method == "gather":
            strategy.gather(tf.constant([1.0]), axis=0)
        else:
            strategy.extended.call_for_each_replica(lambda: None)

    expected = "all_gather" if method == "gather" else "cross-replica context"
    with pytest.raises(RuntimeError, match=expected):
        strategy.run(fn)
    assert not ds.has_strategy()


def test_other_strategy_inside_replica_fn_is_mixing_error():
    strategy, other = ms2(), ms2()
    with pytest.raises(RuntimeError, match="Mixing"):
        strategy.run(lambda: other.reduce("SUM", 1.0, axis=None))


def test_merge_fn_runs_in_cross_replica_context():
    strategy = ms2()
    observed = []

    def merge_fn(s):
        observed.append((s is strategy, ds.in_cross_replica_context(), ds.get_replica_context()))
        with s.scope():  # allowed again in cross-replica context
            pass
        return 7

    result = strategy.run(lambda: ds.get_replica_context().merge_call(merge_fn))
    assert result == 7
    assert observed == [(True, True, None)]


def test_experimental_set_strategy():
    strategy = ms2()
    ds.experimental_set_strategy(strategy)
    try:
        assert ds.get_strategy() is strategy
        assert ds.in_cross_replica_context()
        other = ms2()
        ds.experimental_set_strategy(other)  # replaces
        assert ds.get_strategy() is other
    finally:
        ds.experimental_set_strategy(None)
    assert not ds.has_strategy()
    with strategy.scope():
        with pytest.raises(RuntimeError, match="Must not be called inside"):
            ds.experimental_set_strategy(ms2())


def test_copy_is_an_error_deepcopy_is_allowed():
    strategy = ms2()
    with pytest.raises(RuntimeError):
        copy.copy(strategy)
    clone = copy.deepcopy(strategy)
    assert clone.extended._container_strategy() is clone
    assert clone.num_replicas_in_sync == 2
    assert clone.extended.worker_devices == strategy.extended.worker_devices


def test_default_strategy_worker_devices_unsupported():
    extended = ds.get_strategy().extended
    with pytest.raises(RuntimeError, match="unsupported by default"):
        _ = extended.worker_devices
    with pytest.raises(RuntimeError, match="unsupported by default"):
        _ = extended.parameter_devices


def test_replica_context_rejects_bad_replica_ids():
    with pytest.raises(ValueError):
        ds.ReplicaContext(ms2(), "0")
    assert ds.ReplicaContext(ms2(), None).replica_id_in_sync_group is None
    assert ds.ReplicaContext(ms2(), tf.constant(1)).replica_id_in_sync_group is not None


def test_scopes_are_per_replica_greenlet():
    strategy = ms2()
    depths = []

    def fn():
        context = ds.get_replica_context()
        depths.append(context.replica_id_in_sync_group)
        context.merge_call(lambda s: None)  # switch to the other replica mid-function
        assert ds.get_replica_context() is context
        return context.replica_id_in_sync_group

    assert [int(v) for v in strategy.run(fn).values] == [0, 1]


def test_require_static_shapes_as_tf():
    # TF 2.21: TPUExtended sets _require_static_shapes = True; the other strategies keep the base's False.
    tpu = tf.distribute.TPUStrategy(tf.distribute.cluster_resolver.TPUClusterResolver(tpu=""))
    assert tpu.extended.experimental_require_static_shapes is True
    assert tf.distribute.MirroredStrategy(["GPU:0", "GPU:1"]).extended.experimental_require_static_shapes is False
    assert tf.distribute.OneDeviceStrategy("CPU:0").extended.experimental_require_static_shapes is False
