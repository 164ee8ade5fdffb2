"""all_reduce, all_gather, Strategy.reduce and Strategy.gather."""

from __future__ import annotations

from crosscheck.describe import error_of
from crosscheck.registry import MIRRORED, case


def _replica_id(tf):
    return tf.distribute.get_replica_context().replica_id_in_sync_group


@case()
def all_reduce_nest_sum_mean(tf, strategy):
    s = strategy(3)

    def fn(op):
        r = tf.cast(_replica_id(tf), tf.float32)
        # No int32 here: TF keeps int32 in host memory and refuses to batch it with device tensors.
        nest = {"f32": r * 1.5, "pair": (r - 1.0, tf.cast(r / 3.0, tf.float64))}
        return tf.distribute.get_replica_context().all_reduce(op, nest)

    return {op: s.experimental_local_results(s.run(fn, args=(op,))) for op in ("SUM", "MEAN")}


def _all_reduce_row(tf, s, op: str, dtype, rows):
    def fn():
        row = tf.constant(rows)[tf.distribute.get_replica_context().replica_id_in_sync_group]
        return tf.distribute.get_replica_context().all_reduce(op, tf.cast(row, dtype))

    return error_of(lambda: s.experimental_local_results(s.run(fn))[0])


@case()
def all_reduce_dtypes(tf, strategy):
    # Per-replica rows chosen so that low-precision rounding shows: 256 + 1 + 1 in bfloat16, 2048 + 1 + 1 in
    # float16, and 1/3-ish values whose MEAN does not divide exactly.
    rows = [[256.0, 2048.0, 0.1, 7.0], [1.0, 1.0, 0.2, -2.0], [1.0, 1.0, 0.3, 0.0]]
    # A fresh strategy per dtype: TF's eager collectives abort when one instance key sees two dtypes.
    return {f"{dtype.name} {op}": _all_reduce_row(tf, strategy(3), op, dtype, rows)
            for dtype in (tf.float32, tf.int32) for op in ("SUM", "MEAN")}


@case(breaks_tf_collectives=True)
def all_reduce_low_precision(tf, strategy):
    # TF's CPU collectives reject float16/bfloat16 (InternalError), so TF gives no reference here: see
    # KNOWN_DEVIATIONS. The values are still printed, for the rounding: 256 + 1 + 1 in bfloat16, 2048 + 1 + 1 in
    # float16.
    rows = [[256.0, 2048.0, 0.1, 7.0], [1.0, 1.0, 0.2, -2.0], [1.0, 1.0, 0.3, 0.0]]
    return {f"{dtype.name} {op}": _all_reduce_row(tf, strategy(3), op, dtype, rows)
            for dtype in (tf.float16, tf.bfloat16) for op in ("SUM", "MEAN")}


@case()
def all_gather_axes(tf, strategy):
    s = strategy(2)

    def fn(axis):
        r = _replica_id(tf)
        # float32/float64 only: TF's CPU collectives cannot all_gather int32 or float16 (InternalError).
        value = {"m": tf.reshape(tf.range(6.0) + 10.0 * tf.cast(r, tf.float32), (2, 3)),
                 "v": tf.cast([r, r], tf.float64)}
        if axis == 1:
            value = value["m"]
        return tf.distribute.get_replica_context().all_gather(value, axis)

    return {str(a): s.experimental_local_results(s.run(fn, args=(a,))) for a in (0, 1)}


def _blocks(tf, s):
    """Per replica: a (2, 3) float block filled from the replica id, and an int32 copy."""
    block = s.experimental_distribute_values_from_function(
        lambda ctx: tf.reshape(tf.range(6, dtype=tf.float32) + 6.0 * ctx.replica_id_in_sync_group, (2, 3)))
    ints = s.experimental_distribute_values_from_function(
        lambda ctx: tf.reshape(tf.range(6) + 6 * ctx.replica_id_in_sync_group, (2, 3)))
    return block, ints


@case()
def strategy_reduce_axes(tf, strategy):
    s = strategy(2)
    block, ints = _blocks(tf, s)
    out = {}
    for op in ("SUM", "MEAN"):
        for axis in (None, 0, 1, (0, 1), -1):
            out[f"{op} {axis}"] = error_of(lambda op=op, axis=axis: s.reduce(op, block, axis=axis))
            out[f"{op} {axis} int"] = error_of(lambda op=op, axis=axis: s.reduce(op, ints, axis=axis))
    out["bad op"] = error_of(lambda: s.reduce("MAX", block, axis=None))
    out["bad op axis"] = error_of(lambda: s.reduce("max", block, axis=0))
    out["axis out of range"] = error_of(lambda: s.reduce("MEAN", block, axis=2))
    return out


@case()
def strategy_reduce_plain_values(tf, strategy):
    s = strategy(2)
    return {"sum tensor": error_of(lambda: s.reduce("SUM", tf.constant(2.0), axis=None)),
            "mean tensor": error_of(lambda: s.reduce("MEAN", tf.constant(2.0), axis=None)),
            "sum zero": error_of(lambda: s.reduce("SUM", 0, axis=None)),
            "sum axis 0": error_of(lambda: s.reduce("SUM", tf.constant([1.0, 2.0]), axis=0))}


@case()
def strategy_reduce_partial_batches(tf, strategy):
    """MEAN over axis 0 divides by the true global count, also when replicas hold 2+2+0 or 1+1 rows."""
    out = {}
    for n, size, batch in ((2, 6, 4), (3, 8, 4), (5, 4, 4)):
        s = strategy(n)
        steps = []
        for x in s.experimental_distribute_dataset(tf.data.Dataset.range(size).batch(batch)):
            steps.append({"mean": s.reduce("MEAN", x, axis=0), "sum": s.reduce("SUM", x, axis=0),
                          "mean_f": s.reduce("MEAN", s.run(lambda v: tf.cast(v, tf.float32), args=(x,)), axis=0)})
        out[f"range({size}).batch({batch}) over {n}"] = steps
    return out


@case()
def strategy_gather(tf, strategy):
    s = strategy(2)
    block, _ = _blocks(tf, s)
    return {"axis0": s.gather(block, axis=0), "axis1": s.gather(block, axis=1),
            "plain": s.gather(tf.constant([1, 2]), axis=0),
            "scalar": error_of(lambda: s.gather(s.run(lambda: tf.constant(1.0) * 1.0), axis=0))}


@case(kinds=(MIRRORED,))  # TPU needs equal shapes (documented); MirroredStrategy concatenates unequal ones
def strategy_gather_unequal(tf, strategy):
    s = strategy(2)
    rows = s.experimental_distribute_values_from_function(
        lambda ctx: tf.ones((ctx.replica_id_in_sync_group + 1, 2)) * float(ctx.replica_id_in_sync_group + 1))
    return s.gather(rows, axis=0)


@case()
def reduce_in_replica_context(tf, strategy):
    s = strategy(2)
    return {"reduce": error_of(lambda: s.run(lambda: s.reduce("SUM", tf.constant(1.0), axis=None))),
            "gather": error_of(lambda: s.run(lambda: s.gather(tf.constant([1.0]), axis=0)))}
