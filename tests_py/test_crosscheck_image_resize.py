"""tf.image.resize, per_image_standardization and l2_normalize (tools/crosscheck/cases_image_resize.py) against
TF 2.21's stored results (tests_py/data/crosscheck_image_resize_tf.json, written by `tools/crosscheck_tf.py -k
cases_image_resize --write-reference` with TensorFlow installed)."""

from __future__ import annotations

import numpy as np
import pytest
from crosscheck_helpers import assert_matches_tensorflow, cases_of, reference

import tpustrategy as tf

REFERENCE = reference("crosscheck_image_resize_tf.json")
IMAGE_CASES = cases_of("cases_image_resize")


def test_every_case_has_a_reference():
    assert sorted(IMAGE_CASES) == sorted(REFERENCE)


@pytest.mark.parametrize("name", sorted(IMAGE_CASES))
def test_matches_tensorflow(name):
    assert_matches_tensorflow(IMAGE_CASES[name], REFERENCE[name])


@pytest.mark.parametrize("method", ["bicubic", "area"])
def test_methods_not_built_say_so(method):
    with pytest.raises(NotImplementedError, match=method):
        tf.image.resize(np.zeros((2, 2, 1), np.float32), [4, 4], method=method)


def test_resize_to_the_same_size_is_the_image():
    image = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    assert np.array_equal(tf.image.resize(image, [2, 2]).numpy(), image)
