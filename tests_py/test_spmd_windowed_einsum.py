"""XLA's windowed einsum through the facade (issue 13): with the threshold lowered
(``tpx.set_windowed_einsum_threshold_mib``), a batched matmul / einsum on tensors split over 8 logical cores runs
as the ring loop — local dots and collective-permutes, no all-gather — with the values of the unwindowed plan, and
the backward of a windowed dot (whose weight gradient is XLA's reduce-scatter variant) equals the unpartitioned
gradient."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import _core
from tpustrategy import experimental as tpx
from tpustrategy.tpu.device_assignment import DeviceAssignment

RNG = np.random.default_rng(11)


@pytest.fixture(autouse=True)
def _fresh_system_and_threshold():
    from tpustrategy.tpu import tpu_system

    tpu_system._initialized.clear()
    yield
    tpu_system._initialized.clear()
    tpx.set_windowed_einsum_threshold_mib(256)


def strategy_8():
    topology = tf.tpu.experimental.initialize_tpu_system()
    da = DeviceAssignment.build(topology, computation_shape=[2, 2, 1, 2], num_replicas=1)
    return tf.distribute.TPUStrategy(experimental_device_assignment=da, experimental_spmd_xla_partitioning=True)


def kinds(plan):
    return [e.name for e in plan.collectives()]


def windowed_dots(plan):
    return [e.rule for e in plan.ops() if e.name == "dot" and "windowed einsum" in e.rule]


@pytest.mark.parametrize("op", ["matmul", "einsum"])
def test_batched_matmul_runs_the_windowed_loop_with_the_unwindowed_values(op):
    x = RNG.standard_normal((4, 16, 24)).astype(np.float32)
    w = RNG.standard_normal((4, 24, 32)).astype(np.float32)
    s = strategy_8()
    per_core_bytes = []

    def step(x, w):
        xs = s.experimental_split_to_logical_devices(x, [1, 8, 1])  # rows: kept
        ws = s.experimental_split_to_logical_devices(w, [1, 1, 8])  # columns: windowed
        y = tf.matmul(xs, ws) if op == "matmul" else tf.einsum("bij,bjk->bik", xs, ws)
        per_core_bytes.append(y.bytes_per_device)
        return y

    unwindowed = np.asarray(s.run(step, args=(x, w)))
    assert "all-gather" in kinds(tpx.spmd_plan()) and not windowed_dots(tpx.spmd_plan())

    tpx.set_windowed_einsum_threshold_mib(0)
    windowed = s.run(step, args=(x, w))
    plan = tpx.spmd_plan()
    rules = windowed_dots(plan)
    assert len(rules) == 8 and all("lhs kept, rhs windows along its non-contracting dimension" in r for r in rules)
    assert kinds(plan) == ["collective-permute"] * 7
    # Windows along a non-contracting dimension: every output element is one local dot. Not bit for bit: the
    # BLAS kernel OpenBLAS picks for a window's shape may sum in another order than the one for the whole tile
    # (seen on an AVX-512 machine), so the comparison allows a few ulp, as README's FMA note says of matmuls.
    np.testing.assert_allclose(np.asarray(windowed), unwindowed, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(unwindowed, x @ w, rtol=1e-5, atol=1e-5)
    assert per_core_bytes == [[4 * 2 * 32 * 4] * 8] * 2  # both plans: the output keeps the rows' tiling


@pytest.mark.parametrize("batched", [False, True])
def test_backward_of_a_windowed_dot_matches_the_unpartitioned_gradient(batched):
    lead = (4,) if batched else ()
    x0 = RNG.standard_normal((*lead, 16, 24)).astype(np.float32)
    w0 = RNG.standard_normal((*lead, 24, 32)).astype(np.float32)

    def product(x, w):
        return tf.einsum("bij,bjk->bik", x, w) if batched else tf.matmul(x, w)

    xv, wv = tf.Variable(x0), tf.Variable(w0)
    with tf.GradientTape() as tape:
        ref_loss = tf.reduce_sum(tf.square(product(xv, wv)))
    ref = [g.numpy() for g in tape.gradient(ref_loss, [xv, wv])]

    tpx.set_windowed_einsum_threshold_mib(0)
    s = strategy_8()
    with s.scope():
        x, w = tf.Variable(x0), tf.Variable(w0)

    def step():
        with tf.GradientTape() as tape:
            xs = s.experimental_split_to_logical_devices(x, [*[1] * len(lead), 8, 1])  # rows
            ws = s.experimental_split_to_logical_devices(w, [*[1] * len(lead), 1, 8])  # columns
            loss = tf.reduce_sum(tf.square(product(xs, ws)))
        return (loss, *tape.gradient(loss, [x, w]))

    loss, dx, dw = s.run(step)
    np.testing.assert_allclose(float(loss), float(ref_loss), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(dx), ref[0], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(dw), ref[1], rtol=1e-4, atol=1e-4)
    rules = windowed_dots(tpx.spmd_plan())
    assert any("reduce-scatter: operands sharded on the contracting dimension" in r for r in rules)
    # The only all-gathers: the annotations' gradients, back to the replicated variables; none for a dot.
    gathers = [e.rule for e in tpx.spmd_plan().collectives() if e.name == "all-gather"]
    assert gathers and all(r.startswith("gradient of an annotation") for r in gathers)


def test_threshold_option_is_validated_and_kept():
    assert tpx.get_windowed_einsum_threshold_mib() == 256
    tpx.set_windowed_einsum_threshold_mib(0.5)
    assert tpx.get_windowed_einsum_threshold_mib() == 0.5
    for bad, error in [(-1, ValueError), (float("nan"), ValueError), ("1", TypeError), (True, TypeError)]:
        with pytest.raises(error, match="windowed_einsum_threshold_mib"):
            tpx.set_windowed_einsum_threshold_mib(bad)
    assert tpx.get_windowed_einsum_threshold_mib() == 0.5  # unchanged by the bad values
    with pytest.raises(ValueError, match="must be >= 0"):
        _core.spmd.SpmdContext(strategy_8().extended._logical_grid[0]).windowed_einsum_threshold_bytes = -1
