"""tf.compat.v1.train optimizers under 4-replica strategies (tools/crosscheck/cases_v1_optimizers.py) against
TF 2.21's stored results (tests_py/data/crosscheck_v1_optimizers_tf.json, written by
`tools/crosscheck_tf.py -k cases_v1_optimizers --write-reference ...` with TensorFlow installed; TF ran them on
MirroredStrategy over logical CPUs). Values rounded to 9 decimals (float64); error cases compare types."""

from __future__ import annotations

import pytest
from crosscheck_helpers import MIRRORED, assert_matches_tensorflow, cases_of, mirrored_over, reference

import tpustrategy as tf

REFERENCE = reference("crosscheck_v1_optimizers_tf.json")
V1_CASES = cases_of("cases_v1_optimizers")


def _strategy(kind):
    if kind == MIRRORED:
        return mirrored_over("TPU")(kind)

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
    assert_matches_tensorflow(V1_CASES[name], REFERENCE[name], _strategy)
