"""Static shapes downstream of py_function / numpy_function in Dataset.map (tools/crosscheck/
cases_py_function_shapes.py) against TF 2.21's stored results (tests_py/data/crosscheck_py_function_shapes_tf.json,
written by `tools/crosscheck_tf.py -k cases_py_function_shapes --write-reference` with TensorFlow installed)."""

from __future__ import annotations

import pytest
from crosscheck_helpers import assert_matches_tensorflow, cases_of, reference

import tpustrategy as tf

REFERENCE = reference("crosscheck_py_function_shapes_tf.json")
SHAPE_CASES = cases_of("cases_py_function_shapes")


def test_every_case_has_a_reference():
    assert sorted(SHAPE_CASES) == sorted(REFERENCE)


@pytest.mark.parametrize("name", sorted(SHAPE_CASES))
def test_matches_tensorflow(name):
    assert_matches_tensorflow(SHAPE_CASES[name], REFERENCE[name])


def test_the_values_are_the_real_ones():
    # Only the static shape is TF's unknown one: the elements keep their real shapes and values.
    ds = tf.data.Dataset.range(2).map(lambda x: tf.reduce_sum(
        tf.reshape(tf.py_function(lambda v: tf.fill([3], v), [x], tf.int64), [-1, 1]) + 1, axis=1))
    assert ds.element_spec.shape.as_list() == [None]
    assert [v.numpy().tolist() for v in ds] == [[1, 1, 1], [2, 2, 2]]


def test_shapes_outside_a_dataset_function_are_the_full_ones():
    out = tf.py_function(lambda: tf.ones([2, 3]), [], tf.float32) + 1.0
    assert out.shape.as_list() == [2, 3]
