"""TF's own random numbers beyond uniform / normal: the cases of tools/crosscheck/cases_random.py (Generator,
categorical, shuffle, full-range and integer uniform, Dataset.shuffle / Dataset.random) against TF 2.21's stored
results (tests_py/data/crosscheck_random_tf.json, written by `tools/crosscheck_tf.py -k cases_random
--write-reference tests_py/data/crosscheck_random_tf.json` with TensorFlow installed). Error cases compare
types; test_random_ops.py checks the wording of the main ones."""

from __future__ import annotations

import pytest
from crosscheck_helpers import assert_matches_tensorflow, cases_of, reference

import tpustrategy as tf

REFERENCE = reference("crosscheck_random_tf.json")
RANDOM_CASES = cases_of("cases_random")


def test_every_case_has_a_reference():
    assert sorted(RANDOM_CASES) == sorted(REFERENCE)


@pytest.mark.parametrize("name", sorted(RANDOM_CASES))
def test_matches_tensorflow(name):
    tf.random.set_seed(None)
    assert_matches_tensorflow(RANDOM_CASES[name], REFERENCE[name])
