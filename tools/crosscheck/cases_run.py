"""Strategy.run and regrouping, merge_call, local results, values_from_function."""

from __future__ import annotations

import collections

from crosscheck.describe import Repr, error_of
from crosscheck.registry import MIRRORED, case

Point = collections.namedtuple("Point", "x y")


def replica_id_f32(tf):
    return tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)


# Identity unwrapping (the same object from every replica comes back unwrapped) is MirroredStrategy's; TF's
# TPUStrategy converts outputs to tensors and always returns PerReplica, so only the mirrored kind is compared.
@case(kinds=(MIRRORED,))
def run_identity_unwrapping(tf, strategy):
    s = strategy(2)
    shared = tf.constant([1.0, 2.0])
    return {"same_tensor": s.run(lambda: shared), "py_int": s.run(lambda: 5), "none": s.run(lambda: None),
            "tuple": s.run(lambda: (shared, 3))}


@case()
def run_repr_doubled(tf, strategy):
    out = strategy(2).run(lambda x: x * 2.0, args=(tf.constant(3.0),))
    return {"value": out, "repr": Repr(repr(out))}


@case()
def run_replica_ids(tf, strategy):
    out = strategy(3).run(lambda: tf.distribute.get_replica_context().replica_id_in_sync_group)
    return {"value": out, "repr": Repr(repr(out))}


@case()
def run_namedtuple_and_dict(tf, strategy):
    s = strategy(2)

    def fn():
        r = replica_id_f32(tf)
        return {"point": Point(x=r * 10.0, y=r + 0.5), "list": [r, tf.cast(r, tf.int32)]}

    return s.run(fn)


@case()
def run_per_replica_args(tf, strategy):
    s = strategy(3)
    per_replica = s.experimental_distribute_values_from_function(
        lambda ctx: tf.constant([float(ctx.replica_id_in_sync_group)] * 2))
    return s.run(lambda x, y: x + y, args=(per_replica,), kwargs={"y": tf.constant(1.0)})


@case()
def run_args_not_a_tuple(tf, strategy):
    return error_of(lambda: strategy(2).run(lambda x: x, args=tf.constant(1.0)))


@case()
def local_results(tf, strategy):
    s = strategy(2)
    pr = s.run(replica_id_f32, args=(tf,))
    return {"per_replica": s.experimental_local_results(pr),
            "nest": s.experimental_local_results({"a": pr, "b": [pr]}),
            "plain": s.experimental_local_results(tf.constant(7))}


@case()
def values_from_function(tf, strategy):
    s = strategy(3)
    ids = s.experimental_distribute_values_from_function(
        lambda ctx: ctx.replica_id_in_sync_group / ctx.num_replicas_in_sync)
    rows = s.experimental_distribute_values_from_function(
        lambda ctx: tf.constant([3.0, 2.0, 1.0])[ctx.replica_id_in_sync_group])
    return {"ids": s.experimental_local_results(ids), "rows": rows, "repr": Repr(repr(rows)),
            "context": Repr(repr(tf.distribute.experimental.ValueContext(2, 4).replica_id_in_sync_group))}


@case()
def merge_call_reduces(tf, strategy):
    s = strategy(2)

    def fn():
        ctx = tf.distribute.get_replica_context()
        value = replica_id_f32(tf) + 1.0
        total = ctx.merge_call(lambda strat, v: strat.reduce("SUM", v, axis=None), args=(value,))
        return total * 10.0

    return s.run(fn)


@case(kinds=(MIRRORED,))  # returns Python strings, which TPUStrategy.run would turn into tensors
def merge_call_sees_per_replica(tf, strategy):
    s = strategy(2)

    def fn():
        ctx = tf.distribute.get_replica_context()
        return ctx.merge_call(lambda strat, v: [Repr(type(v).__name__), strat.experimental_local_results(v)],
                              args=(replica_id_f32(tf),))

    return s.experimental_local_results(s.run(fn))
