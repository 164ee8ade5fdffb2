"""The training-step op cases of tools/crosscheck/cases_nn.py against TF 2.21's stored results
(tests_py/data/crosscheck_nn_tf.json, written by `tools/crosscheck_tf.py -k <case> --write-reference`
with TensorFlow installed). Values are rounded to 9 decimals by the cases; error cases compare types."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import tpustrategy as tf

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from crosscheck import cases_nn  # noqa: E402, F401  (registers the cases)
from crosscheck.describe import describe  # noqa: E402
from crosscheck.registry import CASES  # noqa: E402

REFERENCE = json.loads((ROOT / "tests_py" / "data" / "crosscheck_nn_tf.json").read_text())
NN_CASES = {c.name: c for c in CASES if c.fn.__module__.endswith("cases_nn")}


def _without_messages(d):
    if isinstance(d, dict):
        return {k: _without_messages(v) for k, v in d.items() if k != "message"}
    if isinstance(d, list):
        return [_without_messages(v) for v in d]
    return d


def _first_difference(a, b, path=""):
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        for k in a:
            if a[k] != b[k]:
                return _first_difference(a[k], b[k], f"{path}/{k}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    return f"{path}: tf={json.dumps(a)[:300]} tps={json.dumps(b)[:300]}"


def test_every_case_has_a_reference():
    assert sorted(NN_CASES) == sorted(REFERENCE)


@pytest.mark.parametrize("name", sorted(NN_CASES))
def test_matches_tensorflow(name):
    ours = _without_messages(json.loads(json.dumps(describe(NN_CASES[name].fn(tf)))))
    assert ours == REFERENCE[name], _first_difference(REFERENCE[name], ours)
