"""What a Dataset.map function computes, against TF 2.21's stored results: static shapes downstream of
py_function / numpy_function and of value-dependent ops (tools/crosscheck/cases_py_function_shapes.py), and
tf.image.resize, per_image_standardization and l2_normalize (tools/crosscheck/cases_image_resize.py), and
through einsum, segment reductions, string and ragged ops (tools/crosscheck/cases_map_static_shapes.py), and
tf.image crops, pads, brightness and contrast, seeded random forms included (cases_image_crops.py). The
references (tests_py/data/crosscheck_<area>_tf.json) are written by `tools/crosscheck_tf.py -k cases_<area>
--write-reference` with TensorFlow installed."""

from __future__ import annotations

import numpy as np
import pytest
from crosscheck_helpers import assert_matches_tensorflow, cases_of, reference

import tpustrategy as tf

AREAS = {"cases_py_function_shapes": "crosscheck_py_function_shapes_tf.json",
         "cases_image_resize": "crosscheck_image_resize_tf.json",
         "cases_map_static_shapes": "crosscheck_map_static_shapes_tf.json",
         "cases_image_crops": "crosscheck_image_crops_tf.json"}
CASES = {module: cases_of(module) for module in AREAS}
REFERENCES = {module: reference(file) for module, file in AREAS.items()}


@pytest.mark.parametrize("module", sorted(AREAS))
def test_every_case_has_a_reference(module):
    assert sorted(CASES[module]) == sorted(REFERENCES[module])


@pytest.mark.parametrize(("module", "name"), [(m, n) for m in sorted(AREAS) for n in sorted(CASES[m])])
def test_matches_tensorflow(module, name):
    assert_matches_tensorflow(CASES[module][name], REFERENCES[module][name])


def test_the_values_are_the_real_ones():
    # Only the static shape is TF's unknown one: the elements keep their real shapes and values.
    ds = tf.data.Dataset.range(2).map(lambda x: tf.reduce_sum(
        tf.reshape(tf.py_function(lambda v: tf.fill([3], v), [x], tf.int64), [-1, 1]) + 1, axis=1))
    assert ds.element_spec.shape.as_list() == [None]
    assert [v.numpy().tolist() for v in ds] == [[1, 1, 1], [2, 2, 2]]


def test_shapes_outside_a_dataset_function_are_the_full_ones():
    out = tf.py_function(lambda: tf.ones([2, 3]), [], tf.float32) + 1.0
    assert out.shape.as_list() == [2, 3]


@pytest.mark.parametrize("method", ["bicubic", "area"])
def test_resize_methods_not_built_say_so(method):
    with pytest.raises(NotImplementedError, match=method):
        tf.image.resize(np.zeros((2, 2, 1), np.float32), [4, 4], method=method)


def test_resize_to_the_same_size_is_the_image():
    image = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    assert np.array_equal(tf.image.resize(image, [2, 2]).numpy(), image)
