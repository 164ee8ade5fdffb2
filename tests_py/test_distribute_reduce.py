"""Reductions and gathers (§2.3; conformance case C) and the C++ tensor-level collectives."""

from __future__ import annotations

import numpy as np
import pytest
from distribute_helpers import ms2, values_of

import tpustrategy as tf
from tpustrategy import _core

ds = tf.distribute
SUM, MEAN = ds.ReduceOp.SUM, ds.ReduceOp.MEAN


def per_replica(*arrays, dtype=None):
    return ds.PerReplica([tf.constant(np.array(a), dtype) for a in arrays])


def test_case_c_sum_axis_none_and_axis_0():
    strategy = ms2()
    value = per_replica([0, 1, 2, 3], [4, 5, 6, 7])
    assert np.asarray(strategy.reduce(SUM, value, axis=None)).tolist() == [4, 6, 8, 10]
    total = strategy.reduce(SUM, value, axis=0)
    assert np.asarray(total).tolist() == 28
    assert total.device.endswith("CPU:0")


def test_case_c_partial_batch_mean_uses_the_global_count():
    strategy = ms2()
    value = per_replica([0.0, 1.0, 2.0, 3.0], [4.0, 5.0])
    assert np.asarray(strategy.reduce(MEAN, value, axis=0)).item() == 2.5
    with pytest.raises(ValueError, match="replica 1"):
        strategy.reduce(SUM, value, axis=None)


def test_mean_of_integers_is_floating_and_empty_replicas_count_zero():
    strategy = ms2()
    result = strategy.reduce("mean", per_replica(np.array([1, 2, 3], np.int32), np.zeros([0], np.int32)), axis=0)
    assert result.dtype == tf.float64 and np.asarray(result).item() == 2.0
    assert strategy.reduce(MEAN, per_replica([[1.0, 2.0]], [[3.0, 4.0]]), axis=(0, 1)).numpy() == 2.5
    assert strategy.reduce(MEAN, per_replica([[1.0, 2.0]], [[3.0, 5.0]]), axis=-1).numpy().tolist() == [2.75]


def test_reduce_axis_errors():
    strategy = ms2()
    value = per_replica([1.0], [2.0])
    with pytest.raises(ValueError):
        strategy.reduce(MEAN, value, axis=3)
    with pytest.raises(TypeError):
        strategy.reduce(MEAN, value, axis="0")
    with pytest.raises(ValueError):
        strategy.reduce("max", value, axis=None)
    with pytest.raises(TypeError, match="Expected reduce_op to be a"):
        strategy.reduce(object(), value, axis=0)


def test_reduce_plain_values():
    strategy = ms2()
    assert strategy.reduce(SUM, 0, axis=None) == 0
    plain = tf.constant(3.0)
    assert strategy.reduce(MEAN, plain, axis=None) is plain
    with pytest.raises(ValueError, match="non-DistributedValues"):
        strategy.reduce(SUM, plain, axis=None)
    # with an axis a plain tensor counts once per replica
    assert strategy.reduce(SUM, tf.constant([1.0, 2.0]), axis=0).numpy() == 6.0
    assert tf.distribute.MirroredStrategy(["GPU:0"]).reduce(SUM, plain, axis=None) is plain


def test_case_c_dataset_like_batches():
    strategy = ms2()
    first = per_replica([5.0], [6.0])
    plus_one = strategy.run(lambda x: tf.constant(np.asarray(x) + 1), args=(first,))
    assert values_of(plus_one) == [[6.0], [7.0]]
    assert strategy.reduce(SUM, first, axis=0).numpy() == 11.0


def test_seed_reduce_doc_example():
    strategy = ms2()
    per_replica_result = strategy.run(lambda: ds.get_replica_context().replica_id_in_sync_group)
    total = strategy.reduce("SUM", per_replica_result, axis=None)
    assert repr(total) == "<tf.Tensor: shape=(), dtype=int32, numpy=1>"
    assert strategy.experimental_local_results(strategy.run(lambda: tf.constant(0)))[1].device.endswith("GPU:1")


def test_case_c_replica_all_reduce_over_nests():
    strategy = ms2()
    result = strategy.run(lambda: ds.get_replica_context().all_reduce(SUM, [1.0, 2.0]))
    assert [values_of(r) for r in result] == [[2.0, 2.0], [4.0, 4.0]]
    mean = strategy.run(lambda: ds.get_replica_context().all_reduce(
        MEAN, {"x": tf.constant(float(ds.get_replica_context().replica_id_in_sync_group))}))
    assert values_of(mean["x"]) == [0.5, 0.5]


def test_all_reduce_results_live_on_each_replica_device_and_share_one_buffer():
    strategy = ms2()
    result = strategy.run(lambda: ds.get_replica_context().all_reduce(SUM, tf.constant(np.ones(256, np.float32))))
    first, second = result.values
    assert first.device.endswith("GPU:0") and second.device.endswith("GPU:1")
    assert first._buffer_address() == second._buffer_address()


def test_case_c_all_gather():
    strategy = ms2()
    result = strategy.run(lambda: ds.get_replica_context().all_gather(tf.constant([1, 2, 3]), 0))
    assert values_of(result) == [[1, 2, 3, 1, 2, 3]] * 2
    ragged = strategy.run(lambda: ds.get_replica_context().all_gather(
        tf.constant([1.0] * (1 + int(ds.get_replica_context().replica_id_in_sync_group))), 0))
    assert values_of(ragged)[0] == [1.0, 1.0, 1.0]
    with pytest.raises(ValueError, match="rank-0"):
        strategy.run(lambda: ds.get_replica_context().all_gather(tf.constant(1.0), 0))


def test_case_c_gather_seed_examples():
    strategy = ms2()
    values = strategy.experimental_distribute_values_from_function(lambda _: tf.constant([[1], [2]]))
    gathered = strategy.gather(values, axis=0)
    assert repr(gathered) == ("<tf.Tensor: shape=(4, 1), dtype=int32, numpy=\narray([[1],\n       [2],\n"
                              "       [1],\n       [2]], dtype=int32)>")
    four = ds.MirroredStrategy(["GPU:0", "GPU:1", "GPU:2", "GPU:3"])
    single = np.arange(6, dtype=np.int32).reshape(1, 2, 3)
    values = four.experimental_distribute_values_from_function(lambda _: tf.constant(single))
    assert four.gather(values, axis=0)._shape_tuple == (4, 2, 3)
    assert four.gather(values, axis=1)._shape_tuple == (1, 8, 3)
    axis2 = four.gather(values, axis=2)
    assert axis2._shape_tuple == (1, 2, 12)
    assert np.asarray(axis2)[0, 1].tolist() == [3, 4, 5] * 4


def test_gather_plain_value_and_errors():
    strategy = ms2()
    plain = tf.constant([1.0])
    assert strategy.gather(plain, axis=0) is plain
    with pytest.raises(ValueError):
        strategy.gather(ds.PerReplica([tf.constant(1.0), tf.constant(2.0)]), axis=0)


def test_gather_of_scalars_is_a_plain_value_error():
    # Observed with TF 2.21: ValueError from concat ("Can't concatenate scalars"), not InvalidArgumentError.
    strategy = ms2()
    with pytest.raises(ValueError, match="scalars") as raised:
        strategy.gather(strategy.run(lambda: tf.constant(1.0) * 1.0), axis=0)
    assert type(raised.value) is ValueError


def test_reduce_to_and_batch_reduce_to():
    strategy = ms2()
    value = per_replica([1.0], [2.0])
    with strategy.scope():
        on_gpu1 = strategy.extended.reduce_to(SUM, value, "GPU:1")
        assert on_gpu1.device.endswith("GPU:1") and on_gpu1.numpy().tolist() == [3.0]
        mirrored = strategy.extended.reduce_to(MEAN, value, value)
        assert isinstance(mirrored, ds.Mirrored) and values_of(mirrored) == [[1.5], [1.5]]
        on_tensor = strategy.extended.reduce_to("sum", value, tf.constant(0.0))
        assert on_tensor.numpy().tolist() == [3.0]
        batch = strategy.extended.batch_reduce_to(SUM, [(value, "CPU:0"), (value, "GPU:0")])
        assert [b.numpy().tolist() for b in batch] == [[3.0], [3.0]]
        with pytest.raises(ValueError, match="empty"):
            strategy.extended.reduce_to(SUM, value, "")
        with pytest.raises(ValueError, match="destinations"):
            strategy.extended.reduce_to(SUM, value, 42)


def test_broadcast_to_and_update_and_read_var():
    strategy = ms2()
    with strategy.scope():
        mirrored = strategy.extended.broadcast_to(tf.constant(2.0), ds.PerReplica([tf.constant(0.0)] * 2))
        assert values_of(mirrored) == [2.0, 2.0]


def test_core_collectives_validate_and_charge_memory():
    gpu0, gpu1 = _core.devices.find_device("GPU:0"), _core.devices.find_device("GPU:1")
    a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    before = gpu1.memory_info()["current"]
    out = _core.collectives.all_reduce([a, b], "max", devices=[gpu0, gpu1])
    assert gpu1.memory_info()["current"] == before + 8
    assert [o.numpy().tolist() for o in out] == [[3.0, 4.0]] * 2
    del out
    assert gpu1.memory_info()["current"] == before
    with pytest.raises(tf.errors.InvalidArgumentError, match="replica 1"):
        _core.collectives.all_reduce([a, tf.constant([1.0])], "sum")
    with pytest.raises(ValueError, match="reduce op"):
        _core.collectives.all_reduce([a, b], "median")
    scattered = _core.collectives.reduce_scatter([a, b], "sum", devices=[gpu0, gpu1])
    assert [s.numpy().tolist() for s in scattered] == [[4.0], [6.0]]
    copies = _core.collectives.broadcast(a, [gpu0, gpu1])
    assert copies[1].device.endswith("GPU:1") and copies[1].numpy().tolist() == [1.0, 2.0]
