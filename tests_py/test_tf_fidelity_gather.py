"""Strategy.gather / ReplicaContext.all_gather and run's regrouping as TF's own tests check them.

Written from what tensorflow/python/distribute/strategy_gather_test.py asserts (same shapes on axes 0..2, sizes
that differ along the axis, differences elsewhere raising, IndexedSlices rejected, nests) and from TF 2.21's
regroup (distribute_utils.regroup) and ReplicaContext.replica_id_in_sync_group; checked against TF 2.21.
"""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf


def _mirrored():
    return tf.distribute.MirroredStrategy([f"TPU:{i}" for i in range(4)])


def _tpu():
    return tf.distribute.TPUStrategy()


STRATEGIES = {"mirrored4": _mirrored, "tpu_v3_8": _tpu}


@pytest.fixture(params=sorted(STRATEGIES), ids=sorted(STRATEGIES))
def strategy(request):
    return STRATEGIES[request.param]()


def _local(strategy, value):
    return [np.asarray(v) for v in strategy.experimental_local_results(value)]


def _rid():
    return tf.distribute.get_replica_context().replica_id_in_sync_group


@pytest.mark.parametrize("value,axis", [([1, 2, 3], 0), ([[1, 2, 3]], 0), ([[1, 2, 3]], 1), ([[[1, 2], [1, 2]]], 0),
                                        ([[[1, 2], [1, 2]]], 1), ([[[1, 2], [1, 2]]], 2)],
                         ids=["1d_axis0", "2d_axis0", "2d_axis1", "3d_axis0", "3d_axis1", "3d_axis2"])
def test_gather_and_all_gather_of_equal_shapes_concatenate(strategy, value, axis):
    n = strategy.num_replicas_in_sync
    expected = np.concatenate([np.asarray(value)] * n, axis=axis)
    per_replica = strategy.experimental_distribute_values_from_function(lambda _: tf.identity(tf.constant(value)))
    np.testing.assert_array_equal(np.asarray(strategy.gather(per_replica, axis=axis)), expected)
    gathered = strategy.run(lambda v: tf.distribute.get_replica_context().all_gather(tf.identity(v), axis=axis),
                            args=(per_replica,))
    for result in _local(strategy, gathered):
        np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize("axis", [0, 1])
def test_gather_of_sizes_differing_along_the_axis(strategy, axis):
    # [1, 1], [2, 1], ... -> sum(1..n) along the axis, on TPU too (TF's TPUStrategy.gather concatenates).
    n = strategy.num_replicas_in_sync

    def value_fn(ctx):
        shape = [1, 1]
        shape[axis] = ctx.replica_id_in_sync_group + 1
        return tf.constant(float(ctx.replica_id_in_sync_group), shape=shape)

    per_replica = strategy.experimental_distribute_values_from_function(value_fn)
    expected = np.concatenate([np.full([r + 1, 1] if axis == 0 else [1, r + 1], float(r)) for r in range(n)], axis)
    np.testing.assert_array_equal(np.asarray(strategy.gather(per_replica, axis=axis)), expected)
    gathered = strategy.run(lambda v: tf.distribute.get_replica_context().all_gather(tf.identity(v), axis=axis),
                            args=(per_replica,))
    for result in _local(strategy, gathered):  # TF pads to the longest and slices (TF's TPU tests skip this)
        np.testing.assert_array_equal(result, expected)


def test_all_gather_of_a_nest_with_one_ragged_member(strategy):
    n = strategy.num_replicas_in_sync
    value_2 = tf.constant([[[1, 2], [1, 2]]])

    def fn():
        ragged = tf.ones([1, int(_rid()) + 1], tf.int32)
        return tf.distribute.get_replica_context().all_gather([ragged, tf.identity(value_2)], axis=1)

    first, second = strategy.run(fn)
    for result in _local(strategy, first):
        np.testing.assert_array_equal(result, np.ones([1, n * (n + 1) // 2]))
    for result in _local(strategy, second):
        np.testing.assert_array_equal(result, np.concatenate([np.asarray(value_2)] * n, axis=1))


def test_mirrored_gather_of_other_sizes_differing_raises_shape_mismatch():
    strategy = _mirrored()
    non_axis = strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.ones([1, ctx.replica_id_in_sync_group + 1]))
    rank = strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.ones(list(range(1, ctx.replica_id_in_sync_group + 2))))
    for value, shapes in ((non_axis, r"replica 1 has shape \[1,2\] but replica 0 has shape \[1,1\]"),
                          (rank, r"replica 1 has shape \[1,2\] but replica 0 has shape \[1\]")):
        with pytest.raises(tf.errors.InvalidArgumentError, match="Shape mismatch in the collective: " + shapes):
            strategy.gather(value, axis=0)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Shape mismatch in the collective"):
            strategy.run(lambda v: tf.distribute.get_replica_context().all_gather(tf.identity(v), axis=0),
                         args=(value,))


def test_tpu_gather_of_other_sizes_differing_raises_what_concat_raises():
    strategy = _tpu()
    non_axis = strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.ones([1, ctx.replica_id_in_sync_group + 1]))
    rank = strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.ones(list(range(1, min(ctx.replica_id_in_sync_group, 1) + 2))))
    with pytest.raises(ValueError, match=r"Dimension 1 in both shapes must be equal: shape\[0\] = \[1,1\] vs\. "
                                         r"shape\[1\] = \[1,2\]"):
        strategy.gather(non_axis, axis=0)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Ranks of all input tensors should match: "
                                                             r"shape\[0\] = \[1\] vs\. shape\[1\] = \[1,2\]"):
        strategy.gather(rank, axis=0)


def test_gathers_reject_indexed_slices(strategy):
    slices = tf.IndexedSlices(values=tf.constant([[1.0, 2.0]]), indices=tf.constant([2]),
                              dense_shape=tf.constant([5, 2]))
    with pytest.raises(NotImplementedError, match="gather does not support IndexedSlices"):
        strategy.gather(slices, axis=0)
    with pytest.raises(NotImplementedError, match="all_gather does not support IndexedSlices"):
        strategy.run(lambda v: tf.distribute.get_replica_context().all_gather(v, axis=0), args=(slices,))


def test_gather_of_a_plain_value_returns_it(strategy):
    plain = tf.constant([1.0])
    assert strategy.gather(plain, axis=0) is plain


def test_replicas_returning_different_structures_raise_assertion_error(strategy):
    def fn():
        return {"a": tf.constant(1.0)} if int(_rid()) == 0 else {"b": tf.constant(1.0)}

    with pytest.raises(AssertionError, match=r"v\[0\].keys: \{'a'\}  v\[i\].keys: \{'b'\}"):
        strategy.run(fn)
    with pytest.raises(AssertionError, match=r"len\(v\) == 2, len\(v0\) == 1"):
        strategy.run(lambda: [tf.constant(1.0)] * (1 + min(int(_rid()), 1)))
    # The strategy stays usable.
    assert _local(strategy, strategy.run(lambda: tf.constant(2.0)))[0] == 2.0


def test_replica_id_is_a_fresh_int32_tensor_on_the_replica_device(strategy):
    def fn():
        ctx = tf.distribute.get_replica_context()
        a, b = ctx.replica_id_in_sync_group, ctx.replica_id_in_sync_group
        return a, tf.constant(a is b)

    ids, same = strategy.run(fn)
    values = strategy.experimental_local_results(ids)
    n = strategy.num_replicas_in_sync
    assert [int(v.numpy()) for v in values] == list(range(n))
    assert [v.dtype for v in values] == [tf.int32] * n
    assert [v.device for v in values] == list(strategy.extended.worker_devices)
    assert not any(bool(v) for v in strategy.experimental_local_results(same))  # made at each read, as in TF
    # The id indexes Python sequences and tensors, as an EagerTensor does.
    tens, ones = tf.constant([10, 20, 30, 40, 50, 60, 70, 80]), [1, 2, 3, 4, 5, 6, 7, 8]
    picked = strategy.run(lambda: tens[_rid()] + ones[_rid()])
    assert [int(v) for v in _local(strategy, picked)] == [11 * (i + 1) for i in range(n)]
