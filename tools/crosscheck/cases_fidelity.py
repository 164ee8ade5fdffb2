"""Issue 14's areas: collective argument errors, regrouping, replica ids, values and variables as TF sees them,
tf.nest composites, tf.debugging, strategy members, input-pipeline members, tensor serialization.

Error cases that TF reports through its collectives (InvalidArgumentError) each get a case of their own: TF's CPU
collectives are unusable in a process after one failure (crosscheck_tf.py reruns such cases in a fresh process).
"""

from __future__ import annotations

import numpy as np

from crosscheck.describe import Repr, error_of
from crosscheck.registry import MIRRORED, case


def _rid(tf):
    return tf.distribute.get_replica_context().replica_id_in_sync_group


def _values(s, fn):
    return s.experimental_distribute_values_from_function(fn)


# ---- collective argument errors (strategy_gather_test.py) ----

@case()
def gather_sizes_differing_along_the_axis(tf, strategy):
    s = strategy(2)
    rows = _values(s, lambda ctx: tf.constant(1.0, shape=(ctx.replica_id_in_sync_group + 1, 1)))
    cols = _values(s, lambda ctx: tf.constant(1.0, shape=(1, ctx.replica_id_in_sync_group + 1)))
    return {"axis0": s.gather(rows, 0), "axis1": s.gather(cols, 1),
            "all_gather axis0": s.run(lambda v: tf.distribute.get_replica_context().all_gather(tf.identity(v), 0),
                                      args=(rows,)),
            "all_gather nest axis1": s.run(lambda v: tf.distribute.get_replica_context().all_gather(
                [tf.identity(v), tf.constant([[[1, 2], [1, 2]]])], 1), args=(cols,))}


@case()
def gather_non_axis_sizes_differ(tf, strategy):
    s = strategy(2)
    return error_of(lambda: s.gather(_values(s, lambda ctx: tf.ones([1, ctx.replica_id_in_sync_group + 1])), 0))


@case()
def gather_ranks_differ(tf, strategy):
    s = strategy(2)
    return error_of(lambda: s.gather(_values(
        s, lambda ctx: tf.ones(list(range(1, ctx.replica_id_in_sync_group + 2)))), 0))


@case()
def all_gather_non_axis_sizes_differ(tf, strategy):
    s = strategy(2)
    value = _values(s, lambda ctx: tf.ones([1, ctx.replica_id_in_sync_group + 1]))
    return error_of(lambda: s.run(lambda v: tf.distribute.get_replica_context().all_gather(tf.identity(v), 0),
                                  args=(value,)))


@case()
def all_gather_ranks_differ(tf, strategy):
    s = strategy(2)
    value = _values(s, lambda ctx: tf.ones(list(range(1, ctx.replica_id_in_sync_group + 2))))
    return error_of(lambda: s.run(lambda v: tf.distribute.get_replica_context().all_gather(tf.identity(v), 0),
                                  args=(value,)))


@case()
def gathers_of_indexed_slices(tf, strategy):
    s = strategy(2)
    slices = tf.IndexedSlices(values=tf.constant([[1.0, 2.0]]), indices=tf.constant([2]),
                              dense_shape=tf.constant([5, 2]))
    return {"gather": error_of(lambda: s.gather(slices, 0)),
            "all_gather": error_of(lambda: s.run(lambda v: tf.distribute.get_replica_context().all_gather(v, 0),
                                                 args=(slices,)))}


@case()
def run_results_of_different_structures(tf, strategy):
    s = strategy(2)

    def differ(a, b):
        return lambda: a() if int(_rid(tf)) == 0 else b()

    one = lambda: tf.constant(1.0)  # noqa: E731
    return {"list lengths": error_of(lambda: s.run(differ(lambda: [one()], lambda: [one(), one()]))),
            "list vs tuple": error_of(lambda: s.run(differ(lambda: [one()], lambda: (one(),)))),
            "dict keys": error_of(lambda: s.run(differ(lambda: {"a": one()}, lambda: {"b": one()}))),
            "tuple lengths": error_of(lambda: s.run(differ(lambda: (one(),), lambda: (one(), one()))))}


@case(kinds=(MIRRORED,))  # TPUStrategy.run turns outputs into tensors, None included in TF's traced program
def run_result_none_on_one_replica(tf, strategy):
    return strategy(2).run(lambda: None if int(_rid(tf)) == 0 else tf.constant(1.0))


@case()
def replica_id_is_a_tensor(tf, strategy):
    s = strategy(2)
    return {"ids": s.run(lambda: _rid(tf)), "cast": s.run(lambda: tf.cast(_rid(tf), tf.float32) * 2.0),
            "numpy": s.experimental_local_results(s.run(lambda: _rid(tf) + 1)),
            "default context": Repr(repr(_rid(tf))),
            "value context": Repr(repr(s.experimental_local_results(
                _values(s, lambda ctx: type(ctx.replica_id_in_sync_group).__name__))))}


@case()
def replica_id_in_one_device_and_default_strategies(tf):
    one = tf.distribute.OneDeviceStrategy("CPU:0")
    return {"one device": one.run(lambda: _rid(tf)), "default": tf.distribute.get_strategy().run(lambda: _rid(tf))}


# ---- values and variables ----

@case()
def variables_as_tf_sees_them(tf, strategy):
    s = strategy(2)
    with s.scope():
        v = tf.Variable(1.0)
        on_read = tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_READ,
                              aggregation=tf.VariableAggregation.SUM)
    sparse = tf.SparseTensor(indices=[[0, 0]], values=[1.0], dense_shape=[3, 4])
    return {"is_tensor": [tf.is_tensor(x) for x in (v, on_read, v.values[0], tf.Variable(2.0), sparse,
                                                    s.run(lambda: tf.constant(1.0)), 1.0, np.ones(2))],
            "synchronization": [Repr(str(x.synchronization)) for x in (v, v.values[0], on_read, tf.Variable(1.0))]}


@case()
def next_past_the_end_inside_a_function(tf, strategy):
    s = strategy(2)
    iterator = iter(s.experimental_distribute_dataset(tf.data.Dataset.range(4).batch(4)))

    @tf.function
    def step(it):
        return next(it)

    first = step(iterator)
    return {"first": first, "second": error_of(lambda: step(iterator))}


@case()
def nest_expand_composites(tf):
    sparse = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])
    slices = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([2]), tf.constant([5, 2]))
    doubled = tf.nest.map_structure(lambda t: t * 2 if t.dtype == tf.float32 else t, sparse, expand_composites=True)
    packed = tf.nest.pack_sequence_as([sparse, 5], tf.nest.flatten([sparse, 5], expand_composites=True),
                                      expand_composites=True)
    return {"flat": tf.nest.flatten({"a": sparse, "b": tf.constant(1)}, expand_composites=True),
            "not expanded": len(tf.nest.flatten(sparse)), "slices": tf.nest.flatten(slices, expand_composites=True),
            "mapped": [type(doubled).__name__, doubled.values, doubled.indices],
            "packed": [type(packed[0]).__name__, packed[0].values, packed[1]],
            "short": error_of(lambda: tf.nest.pack_sequence_as(sparse, [1, 2], expand_composites=True))}


@case()
def debugging_assertions(tf):
    x, y = tf.constant([1.0, 2.0]), tf.constant([1.0, 3.0])
    return {
        "equal ok": error_of(lambda: tf.debugging.assert_equal(x, x)),
        "equal": error_of(lambda: tf.debugging.assert_equal(x, y)),
        "equal shapes": error_of(lambda: tf.debugging.assert_equal(x, tf.constant([1.0, 2.0, 3.0]))),
        "less": error_of(lambda: tf.debugging.assert_less(x, y)),
        "less_equal": error_of(lambda: tf.debugging.assert_less_equal(x, y)),
        "greater": error_of(lambda: tf.debugging.assert_greater(y, x)),
        "non_negative": error_of(lambda: tf.debugging.assert_non_negative(-x)),
        "positive": error_of(lambda: tf.debugging.assert_positive(x)),
        "none_equal": error_of(lambda: tf.debugging.assert_none_equal(x, y)),
        "near": error_of(lambda: tf.debugging.assert_near(x, x + 1e-7)),
        "rank": error_of(lambda: tf.debugging.assert_rank(x, 2)),
        "rank_at_least": error_of(lambda: tf.debugging.assert_rank_at_least(x, 1)),
        "type": error_of(lambda: tf.debugging.assert_type(x, tf.int32)),
        "integer": error_of(lambda: tf.debugging.assert_integer(x)),
        "scalar": error_of(lambda: tf.debugging.assert_scalar(x)),
        "shapes ok": error_of(lambda: tf.debugging.assert_shapes([(x, ("N",)), (tf.ones([2, 3]), ("N", "D"))])),
        "shapes": error_of(lambda: tf.debugging.assert_shapes([(x, ("N",)), (tf.ones([3, 3]), ("N", "D"))])),
        "check_numerics": tf.debugging.check_numerics(x, "m"),
        "check_numerics nan": error_of(lambda: tf.debugging.check_numerics(tf.constant([np.nan]), "m")),
        "Assert": error_of(lambda: tf.debugging.Assert(tf.constant(False), [x])),
        "top-level Assert ok": error_of(lambda: tf.Assert(True, ["hello", x])),
        "control_dependencies": _with_control_dependencies(tf, x),
    }


def _with_control_dependencies(tf, x):
    with tf.control_dependencies([tf.debugging.assert_equal(x, x)]):
        return tf.identity(x)


# ---- strategy members ----

@case()
def strategy_group_and_update_non_slot(tf, strategy):
    s = strategy(2)
    with s.scope():
        v = tf.Variable(1.0)
    devices = s.extended.non_slot_devices([v])
    grouped = s.extended.update_non_slot(devices, lambda: tf.constant(3.0))
    ungrouped = s.extended.update_non_slot(devices, lambda x: x + 1.0, args=(tf.constant(2.0),), group=False)
    with s.scope():
        s.extended.update_non_slot(devices, lambda: v.assign_add(1.0))
    return {"group": s.group(s.run(lambda: tf.constant(1.0))), "grouped": grouped, "ungrouped": ungrouped,
            "variable": v, "not a tuple": error_of(lambda: s.extended.update_non_slot(v, lambda: None))}


@case(kinds=(MIRRORED,))
def cross_device_ops_classes(tf, strategy):
    results: dict = {}
    # NcclAllReduce is built and checked only: TF has no NCCL kernel without GPUs (InvalidArgumentError on CPUs),
    # while the simulator runs it on its collectives like the others.
    results["nccl type"] = [c.__name__ for c in type(tf.distribute.NcclAllReduce()).__mro__[:3]]
    for name in ("ReductionToOneDevice", "HierarchicalCopyAllReduce"):
        ops = getattr(tf.distribute, name)()
        s = tf.distribute.MirroredStrategy(["CPU:0", "CPU:1"], cross_device_ops=ops)
        pr = s.run(lambda: tf.cast(_rid(tf), tf.float32) + 3.0)
        results[name] = {
            "all_reduce": s.run(lambda: tf.distribute.get_replica_context().all_reduce("SUM", tf.constant([1.0]))),
            "reduce": ops.reduce(tf.distribute.ReduceOp.SUM, pr, destinations="CPU:0"),
            "batch_reduce": ops.batch_reduce(tf.distribute.ReduceOp.MEAN, [(pr, "CPU:0"), (pr, "CPU:1")]),
            "broadcast": ops.broadcast(tf.constant(1.0), "CPU:0"),
            "string op": error_of(lambda: ops.reduce("SUM", pr, destinations="CPU:0"))}  # noqa: B023
    results["num_packs"] = error_of(lambda: tf.distribute.NcclAllReduce(num_packs=-1))
    hints = tf.distribute.experimental.CollectiveHints(bytes_per_pack=32, timeout_seconds=10)
    results["hints"] = [hints.bytes_per_pack, hints.timeout_seconds]
    return results


@case()
def cluster_spec_cluster_def(tf):
    spec = tf.train.ClusterSpec({"worker": ["h1:1", "h2:2"], "ps": ["h3:3"], "chief": {300: "c:1"}})
    single = tf.train.ClusterSpec({"chief": {300: "c:1"}, "ps": ["h3:3"]})
    return {"text": Repr(str(spec.as_cluster_def())), "bytes": single.as_cluster_def().SerializeToString().hex(),
            "round trip": Repr(repr(tf.train.ClusterSpec(spec.as_cluster_def()))),
            "equal": tf.train.ClusterSpec(spec.as_cluster_def()) == spec}


# ---- input pipelines ----

@case()
def distributed_dataset_cardinality_and_reduce(tf, strategy):
    s = strategy(2)
    dist = s.experimental_distribute_dataset(tf.data.Dataset.range(8).batch(4))
    partial = s.experimental_distribute_dataset(tf.data.Dataset.range(5).batch(4))
    from_fn = s.distribute_datasets_from_function(lambda ctx: tf.data.Dataset.range(8).batch(2))
    return {"cardinality": int(dist.cardinality), "from function": int(from_fn.cardinality),
            "infinite": int(s.experimental_distribute_dataset(tf.data.Dataset.range(4).repeat().batch(2)).cardinality),
            "reduce": dist.reduce(tf.constant(0, tf.int64), lambda st, x: st + s.reduce("SUM", x, axis=0)),
            "reduce partial": partial.reduce(tf.constant(0, tf.int64), lambda st, x: st + s.reduce("SUM", x, axis=0))}


@case()
def serialize_and_parse_tensor(tf):
    out = {}
    for name, value, dtype in (("f32", [[1.0, 2.0], [3.0, 4.0]], tf.float32), ("i64", [1, 2, 3], tf.int64),
                               ("i32 scalar", 5, tf.int32), ("bool", [True, False], tf.bool),
                               ("empty", np.zeros((0, 2), np.float32), tf.float32), ("f16", [1.5], tf.float16),
                               ("f64", [2.5], tf.float64)):
        serialized = tf.io.serialize_tensor(tf.constant(value, dtype))
        raw = serialized.numpy() if hasattr(serialized, "numpy") else serialized
        out[name] = {"hex": raw.hex(), "parsed": tf.io.parse_tensor(serialized, dtype)}
    out["typed fields"] = tf.io.parse_tensor(bytes.fromhex("0801120412020803" + "2a0400002040"), tf.float32)
    out["mismatch"] = error_of(lambda: tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant(1.0)), tf.int32))
    out["garbage"] = error_of(lambda: tf.io.parse_tensor(bytes.fromhex("080912001a02"), tf.int64))
    return out


@case()
def boolean_mask_indexing(tf):
    t = tf.constant([1, 2, 3, 4])
    m = tf.constant([[1, 2], [3, 4]])
    return {"t[t > 2]": t[t > 2], "numpy mask": t[np.array([True, False, True, False])],
            "rows": m[tf.constant([True, False])], "boolean_mask": tf.boolean_mask(t, [True, False, True, False])}


@case()
def fixed_len_sequence_feature(tf):
    def example(values):
        feature = {"a": tf.train.Feature(int64_list=tf.train.Int64List(value=values))} if values else {}
        return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()

    sequence = tf.io.FixedLenSequenceFeature
    return {"batch": tf.io.parse_example([example([1, 2, 3]), example([4]), example(None)],
                                         {"a": sequence([], tf.int64, allow_missing=True)})["a"],
            "pairs": tf.io.parse_example([example([1, 2, 3, 4]), example([5, 6])],
                                         {"a": sequence([2], tf.int64, allow_missing=True, default_value=-1)})["a"],
            "single": tf.io.parse_single_example(example([1, 2, 3, 4]),
                                                 {"a": sequence([2], tf.int64, allow_missing=True)})["a"],
            "stride": error_of(lambda: tf.io.parse_example([example([1, 2, 3])],
                                                           {"a": sequence([2], tf.int64, allow_missing=True)})),
            "not allow_missing": error_of(lambda: tf.io.parse_example([example([1])], {"a": sequence([], tf.int64)}))}


@case(kinds=(MIRRORED,))
def central_storage_strategy(tf, strategy):
    s = tf.distribute.experimental.CentralStorageStrategy(["CPU:0", "CPU:1"])
    with s.scope():
        total = tf.Variable(1.0, aggregation=tf.VariableAggregation.SUM)
        mean = tf.Variable(1.0, aggregation=tf.VariableAggregation.MEAN)
        plain = tf.Variable(1.0)

    def step():
        total.assign_add(tf.constant(1.0))
        mean.assign_add(tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32) + 1.0)
        return total.read_value()

    return {"type": type(total).__name__, "parameter_devices": list(s.extended.parameter_devices),
            "reads": s.run(step), "total": total.numpy(), "mean": mean.numpy(), "times two": s.run(lambda: plain * 2.0),
            "no aggregation": error_of(lambda: s.run(lambda: plain.assign_add(tf.constant(1.0)))),
            "synchronization": Repr(str(plain.synchronization)), "repr": Repr(repr(plain))}


def _py(x):
    """String results compared as Python values (TF's are string tensors, tpustrategy's bytes / object arrays)."""
    value = x.numpy() if hasattr(x, "numpy") else x
    return np.asarray(value, dtype=object).tolist() if not isinstance(value, bytes) else value


@case()
def string_ops(tf):
    words = [b"hello world", b"a,b", b""]
    ints, floats, text = tf.io.decode_csv([b"1,2.5,x", b"3,,y"], record_defaults=[[0], [9.0], [""]])
    return {"length": tf.strings.length(words), "utf8 length": tf.strings.length(["h\u00e9llo"], unit="UTF8_CHAR"),
            "join": _py(tf.strings.join([["a", "b"], ["c", "d"]], separator="-")),
            "reduce_join": _py(tf.strings.reduce_join(["a", "b", "c"], separator=",")),
            "substr": _py(tf.strings.substr(words[:2], 1, 3)),
            "substr negative": _py(tf.strings.substr(b"hello", -3, 2)),
            "substr error": error_of(lambda: tf.strings.substr(words, 1, 3)),
            "to_number": tf.strings.to_number(["1.5", "2"]),
            "to_number int64": tf.strings.to_number(["3", "-4"], out_type=tf.int64),
            "to_number error": error_of(lambda: tf.strings.to_number(["x"])),
            "bytes_split": _py(tf.strings.bytes_split(b"abc")), "split": _py(tf.strings.split(b"a b  c")),
            "split sep": _py(tf.strings.split(b"a,b,,c", sep=",")),
            "decode_raw": tf.io.decode_raw([b"\x01\x00\x00\x00", b"\x02\x00\x00\x00"], tf.int32),
            "decode_raw error": error_of(lambda: tf.io.decode_raw(b"\x01\x00\x00", tf.int32)),
            "decode_csv": [ints, floats, _py(text)],
            "decode_csv error": error_of(lambda: tf.io.decode_csv([b"1"], record_defaults=[[0], [0]]))}


@case()
def sparse_tensors_in_pipelines(tf, strategy):
    def example(values):
        feature = {"a": tf.train.Feature(int64_list=tf.train.Int64List(value=values))}
        return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()

    parsed = tf.data.Dataset.from_tensor_slices([example([1, 2, 3]), example([4]), example([5, 6]), example([])]).map(
        lambda s: tf.io.parse_single_example(s, {"a": tf.io.VarLenFeature(tf.int64)}))
    sparse = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])
    sliced = tf.data.Dataset.from_tensor_slices(sparse)
    s = strategy(2)
    element = next(iter(s.experimental_distribute_dataset(parsed.batch(4))))
    parts = s.experimental_local_results(element["a"])
    return {"spec": Repr(repr(parsed.element_spec)), "sliced spec": Repr(repr(sliced.element_spec)),
            "batched spec": Repr(repr(sliced.batch(2).element_spec)),
            "rows": [tf.sparse.to_dense(x["a"]) for x in parsed],
            "batch": tf.sparse.to_dense(next(iter(parsed.batch(4)))["a"]),
            "per replica": [[p.indices, p.values, p.dense_shape] for p in parts],
            "sums": s.run(lambda d: tf.reduce_sum(tf.sparse.to_dense(d["a"])), args=(element,))}
