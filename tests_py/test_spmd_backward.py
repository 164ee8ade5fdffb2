"""The SPMD backward is partitioned for every op the forward partitions (issue 13): the input gradient of a
(strided, dilated, NCHW) convolution is XLA's transposed convolution over dy's halos (collective-permutes), the
table gradient of a vocabulary-sharded gather is a local scatter-add, and transpose / reshape / concat / slice /
softmax differentiate shard by shard; operands computed outside the partitioner from a variable (tf.slice of it)
carry their gradient on through the ordinary tape; every gradient equals the unpartitioned one."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import experimental as tpx
from tpustrategy.tpu.device_assignment import DeviceAssignment
from tpustrategy.tpu.sharded_tensor import ShardedTensor

RNG = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def _fresh_system():
    from tpustrategy.tpu import tpu_system

    tpu_system._initialized.clear()
    yield
    tpu_system._initialized.clear()


def strategy_8():
    topology = tf.tpu.experimental.initialize_tpu_system()
    da = DeviceAssignment.build(topology, computation_shape=[2, 2, 1, 2], num_replicas=1)
    return tf.distribute.TPUStrategy(experimental_device_assignment=da, experimental_spmd_xla_partitioning=True)


def run_both(loss_fn, values, split):
    """Gradients of loss_fn(*variables) w.r.t. every variable: unpartitioned, then inside an SPMD step with the
    first variable annotated by `split` (the rest replicated)."""
    refs = [tf.Variable(v) for v in values]
    with tf.GradientTape() as tape:
        ref_loss = loss_fn(*refs)
    ref = [None if g is None else tf.convert_to_tensor(g).numpy() for g in tape.gradient(ref_loss, refs)]
    s = strategy_8()
    with s.scope():
        variables = [tf.Variable(v) for v in values]

    def step():
        with tf.GradientTape() as tape:
            first = s.experimental_split_to_logical_devices(variables[0], split)
            loss = loss_fn(first, *variables[1:])
        return (loss, *tape.gradient(loss, variables))

    loss, *grads = s.run(step)
    np.testing.assert_allclose(float(loss), float(ref_loss), rtol=1e-5)
    for got, want in zip(grads, ref, strict=True):
        assert (got is None) == (want is None)
        if want is not None:
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-5)
    return tpx.spmd_plan()


def test_conv_stack_input_gradient_exchanges_dy_halos():
    images = RNG.standard_normal((2, 8, 16, 3)).astype(np.float32)
    k1 = (RNG.standard_normal((3, 3, 3, 4)) * 0.3).astype(np.float32)
    k2 = (RNG.standard_normal((3, 3, 4, 4)) * 0.3).astype(np.float32)

    def loss_fn(x, a, b):
        h = tf.nn.relu(tf.nn.conv2d(x, a, strides=1, padding="SAME"))
        h = tf.nn.conv2d(h, b, strides=2, padding="SAME")  # strided: output tiles of 2 x 4 line up
        assert not isinstance(h, ShardedTensor) or str(h.sharding) == "{devices=[1,2,4,1]0,1,2,3,4,5,6,7}"
        return tf.reduce_sum(tf.nn.tanh(h))

    plan = run_both(loss_fn, [images, k1, k2], [1, 2, 4, 1])
    rules = [e.rule for e in plan.collectives() if e.name == "collective-permute"]
    # dy's halos for the transposed convolutions (the forward's reversed); x's halos are not moved again.
    assert any(r.startswith("conv2d input gradient: dy: halo of 1") for r in rules), rules
    # Every window lines up with the [1, 2, 4, 1] tiles: no convolution gathers (the only all-gathers bring the
    # images' gradient back to the replicated variable, as XLA's gradient of the annotation does).
    assert not any(e.name == "all-gather" and e.rule.startswith("conv2d") for e in plan.collectives())
    gathers = [e.rule for e in plan.collectives() if e.name == "all-gather"]
    assert len(gathers) == 2 and all(r.startswith("gradient of an annotation") for r in gathers)


def test_dilated_nchw_conv_gradients_match():
    images = RNG.standard_normal((2, 3, 8, 8)).astype(np.float32)
    kernel = (RNG.standard_normal((3, 3, 3, 2)) * 0.3).astype(np.float32)

    def loss_fn(x, k):
        y = tf.nn.conv2d(x, k, strides=1, padding="SAME", data_format="NCHW", dilations=2)
        return tf.reduce_sum(y * y)

    plan = run_both(loss_fn, [images, kernel], [1, 1, 2, 4])
    permutes = [e for e in plan.collectives() if e.name == "collective-permute"]
    assert permutes and all("halo of 2" in e.rule for e in permutes)  # span 5: halos of 2


def test_shape_ops_and_softmax_backward_is_partitioned():
    x = RNG.standard_normal((16, 32)).astype(np.float32)
    w = RNG.standard_normal((32, 16)).astype(np.float32)

    def loss_fn(v, weights):
        t = tf.reshape(tf.transpose(v), [32, 16])
        c = tf.concat([t, t * 2.0], axis=1)  # [32, 32]
        s = tf.slice(c, [4, 0], [16, -1])  # rows 4..19
        p = tf.nn.softmax(s)
        return tf.reduce_sum(p * tf.transpose(weights) * 3.0) + tf.reduce_sum(t * weights)

    plan = run_both(loss_fn, [x, w], [2, 4])
    assert "pad" in [e.name for e in plan.ops()]


def test_vocab_sharded_gather_table_gradient_is_a_local_scatter_add():
    table = RNG.standard_normal((64, 16)).astype(np.float32)
    ids = np.array([3, 17, 3, 63, 40, 8, 17, 0], dtype=np.int32)
    weights = RNG.standard_normal((8, 16)).astype(np.float32)

    def loss_fn(t, w):
        return tf.reduce_sum(tf.gather(t, tf.constant(ids)) * w)

    plan = run_both(loss_fn, [table, weights], [8, 1])
    names = [e.name for e in plan.entries]
    scatter = names.index("scatter")
    assert "vocabulary range" in plan.entries[scatter].rule
    # The forward's one all-reduce; the table gradient adds no collective.
    assert [e.name for e in plan.collectives()].count("all-reduce") == 1
    assert plan.entries[scatter].shard_shapes == [(8, 16)] * 8
