"""Differentiable replica-context collectives, checked against hand-computed gradients: the gradient of
all_reduce(SUM) is all_reduce(SUM) of the output gradients (MEAN: the mean), all_gather's is this
replica's slice of the all-summed output gradients."""

from __future__ import annotations

import numpy as np
import pytest
from distribute_helpers import EIGHT_REPLICA_STRATEGIES

import tpustrategy as tf

STRATEGIES = EIGHT_REPLICA_STRATEGIES


@pytest.fixture(params=sorted(STRATEGIES), ids=sorted(STRATEGIES))
def strategy(request):
    return STRATEGIES[request.param]()


def _weights(r, shape):
    return np.arange(np.prod(shape), dtype=np.float64).reshape(shape) * 0.5 + r * 1.25


@pytest.mark.parametrize("op", ["SUM", "MEAN"])
def test_all_reduce_gradient_is_the_all_reduced_output_gradient(strategy, op):
    n = strategy.num_replicas_in_sync

    def step():
        ctx = tf.distribute.get_replica_context()
        r = int(ctx.replica_id_in_sync_group)
        x = tf.constant(np.array([1.0, 2.0, 3.0]) * (r + 1))
        w = tf.constant(_weights(r, [3]))
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = ctx.all_reduce(op, x * x)  # d(x*x)/dx = 2x, then the collective's gradient
            loss = tf.reduce_sum(y * w)
        return tape.gradient(loss, x), y

    grads, ys = strategy.run(step)
    total_w = sum(_weights(s, [3]) for s in range(n))
    factor = 1.0 if op == "SUM" else 1.0 / n
    for r, g in enumerate(strategy.experimental_local_results(grads)):
        x = np.array([1.0, 2.0, 3.0]) * (r + 1)
        np.testing.assert_allclose(g.numpy(), 2 * x * total_w * factor, rtol=1e-12)
    expected_y = sum((np.array([1.0, 2.0, 3.0]) * (s + 1)) ** 2 for s in range(n)) * factor
    np.testing.assert_allclose(strategy.experimental_local_results(ys)[0].numpy(), expected_y)


def test_all_reduce_of_a_nest_records_one_batched_gradient(strategy):
    n = strategy.num_replicas_in_sync

    def step():
        ctx = tf.distribute.get_replica_context()
        r = int(ctx.replica_id_in_sync_group)
        a, b = tf.constant(float(r)), tf.constant([1.0, float(r)])
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            out = ctx.all_reduce("SUM", {"a": a, "b": b, "k": tf.constant(r)})
            loss = out["a"] * float(r + 1) + tf.reduce_sum(out["b"]) * 2.0
        return tape.gradient(loss, [a, b])

    grads = strategy.experimental_local_results(strategy.run(step))
    for ga, gb in grads:
        assert ga.numpy() == pytest.approx(sum(range(1, n + 1)))
        np.testing.assert_allclose(gb.numpy(), [2.0 * n, 2.0 * n])


def test_all_gather_gradient_is_this_replicas_slice(strategy):
    n = strategy.num_replicas_in_sync

    def step():
        ctx = tf.distribute.get_replica_context()
        r = int(ctx.replica_id_in_sync_group)
        x = tf.constant(np.full([2, 3], r + 1.0))
        w = tf.constant(_weights(r, [2 * n, 3]))
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = ctx.all_gather(x, axis=0)
            loss = tf.reduce_sum(y * w)
        return tape.gradient(loss, x)

    total_w = sum(_weights(s, [2 * n, 3]) for s in range(n))
    for r, g in enumerate(strategy.experimental_local_results(strategy.run(step))):
        np.testing.assert_allclose(g.numpy(), total_w[2 * r:2 * r + 2])


def test_ragged_all_gather_gradient_on_mirrored():
    strategy = tf.distribute.MirroredStrategy([f"TPU:{i}" for i in range(4)])
    total_rows = 1 + 2 + 3 + 4

    def step():
        ctx = tf.distribute.get_replica_context()
        r = int(ctx.replica_id_in_sync_group)
        x = tf.constant(np.ones([2, r + 1]))
        w = tf.constant(_weights(r, [2, total_rows]))
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(ctx.all_gather(x, axis=1) * w)
        return tape.gradient(loss, x)

    total_w = sum(_weights(s, [2, total_rows]) for s in range(4))
    for r, g in enumerate(strategy.experimental_local_results(strategy.run(step))):
        begin = r * (r + 1) // 2
        np.testing.assert_allclose(g.numpy(), total_w[:, begin:begin + r + 1])
