"""Checks translated from TensorFlow's own tests (tools/crosscheck/cases_tf_data_tests.py: tf.data kernel tests;
cases_tf_distribute_tests.py: tf.distribute tests) against TF 2.21's stored results
(tests_py/data/crosscheck_tf_tests_tf.json, written by `tools/crosscheck_tf.py -k tft_ --write-reference ...` and
`-k tfd_` with TensorFlow installed). Reprs, values, shapes and element_specs compare exactly; errors by type.

Where tpustrategy differs from TF on purpose, the check is left out of the cases (their docstrings list them) and
pinned here instead."""

from __future__ import annotations

import numpy as np
import pytest
from crosscheck_helpers import assert_matches_tensorflow, cases_of, mirrored_over, reference

import tpustrategy as tf

REFERENCE = reference("crosscheck_tf_tests_tf.json")
TF_TEST_CASES = cases_of("cases_tf_data_tests", "cases_tf_distribute_tests")


def test_every_case_has_a_reference():
    assert sorted(TF_TEST_CASES) == sorted(REFERENCE)


@pytest.mark.parametrize("name", sorted(TF_TEST_CASES))
def test_matches_tensorflow(name, two_logical_cpus):
    assert_matches_tensorflow(TF_TEST_CASES[name], REFERENCE[name], mirrored_over("CPU"))


# ---- where tpustrategy differs from TF on purpose (left out of the cases) ----

@pytest.mark.parametrize("sizes", [[], [-1, 2], [0, 0]])
def test_rebatch_sizes_tf_fails_on_are_a_typed_error(sizes):
    # TF 2.21 raises IndexError for [] and crashes the process for [-1, 2] and [0, 0].
    with pytest.raises(tf.errors.InvalidArgumentError):
        list(tf.data.Dataset.range(8).batch(4).rebatch(sizes))


def test_interleave_map_func_returning_a_tensor_is_a_type_error_and_tf_attribute_error():
    with pytest.raises(TypeError, match="what `map_func` returns must be a `tf.data.Dataset`") as info:
        list(tf.data.Dataset.range(3).interleave(lambda x: x, cycle_length=1))
    assert isinstance(info.value, AttributeError)  # TF 2.21's type there


def test_scan_func_changing_the_state_structure_fails_when_built():
    # TF 2.21 accepts it when building and fails at iteration (InvalidArgumentError); the error here comes earlier.
    with pytest.raises(TypeError, match="new state must match the initial state"):
        tf.data.Dataset.range(3).scan((tf.constant(1), tf.constant(2)), lambda s, x: (s[0], x))


def test_next_past_the_end_of_a_distributed_iterator_is_a_stop_iteration():
    strategy = tf.distribute.MirroredStrategy(["CPU:0"])
    it = iter(strategy.experimental_distribute_dataset(tf.data.Dataset.range(2).batch(2)))
    next(it)
    with pytest.raises(StopIteration):
        next(it)


def test_from_generator_refuses_lossy_values_and_maps_python_errors_as_tf():
    with pytest.raises(tf.errors.InvalidArgumentError, match="1.5"):
        list(tf.data.Dataset.from_generator(lambda: iter([1.5]), tf.int64))

    def failing():
        yield 1
        raise ValueError("boom")

    with pytest.raises(tf.errors.InvalidArgumentError, match="ValueError: boom"):
        list(tf.data.Dataset.from_generator(failing, tf.int64))


def test_lists_of_tensors_keep_the_tensors_dtype():
    x = tf.constant(3, tf.int64)
    assert tf.convert_to_tensor([x, x]).dtype == tf.int64
    assert tf.convert_to_tensor([[x], [1]]).dtype == tf.int64
    assert tf.convert_to_tensor([tf.constant(1.5, tf.float64)]).dtype == tf.float64
    with pytest.raises(tf.errors.InvalidArgumentError, match="int64 tensor but is a int32 tensor"):
        tf.convert_to_tensor([x, tf.constant(1)])


def test_ragged_range_rows():
    rt = tf.ragged.range(tf.constant([2, 0, 3], tf.int64))
    assert rt.dtype == tf.int64 and rt.to_list() == [[0, 1], [], [0, 1, 2]]
    assert tf.ragged.range(1, 7, 2).to_list() == [[1, 3, 5]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="delta != 0"):
        tf.ragged.range(0, 3, 0)
    np.testing.assert_array_equal(tf.ragged.range([1.0], 2.0, 0.5).flat_values.numpy(), [1.0, 1.5])
