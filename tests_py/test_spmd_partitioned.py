"""SPMD partitioned execution through the facade (issue 13): inside ``strategy.run`` on a TPUStrategy with
``experimental_spmd_xla_partitioning=True`` and 8 logical cores per replica, ops on split tensors run shard by
shard with XLA's collectives, results carry their sharding, per-core HBM holds the shards, gradients match the
unpartitioned ones, and ``tpustrategy.experimental.spmd_plan()`` shows what ran. Non-SPMD mode keeps the
assembling behaviour."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import experimental as tpx
from tpustrategy.tpu import spmd_partitioner
from tpustrategy.tpu.device_assignment import DeviceAssignment
from tpustrategy.tpu.sharded_tensor import ShardedTensor


@pytest.fixture(autouse=True)
def _fresh_system():
    from tpustrategy.tpu import tpu_system

    tpu_system._initialized.clear()
    yield
    tpu_system._initialized.clear()


def strategy_8(spmd=True):
    topology = tf.tpu.experimental.initialize_tpu_system()
    da = DeviceAssignment.build(topology, computation_shape=[2, 2, 1, 2], num_replicas=1)
    return tf.distribute.TPUStrategy(experimental_device_assignment=da, experimental_spmd_xla_partitioning=spmd)


def collectives(plan):
    return [(e.name, [list(g) for g in e.groups]) for e in plan.collectives()]


RNG = np.random.default_rng(0)
X = RNG.standard_normal((16, 32)).astype(np.float32)
W = RNG.standard_normal((32, 8)).astype(np.float32)


def test_matmul_of_a_split_tensor_runs_shard_by_shard():
    s = strategy_8()

    def fn(x, w):
        y = tf.matmul(s.experimental_split_to_logical_devices(x, [8, 1]), w)
        assert isinstance(y, ShardedTensor) and str(y.sharding) == "{devices=[8,1]0,1,2,3,4,5,6,7}"
        assert [shard.shape.as_list() for shard in y.shards] == [[2, 8]] * 8
        return y

    out = s.run(fn, args=(tf.constant(X), tf.constant(W)))
    np.testing.assert_allclose(out.numpy(), X @ W, rtol=1e-5, atol=1e-5)
    plan = tpx.spmd_plan()
    assert [e.name for e in plan.ops()] == ["dot"] and plan.collectives() == []
    assert plan.ops()[0].shard_shapes == [(2, 8)] * 8


def test_contracting_split_inserts_one_all_reduce_over_every_core():
    s = strategy_8()

    def fn(x, w):
        return tf.matmul(
            s.experimental_split_to_logical_devices(x, [1, 8]), s.experimental_split_to_logical_devices(w, [8, 1])
        )

    out = s.run(fn, args=(tf.constant(X), tf.constant(W)))
    np.testing.assert_allclose(out.numpy(), X @ W, rtol=1e-4, atol=1e-4)
    assert collectives(tpx.spmd_plan()) == [("all-reduce", [list(range(8))])]
    assert "all-reduce" in str(tpx.spmd_plan()) and "<table>" in tpx.spmd_plan()._repr_html_()


def test_elementwise_reductions_softmax_and_operators():
    s = strategy_8()

    def fn(x):
        sx = s.experimental_split_to_logical_devices(x, [2, 4])
        y = tf.nn.relu(sx) * 2.0 - sx
        return tf.reduce_sum(y, axis=1), tf.nn.softmax(sx), tf.reshape(tf.transpose(sx), [32, 16])

    total, soft, reshaped = s.run(fn, args=(tf.constant(X),))
    np.testing.assert_allclose(total.numpy(), (np.maximum(X, 0) * 2 - X).sum(1), rtol=1e-5, atol=1e-5)
    e = np.exp(X - X.max(1, keepdims=True))
    np.testing.assert_allclose(soft.numpy(), e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(reshaped.numpy(), X.T)
    kinds = [e.name for e in tpx.spmd_plan().collectives()]
    assert kinds == ["all-reduce", "all-reduce", "all-reduce"]  # the row sum, then softmax's max and sum


def test_replicate_on_an_intermediate_forces_an_all_gather():
    s = strategy_8()

    def fn(x):
        y = tf.nn.relu(s.experimental_split_to_logical_devices(x, [8, 1]))
        full = s.experimental_replicate_to_logical_devices(y)
        assert full.sharding.is_replicated and full.bytes_per_device == [X.nbytes] * 8
        return full

    out = s.run(fn, args=(tf.constant(X),))
    np.testing.assert_array_equal(out.numpy(), np.maximum(X, 0))
    assert collectives(tpx.spmd_plan()) == [("all-gather", [list(range(8))])]


def test_per_core_hbm_reflects_the_shards():
    s = strategy_8()
    cores = s.extended._logical_grid[0]
    big = np.ones((1024, 256), np.float32)  # 1 MiB
    held = {}

    def fn(x):
        before = [tf.config.experimental.get_memory_info(c.name)["current"] for c in cores]
        # Both held: without a GradientTape nothing else keeps the split input alive.
        held["x"] = s.experimental_split_to_logical_devices(x, [8, 1])
        held["y"] = tf.exp(held["x"])
        after = [tf.config.experimental.get_memory_info(c.name)["current"] for c in cores]
        held["delta"] = [a - b for a, b in zip(after, before, strict=True)]
        return tf.constant(0.0)

    s.run(fn, args=(tf.constant(big),))
    assert held["delta"] == [2 * big.nbytes // 8] * 8  # the split input and the exp result: 1/8 each


def test_non_spmd_mode_keeps_assembling():
    s = strategy_8(spmd=False)

    def fn(x, w):
        sx = s.experimental_split_to_logical_devices(x, [8, 1])
        assert not sx._spmd_partitioned
        y = tf.matmul(sx, w)
        assert not isinstance(y, ShardedTensor)
        return y

    np.testing.assert_allclose(s.run(fn, args=(tf.constant(X), tf.constant(W))).numpy(), X @ W, rtol=1e-5, atol=1e-5)


def test_megatron_mlp_gradients_match_the_unpartitioned_ones():
    s = strategy_8()
    w1 = RNG.standard_normal((32, 64)).astype(np.float32) * 0.1
    w2 = RNG.standard_normal((64, 8)).astype(np.float32) * 0.1
    labels = RNG.integers(0, 8, 16).astype(np.int32)
    with s.scope():
        v1, v2 = tf.Variable(w1), tf.Variable(w2)

    def fn(x, y):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, s.experimental_split_to_logical_devices(v1, [1, 8])))
            logits = tf.matmul(h, s.experimental_split_to_logical_devices(v2, [8, 1]))
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
        return (loss, *tape.gradient(loss, [v1, v2]))

    loss, g1, g2 = s.run(fn, args=(tf.constant(X), tf.constant(labels)))
    # numpy reference
    h = np.maximum(X @ w1, 0)
    z = h @ w2
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    ref_loss = -np.log(p[np.arange(16), labels]).mean()
    dz = (p - np.eye(8)[labels]) / 16
    ref_g2 = h.T @ dz
    ref_g1 = X.T @ ((dz @ w2.T) * (h > 0))
    np.testing.assert_allclose(float(loss), ref_loss, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(g1), ref_g1, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(np.asarray(g2), ref_g2, rtol=1e-4, atol=1e-6)
    kinds = [e.name for e in tpx.spmd_plan().collectives()]
    assert kinds[0] == "all-reduce"  # Megatron forward: one all-reduce after the row-split matmul


def test_bad_annotations_are_typed_errors():
    s = strategy_8()

    def fn(x):
        with pytest.raises(ValueError, match="must be divisible"):
            s.experimental_split_to_logical_devices(x, [3, 1])
        with pytest.raises(ValueError, match="SPMD mode"):
            s.experimental_assign_to_logical_device(x, 0)
        return x

    s.run(fn, args=(tf.constant(X),))


def test_spmd_plan_before_any_step_and_the_private_context():
    assert spmd_partitioner.SpmdPlan([]).entries == []
    assert "no partitioned ops" in str(spmd_partitioner.SpmdPlan([]))


def test_partitioned_elementwise_ops_name_an_unknown_op():
    from tpustrategy import _core

    strategy = strategy_8()
    split = strategy.experimental_split_to_logical_devices(tf.constant(X), [8, 1])
    ctx = _core.spmd.SpmdContext(list(split._impl.logical_devices))
    with pytest.raises(ValueError, match="no partitioned unary op 'bogus'"):
        _core.spmd.unary(ctx, "bogus", split._impl)
    with pytest.raises(ValueError, match="no partitioned binary op 'bogus'"):
        _core.spmd.binary(ctx, "bogus", split._impl, split._impl)
    assert np.allclose(_core.spmd.unary(ctx, "exp", split._impl).assemble().numpy(), np.exp(X), rtol=1e-6)
