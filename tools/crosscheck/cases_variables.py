"""Mirrored (ON_WRITE) and SyncOnRead variables with each aggregation, updated in replica and cross-replica context."""

from __future__ import annotations

from crosscheck.describe import Repr, error_of
from crosscheck.registry import case

AGGREGATIONS = ("NONE", "SUM", "MEAN", "ONLY_FIRST_REPLICA")


def _plus_replica_id(tf):
    return tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32) + 1.0


def _components(s, v):
    return [Repr(repr(c.numpy())) for c in s.experimental_local_results(v)]


def _run_discarding(s, fn):
    """Runs fn in replica context for its side effect (update results differ in type between the two)."""
    return lambda: _discard(s.run, fn)


def _discard(fn, *args):
    # Not `fn() and None`: bool() of a NONE-aggregated SyncOnReadVariable is a cross-replica read (ValueError).
    fn(*args)


def _mirrored_steps(tf, s, agg: str) -> dict:
    with s.scope():
        v = tf.Variable(1.0, aggregation=getattr(tf.VariableAggregation, agg))
    steps = {"created": Repr(repr(v))}
    steps["assign_add"] = error_of(_run_discarding(s, lambda: v.assign_add(_plus_replica_id(tf))))
    steps["after assign_add"] = _components(s, v)
    steps["assign"] = error_of(_run_discarding(s, lambda: v.assign(_plus_replica_id(tf) * 10.0)))
    steps["after assign"] = _components(s, v)
    steps["assign literal"] = error_of(_run_discarding(s, lambda: v.assign(4.0)))
    steps["after literal"] = _components(s, v)
    v.assign(7.0)  # cross-replica: every component
    steps["cross assign"] = _components(s, v)
    steps["read in replica"] = s.run(lambda: v.read_value() * 1.0)
    return steps


@case()
def mirrored_variable_updates(tf, strategy):
    return {agg: _mirrored_steps(tf, strategy(2), agg) for agg in AGGREGATIONS}


def _sync_on_read_steps(tf, s, agg: str) -> dict:
    with s.scope():
        v = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=getattr(tf.VariableAggregation, agg))
    steps = {"created": Repr(repr(v))}
    s.run(lambda: v.assign_add(_plus_replica_id(tf)))
    steps["components"] = _components(s, v)
    steps["cross read"] = error_of(v.read_value)
    steps["replica read"] = s.run(lambda: v.read_value() * 1.0)
    steps["cross assign 6"] = error_of(lambda: _discard(v.assign, 6.0))
    steps["after cross assign"] = _components(s, v)
    steps["cross assign_add"] = error_of(lambda: _discard(v.assign_add, 1.0))
    steps["after cross assign_add"] = _components(s, v)
    return steps


@case()
def sync_on_read_variable_updates(tf, strategy):
    return {agg: _sync_on_read_steps(tf, strategy(2), agg) for agg in AGGREGATIONS}


@case()
def variable_creation_errors(tf, strategy):
    s = strategy(2)
    with s.scope():
        return {"mean int": error_of(lambda: tf.Variable(1, aggregation=tf.VariableAggregation.MEAN)),
                "sync none": error_of(
                    lambda: tf.Variable(1.0, synchronization=tf.VariableSynchronization.NONE)),
                "named": Repr(repr(tf.Variable([1, 2], name="weights")))}


@case()
def mirrored_variable_cross_replica_per_replica_assign(tf, strategy):
    s = strategy(2)
    with s.scope():
        v = tf.Variable(1.0, aggregation=tf.VariableAggregation.SUM)
    per_replica = s.run(_plus_replica_id, args=(tf,))
    return {"assign": error_of(lambda: _discard(v.assign, per_replica)), "after": _components(s, v)}
