"""The extended-dtype cases of tools/crosscheck/cases_dtypes.py against TF 2.21's stored results
(tests_py/data/crosscheck_dtypes_tf.json, written by `tools/crosscheck_tf.py -k cases_dtypes --write-reference`
with TensorFlow installed). Error cases compare exception types."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import tpustrategy as tf

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from crosscheck import cases_dtypes  # noqa: E402, F401  (registers the cases)
from crosscheck.describe import describe  # noqa: E402
from crosscheck.registry import CASES, strategy_factory  # noqa: E402
from crosscheck_tf import _without_messages, first_difference  # noqa: E402

REFERENCE = json.loads((ROOT / "tests_py" / "data" / "crosscheck_dtypes_tf.json").read_text())
DTYPE_CASES = {c.name: c for c in CASES if c.fn.__module__.endswith("cases_dtypes")}


def test_every_case_has_a_reference():
    assert sorted(DTYPE_CASES) == sorted(REFERENCE)


@pytest.mark.parametrize("name", sorted(DTYPE_CASES))
def test_matches_tensorflow(name):
    case = DTYPE_CASES[name]
    result = case.fn(tf) if case.kind is None else case.fn(tf, strategy_factory(tf, case.kind))
    ours = _without_messages(json.loads(json.dumps(describe(result))))
    assert ours == REFERENCE[name], first_difference(REFERENCE[name], ours)
