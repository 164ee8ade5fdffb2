"""The tf.string / RaggedTensor cases of tools/crosscheck/cases_strings.py against TF 2.21's stored results
(tests_py/data/crosscheck_strings_tf.json, written by `tools/crosscheck_tf.py -k cases_strings
--write-reference` with TensorFlow installed). Reprs compare exactly; error cases compare types."""

from __future__ import annotations

import pytest
from crosscheck_helpers import assert_matches_tensorflow, cases_of, reference

REFERENCE = reference("crosscheck_strings_tf.json")
STRING_CASES = cases_of("cases_strings")


def test_every_case_has_a_reference():
    assert sorted(STRING_CASES) == sorted(REFERENCE)


@pytest.mark.parametrize("name", sorted(STRING_CASES))
def test_matches_tensorflow(name):
    assert_matches_tensorflow(STRING_CASES[name], REFERENCE[name])
