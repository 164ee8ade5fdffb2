"""The training-step op cases of tools/crosscheck/cases_nn.py against TF 2.21's stored results
(tests_py/data/crosscheck_nn_tf.json, written by `tools/crosscheck_tf.py -k <case> --write-reference`
with TensorFlow installed). Values are rounded to 9 decimals by the cases; error cases compare types."""

from __future__ import annotations

import pytest
from crosscheck_helpers import assert_matches_tensorflow, cases_of, reference

REFERENCE = reference("crosscheck_nn_tf.json")
NN_CASES = cases_of("cases_nn")


def test_every_case_has_a_reference():
    assert sorted(NN_CASES) == sorted(REFERENCE)


@pytest.mark.parametrize("name", sorted(NN_CASES))
def test_matches_tensorflow(name):
    assert_matches_tensorflow(NN_CASES[name], REFERENCE[name])
