"""The dtype cases of tools/crosscheck/ against TF 2.21's stored results, without TensorFlow: cases_dtypes.py (the
extended dtypes) against tests_py/data/crosscheck_dtypes_tf.json, cases_wide_dtypes.py (complex128, complex
gradients, range / one_hot, Keras on integer inputs, replica all_reduce) against crosscheck_wide_dtypes_tf.json.
Both files are written by `tools/crosscheck_tf.py -k <module> --write-reference <file>` with TensorFlow installed.
Error cases compare exception types."""

from __future__ import annotations

import pytest
from crosscheck_helpers import assert_matches_tensorflow, cases_of, reference

MODULES = {"cases_dtypes": "crosscheck_dtypes_tf.json", "cases_wide_dtypes": "crosscheck_wide_dtypes_tf.json"}
REFERENCES = {module: reference(file) for module, file in MODULES.items()}
CASES_OF = {module: cases_of(module) for module in MODULES}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_case_has_a_reference(module):
    assert sorted(CASES_OF[module]) == sorted(REFERENCES[module])


@pytest.mark.parametrize(("module", "name"), [(m, n) for m in sorted(MODULES) for n in sorted(CASES_OF[m])])
def test_matches_tensorflow(module, name):
    assert_matches_tensorflow(CASES_OF[module][name], REFERENCES[module][name])
