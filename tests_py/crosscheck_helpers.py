"""Runs a case of tools/crosscheck/ here, without TensorFlow, and compares it with TF 2.21's stored result.

The references are tests_py/data/crosscheck_*_tf.json, written by `tools/crosscheck_tf.py -k <cases>
--write-reference <file>` with TensorFlow installed. A case's result is described as crosscheck_tf.py describes
TF's (values, reprs, shapes, exception types), error messages left out. Each test_crosscheck_<domain>.py names its
case modules and reference file and asks for a strategy factory when its cases need another than the registry's.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tpustrategy as tf

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "tools") not in sys.path:
    sys.path.insert(0, str(ROOT / "tools"))

from crosscheck.describe import describe  # noqa: E402
from crosscheck.registry import CASES, MIRRORED, strategy_factory  # noqa: E402
from crosscheck_tf import _without_messages, first_difference  # noqa: E402

__all__ = ["MIRRORED", "assert_matches_tensorflow", "cases_of", "mirrored_over", "reference"]

# kind -> (n -> a fresh n-replica strategy); the registry's default gives TPUStrategy for TPU cases here.
StrategyFor = Callable[[str], Callable[[int], Any]]


def reference(file: str) -> dict[str, Any]:
    """TF's stored results, case name -> description: tests_py/data/<file>."""
    return json.loads((ROOT / "tests_py" / "data" / file).read_text())


def cases_of(*modules: str) -> dict[str, Any]:
    """The cases registered by tools/crosscheck/<module>.py for each module, by name (importing registers them)."""
    for module in modules:
        importlib.import_module(f"crosscheck.{module}")
    return {c.name: c for c in CASES if c.fn.__module__.endswith(modules)}


def mirrored_over(device_type: str) -> StrategyFor:
    """Whatever the case's kind, MirroredStrategy over `device_type`:0 .. n-1 (as TF ran it on logical devices)."""
    return lambda kind: lambda n: tf.distribute.MirroredStrategy([f"{device_type}:{i}" for i in range(n)])


def assert_matches_tensorflow(case: Any, expected: Any, strategy_for: StrategyFor | None = None) -> None:
    """Runs `case` on tpustrategy (with a strategy factory when it has a kind) and compares it with `expected`."""
    if case.kind is None:
        result = case.fn(tf)
    else:
        result = case.fn(tf, (strategy_for or (lambda kind: strategy_factory(tf, kind)))(case.kind))
    ours = _without_messages(json.loads(json.dumps(describe(result))))
    assert ours == expected, first_difference(expected, ours)
