"""GradientTape inside ``strategy.run``: every replica records on its own tape stack (the per-replica
C++ context), so eight greenlet replicas on one thread get eight independent gradients."""

from __future__ import annotations

import numpy as np
import pytest
from distribute_helpers import EIGHT_REPLICA_STRATEGIES

import tpustrategy as tf

STRATEGIES = EIGHT_REPLICA_STRATEGIES


@pytest.fixture(params=sorted(STRATEGIES), ids=sorted(STRATEGIES))
def strategy(request):
    return STRATEGIES[request.param]()


def test_each_replica_gets_the_gradient_of_its_own_loss(strategy):
    n = strategy.num_replicas_in_sync
    assert n == 8

    def step():
        rid = tf.distribute.get_replica_context().replica_id_in_sync_group
        x = tf.constant([1.0, 2.0, 3.0]) * float(rid + 1)
        with tf.GradientTape() as tape:
            tape.watch(x)
            # interleave with the other replicas: a collective parks this replica mid-tape
            scale = tf.distribute.get_replica_context().all_reduce("SUM", tf.constant(1.0))
            loss = tf.reduce_sum(x * x) * float(rid) + scale * 0.0
        return tape.gradient(loss, x)

    grads = strategy.experimental_local_results(strategy.run(step))
    for r, g in enumerate(grads):
        np.testing.assert_allclose(g.numpy(), 2.0 * np.array([1.0, 2.0, 3.0]) * (r + 1) * r)


def test_gradients_wrt_a_mirrored_variable_are_per_replica_on_each_device(strategy):
    with strategy.scope():
        v = tf.Variable([1.0, -2.0])

    def step():
        rid = tf.distribute.get_replica_context().replica_id_in_sync_group
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(v * v) * float(rid + 1)
        return tape.gradient(loss, v)

    result = strategy.run(step)
    assert isinstance(result, tf.distribute.DistributedValues)
    grads = strategy.experimental_local_results(result)
    assert len(grads) == 8
    for r, g in enumerate(grads):
        np.testing.assert_allclose(g.numpy(), 2.0 * np.array([1.0, -2.0]) * (r + 1))
        assert g.device == v.values[r].device


def test_a_tape_outside_run_keeps_recording_across_a_run(strategy):
    x = tf.constant(3.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        y = x * x

        def replica_step():
            with tf.GradientTape() as inner:  # the replica's own stack: the outer tape is not on it
                w = tf.constant(2.0)
                inner.watch(w)
                u = w * w
            return inner.gradient(u, w)

        inner_grads = strategy.experimental_local_results(strategy.run(replica_step))
        z = y * x
    assert [g.numpy() for g in inner_grads] == [4.0] * 8
    assert outer.gradient(z, x).numpy() == 27.0
