"""The tf.string / RaggedTensor cases of tools/crosscheck/cases_strings.py against TF 2.21's stored results
(tests_py/data/crosscheck_strings_tf.json, written by `tools/crosscheck_tf.py -k cases_strings
--write-reference` with TensorFlow installed). Reprs compare exactly; error cases compare types."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import tpustrategy as tf

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from crosscheck import cases_strings  # noqa: E402, F401  (registers the cases)
from crosscheck.describe import describe  # noqa: E402
from crosscheck.registry import CASES  # noqa: E402
from crosscheck_tf import _without_messages, first_difference  # noqa: E402

REFERENCE = json.loads((ROOT / "tests_py" / "data" / "crosscheck_strings_tf.json").read_text())
STRING_CASES = {c.name: c for c in CASES if c.fn.__module__.endswith("cases_strings")}


def test_every_case_has_a_reference():
    assert sorted(STRING_CASES) == sorted(REFERENCE)


@pytest.mark.parametrize("name", sorted(STRING_CASES))
def test_matches_tensorflow(name):
    ours = _without_messages(json.loads(json.dumps(describe(STRING_CASES[name].fn(tf)))))
    assert ours == REFERENCE[name], first_difference(REFERENCE[name], ours)
