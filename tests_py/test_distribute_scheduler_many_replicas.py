"""A run of thousands of replicas that park at a collective: their greenlets must not stack Python recursion depth.

Workers first started by the replica that handed over to them began at that replica's depth, so depths grew
with the replica id and a run of about 500 TPU / 2000 mirrored replicas raised RecursionError.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import _core
from tpustrategy.distribute import scheduler


@pytest.fixture
def many_logical_cpus():
    _core.devices.set_logical_cpu_count(2048)
    yield 2048
    _core.devices.set_logical_cpu_count(1)


def test_thousands_of_replicas_park_at_an_all_reduce_and_a_merge_call(many_logical_cpus):
    n = many_logical_cpus
    del scheduler._pool.workers[:]  # fresh workers: each is started during this run
    strategy = tf.distribute.MirroredStrategy([f"CPU:{i}" for i in range(n)])
    payload = tf.constant(np.ones(4, np.float32))

    def step():
        ctx = tf.distribute.get_replica_context()
        total = ctx.all_reduce("sum", payload)
        return ctx.merge_call(lambda strategy, value: value, args=(total,))

    results = strategy.experimental_local_results(strategy.run(step))
    assert len(results) == n
    assert float(np.asarray(results[-1])[0]) == n
    assert sys.getrecursionlimit() < 10 * n  # the run above did not pass because of a raised limit
