"""tf.compat.v1.train optimizers under 4-replica strategies (tools/crosscheck/cases_v1_optimizers.py) against
TF 2.21's stored results (tests_py/data/crosscheck_v1_optimizers_tf.json, written by
`tools/crosscheck_tf.py -k cases_v1_optimizers --write-reference ...` with TensorFlow installed; TF ran them on
MirroredStrategy over logical CPUs). Values rounded to 9 decimals (float64); error cases compare types."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import tpustrategy as tf

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from crosscheck import cases_v1_optimizers  # noqa: E402, F401  (registers the cases)
from crosscheck.describe import describe  # noqa: E402
from crosscheck.registry import CASES, MIRRORED  # noqa: E402
from crosscheck_tf import _without_messages, first_difference  # noqa: E402

REFERENCE = json.loads((ROOT / "tests_py" / "data" / "crosscheck_v1_optimizers_tf.json").read_text())
V1_CASES = {c.name: c for c in CASES if c.fn.__module__.endswith("cases_v1_optimizers")}


def _strategy(kind):
    if kind == MIRRORED:
        return lambda n: tf.distribute.MirroredStrategy([f"TPU:{i}" for i in range(n)])

    def tpu(n):
        resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="")
        topology = tf.tpu.experimental.initialize_tpu_system(resolver)
        assignment = tf.tpu.experimental.DeviceAssignment.build(topology, num_replicas=n)
        return tf.distribute.TPUStrategy(resolver, experimental_device_assignment=assignment)

    return tpu


def test_every_case_has_a_reference():
    assert sorted(V1_CASES) == sorted(REFERENCE)


@pytest.mark.parametrize("name", sorted(V1_CASES))
def test_matches_tensorflow(name):
    case = V1_CASES[name]
    ours = _without_messages(json.loads(json.dumps(describe(case.fn(tf, _strategy(case.kind))))))
    assert ours == REFERENCE[name], first_difference(REFERENCE[name], ours)
