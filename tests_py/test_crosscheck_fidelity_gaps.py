"""The cases of tools/crosscheck/cases_fidelity_gaps.py (linspace / meshgrid dtypes, ragged ops eager and in
Dataset.map, row_lengths(axis), bounding_shape(out_type), Unicode case, regex ops, einsum traces,
unsorted_segment_sqrt_n) against TF 2.21's stored results (tests_py/data/crosscheck_fidelity_gaps_tf.json, written by
`tools/crosscheck_tf.py -k cases_fidelity_gaps --write-reference` with TensorFlow installed)."""

from __future__ import annotations

import pytest
from crosscheck_helpers import assert_matches_tensorflow, cases_of, reference

REFERENCE = reference("crosscheck_fidelity_gaps_tf.json")
GAP_CASES = cases_of("cases_fidelity_gaps")


def test_every_case_has_a_reference():
    assert sorted(GAP_CASES) == sorted(REFERENCE)


@pytest.mark.parametrize("name", sorted(GAP_CASES))
def test_matches_tensorflow(name):
    assert_matches_tensorflow(GAP_CASES[name], REFERENCE[name])
