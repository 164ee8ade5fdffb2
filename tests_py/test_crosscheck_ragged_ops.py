"""The cases of tools/crosscheck/cases_ragged_ops.py (RaggedTensor ==/!=, step slicing, ragged and string components
through from_tensor_slices/batch/rebatch, local device names) against TF 2.21's stored results
(tests_py/data/crosscheck_ragged_ops_tf.json, written by `tools/crosscheck_tf.py -k cases_ragged_ops
--write-reference` with TensorFlow installed). Reprs and device names compare exactly; error cases compare types."""

from __future__ import annotations

import pytest
from crosscheck_helpers import assert_matches_tensorflow, cases_of, mirrored_over, reference

REFERENCE = reference("crosscheck_ragged_ops_tf.json")
RAGGED_CASES = cases_of("cases_ragged_ops")


def test_every_case_has_a_reference():
    assert sorted(RAGGED_CASES) == sorted(REFERENCE)


@pytest.mark.parametrize("name", sorted(RAGGED_CASES))
def test_matches_tensorflow(name, two_logical_cpus):
    # TF's side splits the host CPU into logical CPUs; here CPU:1 exists only for the case's lifetime.
    assert_matches_tensorflow(RAGGED_CASES[name], REFERENCE[name], mirrored_over("CPU"))
