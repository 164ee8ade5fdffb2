"""The 3-D convolution and pooling cases of tools/crosscheck/cases_nn3d.py against TF 2.21's stored results
(tests_py/data/crosscheck_nn3d_tf.json, written by `tools/crosscheck_tf.py -k cases_nn3d --write-reference
tests_py/data/crosscheck_nn3d_tf.json` with TensorFlow installed). Error cases compare types."""

from __future__ import annotations

import pytest
from crosscheck_helpers import assert_matches_tensorflow, cases_of, reference

REFERENCE = reference("crosscheck_nn3d_tf.json")
NN3D_CASES = cases_of("cases_nn3d")


def test_every_case_has_a_reference():
    assert sorted(NN3D_CASES) == sorted(REFERENCE)


@pytest.mark.parametrize("name", sorted(NN3D_CASES))
def test_matches_tensorflow(name):
    assert_matches_tensorflow(NN3D_CASES[name], REFERENCE[name])
