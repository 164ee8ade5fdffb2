"""Values and variables as TF sees them, tf.nest over composites, iterator exhaustion in functions, tf.debugging.

From what TF's tests check (distribute/values_test.py: is_tensor and synchronization of distributed variables;
input_lib_test.py: OutOfRangeError from next() inside tf.function, output devices; util/nest_test.py:
expand_composites over SparseTensor/IndexedSlices; ops/check_ops_test.py: error types and conditions), with the
expected values observed on TF 2.21.
"""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf


def _mirrored():
    return tf.distribute.MirroredStrategy(["TPU:0", "TPU:1"])


STRATEGIES = {"mirrored2": _mirrored, "tpu_v3_8": lambda: tf.distribute.TPUStrategy()}


@pytest.fixture(params=sorted(STRATEGIES), ids=sorted(STRATEGIES))
def strategy(request):
    return STRATEGIES[request.param]()


def test_is_tensor_of_variables_and_composites(strategy):
    with strategy.scope():
        mirrored = tf.Variable(1.0)
        on_read = tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_READ,
                              aggregation=tf.VariableAggregation.SUM)
    sparse = tf.SparseTensor(indices=[[0, 0]], values=[1.0], dense_shape=[3, 4])
    slices = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([2]), tf.constant([5, 2]))
    assert all(tf.is_tensor(x) for x in (mirrored, on_read, mirrored.values[0], tf.Variable(2.0), sparse, slices,
                                          tf.constant(1.0)))
    per_replica = strategy.run(lambda: tf.constant(1.0))
    assert not any(tf.is_tensor(x) for x in (per_replica, 1.0, np.ones(2), [tf.constant(1.0)]))


def test_variables_created_in_scope_report_on_write(strategy):
    with strategy.scope():
        auto = tf.Variable(1.0)
        on_read = tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_READ,
                              aggregation=tf.VariableAggregation.SUM)
    assert auto.synchronization == tf.VariableSynchronization.ON_WRITE
    assert all(c.synchronization == tf.VariableSynchronization.ON_WRITE for c in auto.values)
    assert on_read.synchronization == tf.VariableSynchronization.ON_READ
    assert tf.Variable(1.0).synchronization == tf.VariableSynchronization.AUTO  # outside a scope AUTO stays


def test_distributed_iterator_outputs_live_on_the_replica_devices(strategy):
    n = strategy.num_replicas_in_sync
    iterator = iter(strategy.experimental_distribute_dataset(tf.data.Dataset.range(2 * n).batch(2 * n)))
    batch = strategy.experimental_local_results(next(iterator))
    assert [t.device for t in batch] == list(strategy.extended.worker_devices)
    assert [t.backing_device for t in batch] == [t.device for t in batch]
    with tf.device("CPU:0"):
        c = tf.constant(1.0)
    assert c.backing_device == c.device and c.device.endswith("CPU:0")


def test_next_past_the_end_inside_a_function_raises_out_of_range(strategy):
    iterator = iter(strategy.experimental_distribute_dataset(tf.data.Dataset.range(4).batch(4)))

    @tf.function
    def step(it):
        return next(it)

    step(iterator)
    with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
        step(iterator)
    with pytest.raises(StopIteration):  # eagerly, next() ends as Python iteration does
        next(iterator)
    plain = iter(tf.data.Dataset.range(1))

    @tf.function
    def take(it):
        return next(it)

    assert int(take(plain)) == 0
    with pytest.raises(tf.errors.OutOfRangeError):
        take(plain)


def test_for_loops_inside_a_function_end_normally(strategy):
    dataset = strategy.experimental_distribute_dataset(tf.data.Dataset.range(8).batch(4))

    @tf.function
    def count(ds):
        return sum(1 for _ in ds)

    assert count(dataset) == 2


def test_nest_expand_composites():
    sparse = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])
    assert tf.nest.flatten(sparse) == [sparse]
    parts = tf.nest.flatten({"a": sparse, "b": tf.constant(1)}, expand_composites=True)
    assert [t.dtype for t in parts] == [tf.int64, tf.float32, tf.int64, tf.int32]
    doubled = tf.nest.map_structure(lambda t: t * 2 if t.dtype == tf.float32 else t, sparse, expand_composites=True)
    assert isinstance(doubled, tf.SparseTensor)
    assert doubled.values.numpy().tolist() == [2.0, 4.0]
    assert doubled.indices.numpy().tolist() == [[0, 0], [1, 2]]
    packed = tf.nest.pack_sequence_as([sparse, 5], tf.nest.flatten([sparse, 5], expand_composites=True),
                                      expand_composites=True)
    assert isinstance(packed[0], tf.SparseTensor) and packed[1] == 5
    tf.nest.assert_same_structure(sparse, sparse, expand_composites=True)
    slices = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([2]), tf.constant([5, 2]))
    assert [t.numpy().tolist() for t in tf.nest.flatten(slices, expand_composites=True)] == [[[1.0, 2.0]], [2], [5, 2]]
    with pytest.raises(TypeError):
        tf.nest.assert_same_structure(sparse, slices, expand_composites=True)
    with pytest.raises(ValueError):
        tf.nest.pack_sequence_as(sparse, [1, 2], expand_composites=True)


def test_debugging_comparisons_raise_invalid_argument_with_tf_wording():
    x, y = tf.constant([1.0, 2.0]), tf.constant([1.0, 3.0])
    assert tf.debugging.assert_equal(x, x) is None
    assert tf.debugging.assert_less_equal(x, y) is None and tf.debugging.assert_positive(x) is None
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"(?s)msg\nCondition x == y did not hold.*\[\[1\]\]"):
        tf.debugging.assert_equal(x, y, message="msg")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs. \[3\]"):
        tf.debugging.assert_equal(x, tf.constant([1.0, 2.0, 3.0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x < y did not hold"):
        tf.assert_less(y, x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x > y did not hold"):
        tf.debugging.assert_greater(y, x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x >= 0 did not hold element-wise"):
        tf.debugging.assert_non_negative(-x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x != y did not hold"):
        tf.debugging.assert_none_equal(x, y)
    assert tf.debugging.assert_near(x, x + 1e-7) is None
    with pytest.raises(tf.errors.InvalidArgumentError, match="not equal to tolerance"):
        tf.debugging.assert_near(x, x + 1.0)


def test_debugging_static_checks_raise_value_and_type_errors():
    x = tf.constant([1.0, 2.0])
    assert tf.debugging.assert_rank(x, 1) is None and tf.assert_rank(x, 1) is None
    with pytest.raises(ValueError, match=r"Tensor must have rank 2. Received rank 1, shape \(2,\)"):
        tf.debugging.assert_rank(x, 2)
    with pytest.raises(ValueError, match="rank at least 2"):
        tf.debugging.assert_rank_at_least(x, 2)
    with pytest.raises(TypeError, match="tensor must be of type tf.int32; got tf.float32"):
        tf.debugging.assert_type(x, tf.int32)
    with pytest.raises(TypeError, match='Expected "x" to be integer type'):
        tf.debugging.assert_integer(x)
    with pytest.raises(ValueError, match=r"Expected scalar shape, saw shape: \(2,\)."):
        tf.debugging.assert_scalar(x)
    assert tf.debugging.assert_shapes([(x, ("N",)), (tf.ones([2, 3]), ("N", "D"))]) is None
    with pytest.raises(ValueError, match="dimension 0 must have size 2. Received size 3"):
        tf.debugging.assert_shapes([(x, ("N",)), (tf.ones([3, 3]), ("N", "D"))])
    with pytest.raises(ValueError, match="must have rank 2"):
        tf.debugging.assert_shapes([(x, ("N", "D"))])
    with pytest.raises(ValueError, match="must have size 3"):
        tf.debugging.assert_shapes([(tf.ones([2, 2]), (2, 3))])
    assert tf.debugging.is_numeric_tensor(x) and not tf.debugging.is_numeric_tensor(np.ones(2))


def test_check_numerics_and_assert():
    x = tf.constant([1.0, 2.0])
    assert tf.debugging.check_numerics(x, "m") is x
    with pytest.raises(tf.errors.InvalidArgumentError, match="bad values : Tensor had NaN values"):
        tf.debugging.check_numerics(tf.constant([np.nan]), "bad values")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Tensor had Inf and NaN values"):
        tf.debugging.check_numerics(tf.constant([np.nan, np.inf]), "m")
    assert tf.debugging.Assert(True, [x]) is None
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Expected 'False' to be true. Summarized data: b'hello'\n1.0, 2.0"):
        tf.Assert(False, ["hello", x])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected 'tf.Tensor\(False, shape=\(\), dtype=bool\)'"):
        tf.debugging.Assert(tf.constant(False), [x])


def test_control_dependencies_is_an_eager_no_op(strategy):
    x = tf.constant([1.0, 2.0])
    with tf.control_dependencies([tf.debugging.assert_equal(x, x)]):
        y = tf.identity(x)
    assert y.numpy().tolist() == [1.0, 2.0]
    with tf.control_dependencies(None):
        pass
    with pytest.raises(TypeError, match="control_inputs"):
        with tf.control_dependencies(3):
            pass

    def replica_fn():
        value = tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)
        with tf.control_dependencies([tf.debugging.assert_non_negative(value)]):
            return tf.identity(value)

    ids = strategy.experimental_local_results(strategy.run(replica_fn))
    assert [float(v) for v in ids] == [float(i) for i in range(strategy.num_replicas_in_sync)]


def test_variable_aggregation_enums_print_and_compare_as_tf(strategy):
    # TF 2 exports VariableAggregationV2 as tf.VariableAggregation; variables created without an aggregation report
    # the v1 enum's NONE (both printed as TF 2.21 prints them); members of the two enums compare and hash alike.
    v1 = tf.compat.v1.VariableAggregation
    assert [str(tf.VariableAggregation.SUM), str(v1.SUM)] == ["VariableAggregationV2.SUM", "VariableAggregation.SUM"]
    assert v1.ONLY_FIRST_TOWER is v1.ONLY_FIRST_REPLICA
    assert tf.VariableAggregation.MEAN == v1.MEAN and hash(tf.VariableAggregation.MEAN) == hash(v1.MEAN)
    assert tf.VariableAggregation.SUM != v1.MEAN and tf.VariableAggregation.SUM != 1
    plain = tf.Variable(1.0)
    assert str(plain.aggregation) == "VariableAggregation.NONE" and plain.aggregation == tf.VariableAggregation.NONE
    with strategy.scope():
        summed = tf.Variable(1.0, aggregation=tf.VariableAggregation.SUM)
        averaged = tf.Variable(1.0, aggregation=v1.MEAN)
        default = tf.Variable(1.0)
    assert [str(x.aggregation) for x in (summed, averaged, default)] == [
        "VariableAggregationV2.SUM", "VariableAggregation.MEAN", "VariableAggregation.NONE"]
    assert tf.distribute.ReduceOp.from_variable_aggregation(v1.SUM) is tf.distribute.ReduceOp.SUM
    n = strategy.num_replicas_in_sync
    strategy.run(lambda: averaged.assign_add(tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group,
                                                     tf.float32)))
    assert float(averaged.read_value()) == 1.0 + (n - 1) / 2  # the v1 MEAN aggregates as MEAN


def test_cross_replica_updates_return_the_components_new_values_as_tf(strategy):
    # TF's update_regroup: a cross-replica assign of a mirrored variable gives a Mirrored of each component's new
    # value as a tensor, None with read_value=False; a sync-on-read one gives the variable's (aggregated) read.
    n = strategy.num_replicas_in_sync
    with strategy.scope():
        v = tf.Variable(1.0)
        mean = tf.Variable(0.0, aggregation=tf.VariableAggregation.MEAN)
        total = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                            aggregation=tf.VariableAggregation.SUM)
    out = v.assign_add(2.0)
    assert type(out).__name__ == "Mirrored"
    local = strategy.experimental_local_results(out)
    assert [type(t).__name__ for t in local] == ["Tensor"] * n and [float(t) for t in local] == [3.0] * n
    assert v.assign(5.0, read_value=False) is None and float(v.read_value()) == 5.0
    assert float(v.assign_sub(1.0) * 2) == 8.0  # the result still works as a value
    out = strategy.run(lambda: mean.assign_add(tf.cast(
        tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)))
    assert [float(t) for t in strategy.experimental_local_results(out)] == [(n - 1) / 2] * n
    assert all(type(t).__name__ == "Tensor" for t in strategy.experimental_local_results(out))
    read = total.assign(6.0)
    assert type(read).__name__ == "Tensor" and float(read) == 6.0
    assert [float(c.read_value()) for c in total.values] == [6.0 / n] * n
    assert total.assign(4.0, read_value=False) is None and float(total.read_value()) == 4.0
