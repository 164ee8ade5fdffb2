"""Cases translated from what TensorFlow's own tf.distribute tests check (tensorflow/python/distribute/*_test.py:
values, input_lib, strategy_common, strategy_test_lib, mirrored_strategy, distribute_lib, cross_device_ops,
collective_all_reduce_strategy). Written anew from the checks, not copied.

Left out (tpustrategy differs, see tests_py/test_crosscheck_tf_tests.py): next() past the end raises EndOfSequence
(a StopIteration subclass, TF: StopIteration), experimental_distribute_dataset of a non-dataset (TF:
AttributeError; here an error that is both TypeError and AttributeError). A cross-replica assign_add's local
results (tensors, as TF) and str() of VariableAggregation values (VariableAggregationV2 for tf.VariableAggregation
members, as TF 2.21), left out when these cases were recorded, are pinned in tests_py/test_tf_fidelity_values.py."""

from __future__ import annotations

from crosscheck.describe import Repr, error_of
from crosscheck.registry import MIRRORED, case


def _r(value):
    return Repr(repr(value))


def _each(checks: dict) -> dict:
    """{name: the check's description, or its error type}: one failing check does not hide the others."""
    return {name: error_of(fn) for name, fn in checks.items()}


def _inside_scope(strategy, fn):
    with strategy.scope():
        return fn()


def _local(strategy, value):
    return [_r(v) for v in strategy.experimental_local_results(value)]


@case()
def tfd_default_strategy_and_contexts(tf):
    default = tf.distribute.get_strategy()
    return _each({
        "has strategy": lambda: tf.distribute.has_strategy(),
        "in cross replica": lambda: tf.distribute.in_cross_replica_context(),
        "replicas": lambda: default.num_replicas_in_sync,
        "replica context id": lambda: _r(tf.distribute.get_replica_context().replica_id_in_sync_group),
        "replica context replicas": lambda: tf.distribute.get_replica_context().num_replicas_in_sync,
        "run": lambda: _r(default.run(lambda x: x * 2, args=(tf.constant(3),))),
        "reduce": lambda: _r(default.reduce("SUM", tf.constant([1.0, 2.0]), axis=0)),
        "local results": lambda: [_r(v) for v in default.experimental_local_results(tf.constant(1))],
        "scope is default": lambda: _inside_scope(default, lambda: tf.distribute.get_strategy() is default),
        "reduce op from string": lambda: [str(tf.distribute.ReduceOp.from_variable_aggregation(
            tf.VariableAggregation.SUM)), str(tf.distribute.ReduceOp("MEAN"))],
        "bad reduce op": lambda: tf.distribute.ReduceOp("MAX"),
        "input context": lambda: (lambda c: [c.num_input_pipelines, c.input_pipeline_id, c.num_replicas_in_sync,
                                             c.get_per_replica_batch_size(12)])(tf.distribute.InputContext(2, 1, 4)),
        "input context bad batch": lambda: tf.distribute.InputContext(2, 1, 4).get_per_replica_batch_size(10),
        "input context type": lambda: type(tf.distribute.InputContext()).__name__,
        "replication modes": lambda: [m.name for m in tf.distribute.InputReplicationMode],
        "run options": lambda: (lambda o: [o.experimental_enable_dynamic_batch_size,
                                           o.experimental_bucketizing_dynamic_shape])(tf.distribute.RunOptions()),
        "input options": lambda: (lambda o: [o.experimental_fetch_to_device, o.experimental_per_replica_buffer_size,
                                             str(o.experimental_replication_mode)])(tf.distribute.InputOptions()),
    })


@case(kinds=(MIRRORED,))
def tfd_strategy_common(tf, strategy):
    s = strategy(2)

    def replica_fn():
        ctx = tf.distribute.get_replica_context()
        rid = tf.cast(ctx.replica_id_in_sync_group, tf.float32)
        return (ctx.all_reduce("MAX", rid), ctx.all_reduce("MIN", rid),
                ctx.all_reduce("SUM", {"a": rid, "b": [rid * 2]}))

    per_replica = s.run(lambda: tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32))
    return _each({
        "all_reduce max min nest": lambda: [[_local(s, x) for x in (out[0], out[1])] + [_r(out[2])]
                                            for out in [s.run(replica_fn)]],
        "reduce nest": lambda: _r(s.reduce("SUM", (per_replica, {"k": per_replica}), axis=None)),
        "reduce mean": lambda: _r(s.reduce("MEAN", per_replica, axis=None)),
        "reduce plain tensor": lambda: _r(s.reduce("SUM", tf.constant([1.0, 2.0]), axis=0)),
        "reduce bad op": lambda: s.reduce("MAX", per_replica, axis=None),
        "values from function": lambda: _local(s, s.experimental_distribute_values_from_function(
            lambda ctx: tf.constant([ctx.replica_id_in_sync_group, ctx.num_replicas_in_sync]))),
        "values from function ctx": lambda: _r(s.experimental_distribute_values_from_function(
            lambda ctx: ctx.replica_id_in_sync_group)),
        "run kwargs": lambda: _local(s, s.run(lambda a, b=0: a + b, args=(tf.constant(1),),
                                              kwargs={"b": tf.constant(10)})),
        "run returns python": lambda: _r(s.run(lambda: 3)),
        "run returns none": lambda: _r(s.run(lambda: None)),
        "replica context outside": lambda: tf.distribute.get_replica_context() is None,
        "cross replica inside scope": lambda: _inside_scope(s, lambda: [tf.distribute.in_cross_replica_context(),
                                                                        tf.distribute.get_strategy() is s]),
        "merge call": lambda: _local(s, s.run(lambda: tf.distribute.get_replica_context().merge_call(
            lambda strat, v: strat.reduce("SUM", v, axis=None),
            args=(tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32) + 1.0,)))),
        "num replicas": lambda: s.num_replicas_in_sync,
    })


@case(kinds=(MIRRORED,))
def tfd_values(tf, strategy):
    s = strategy(2)
    per_replica = s.run(lambda: tf.constant([1.0, 2.0]) * tf.cast(
        tf.distribute.get_replica_context().replica_id_in_sync_group + 1, tf.float32))
    with s.scope():
        v = tf.Variable(3.0, name="vv")
        sync = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                           aggregation=tf.VariableAggregation.SUM)
    return _each({
        "per replica type": lambda: type(per_replica).__name__,
        "per replica values": lambda: [_r(x) for x in per_replica.values],
        "is tensor": lambda: [tf.is_tensor(per_replica), tf.is_tensor(v)],
        "nest flatten": lambda: len(tf.nest.flatten(per_replica)),
        "nest flatten composites": lambda: len(tf.nest.flatten(per_replica, expand_composites=True)),
        "variable props": lambda: [v.name, str(v.dtype), v.shape.as_list(), v.trainable, str(v.aggregation),
                                   str(v.synchronization)],
        "variable numpy": lambda: float(v.numpy()),
        "read value": lambda: _r(v.read_value()),
        "identity": lambda: _r(tf.identity(v)),
        "sync read cross replica": lambda: (lambda: [s.run(lambda: sync.assign_add(1.0)), _r(sync.read_value())][1])(),
        "variable plus tensor": lambda: _r(v + tf.constant(1.0)),
        "variable in tensor list": lambda: _r(tf.stack([v, v])),
        "mirrored values": lambda: [_r(c) for c in v.values],
        "per replica in tf function": lambda: _local(s, s.run(tf.function(lambda x: x * 2), args=(per_replica,))),
        "experimental_local_results of variable": lambda: len(s.experimental_local_results(v)),
    })


@case(kinds=(MIRRORED,))
def tfd_input_lib(tf, strategy):
    s = strategy(2)
    ds = tf.data.Dataset.range(10).batch(4)
    dist = s.experimental_distribute_dataset(ds)

    def through(d):
        return [_local(s, x) for x in d]

    return _each({
        "element spec": lambda: _r(dist.element_spec),
        "elements uneven": lambda: through(dist),
        "twice": lambda: [through(dist), through(dist)],
        "drop remainder spec": lambda: _r(s.experimental_distribute_dataset(
            tf.data.Dataset.range(10).batch(4, drop_remainder=True)).element_spec),
        "iterator spec": lambda: _r(iter(dist).element_spec),
        "get next as optional": lambda: (lambda it: [bool(it.get_next_as_optional().has_value()) for _ in range(4)])(
            iter(dist)),
        "optional value": lambda: (lambda it: _local(s, it.get_next_as_optional().get_value()))(iter(dist)),
        "tuple elements": lambda: through(s.experimental_distribute_dataset(
            tf.data.Dataset.from_tensor_slices((tf.range(6), tf.range(6) * 10)).batch(4))),
        "dict elements": lambda: through(s.experimental_distribute_dataset(
            tf.data.Dataset.from_tensor_slices({"x": tf.range(4)}).batch(4))),
        "from function": lambda: through(s.distribute_datasets_from_function(
            lambda ctx: tf.data.Dataset.range(8).shard(ctx.num_input_pipelines, ctx.input_pipeline_id).batch(
                ctx.get_per_replica_batch_size(4)))),
        "from function spec": lambda: _r(s.distribute_datasets_from_function(
            lambda ctx: tf.data.Dataset.range(8).batch(2)).element_spec),
        "batch smaller than replicas": lambda: through(s.experimental_distribute_dataset(
            tf.data.Dataset.range(3).batch(3))),
        "empty": lambda: through(s.experimental_distribute_dataset(tf.data.Dataset.range(0).batch(2))),
    })


@case(kinds=(MIRRORED,))
def tfd_cross_device_ops(tf, strategy):
    s = strategy(2)
    per_replica = s.run(lambda: tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)
                        + tf.constant([1.0, 2.0]))
    dest = s.extended.worker_devices[0]
    out = {}
    for name in ("ReductionToOneDevice", "HierarchicalCopyAllReduce", "NcclAllReduce"):
        def reduce(name=name):
            ops = getattr(tf.distribute, name)()
            return [_r(ops.reduce("SUM", per_replica, destinations=dest)),
                    [_r(x) for x in ops.batch_reduce("MEAN", [(per_replica, dest), (per_replica, dest)])]]
        out[name] = reduce
    out["broadcast"] = lambda: _r(tf.distribute.ReductionToOneDevice().broadcast(tf.constant(1.0), dest))
    out["bad op"] = lambda: tf.distribute.ReductionToOneDevice().reduce("MAX", per_replica, dest)
    return _each(out)
