"""The seed page's SPMD example end to end (issue 13): images split ``[1, 2, 4, 1]`` over 8 logical cores with
``experimental_split_to_logical_devices`` feed a small conv model; the convolution exchanges halos between the
cores (collective-permutes), each core holds 1/8 of the activations, ``experimental_replicate_to_logical_devices``
replicates the logits, and the loss and gradients equal the unpartitioned model's."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import experimental as tpx
from tpustrategy.tpu.device_assignment import DeviceAssignment

RNG = np.random.default_rng(1)
IMAGES = RNG.standard_normal((4, 8, 16, 3)).astype(np.float32)
LABELS = RNG.integers(0, 10, 4).astype(np.int32)
FILTER = (RNG.standard_normal((3, 3, 3, 8)) * 0.3).astype(np.float32)
DENSE = (RNG.standard_normal((8, 10)) * 0.3).astype(np.float32)


@pytest.fixture(autouse=True)
def _fresh_system():
    from tpustrategy.tpu import tpu_system

    tpu_system._initialized.clear()
    yield
    tpu_system._initialized.clear()


def model(images, labels, kernel, dense):
    features = tf.nn.relu(tf.nn.conv2d(images, kernel, strides=1, padding="SAME"))
    pooled = tf.reduce_mean(features, axis=[1, 2])
    logits = tf.matmul(pooled, dense)
    return features, logits


def unpartitioned():
    kernel, dense = tf.Variable(FILTER), tf.Variable(DENSE)
    with tf.GradientTape() as tape:
        _, logits = model(tf.constant(IMAGES), tf.constant(LABELS), kernel, dense)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(tf.constant(LABELS), logits))
    return loss, tape.gradient(loss, [kernel, dense])


def test_split_images_conv_model_loss_and_gradients_match_the_unpartitioned_model():
    topology = tf.tpu.experimental.initialize_tpu_system()
    da = DeviceAssignment.build(topology, computation_shape=[2, 2, 1, 2], num_replicas=1)
    strategy = tf.distribute.TPUStrategy(experimental_device_assignment=da, experimental_spmd_xla_partitioning=True)
    with strategy.scope():
        kernel, dense = tf.Variable(FILTER), tf.Variable(DENSE)
    seen = {}

    def step(images, labels):
        images = strategy.experimental_split_to_logical_devices(images, [1, 2, 4, 1])
        with tf.GradientTape() as tape:
            features, logits = model(images, labels, kernel, dense)
            logits = strategy.experimental_replicate_to_logical_devices(logits)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))
        seen["features"], seen["logits"] = features, logits
        return (loss, *tape.gradient(loss, [kernel, dense]))

    loss, g_kernel, g_dense = strategy.run(step, args=(tf.constant(IMAGES), tf.constant(LABELS)))
    ref_loss, (ref_kernel, ref_dense) = unpartitioned()
    np.testing.assert_allclose(float(loss), float(ref_loss), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(g_kernel), np.asarray(ref_kernel), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(np.asarray(g_dense), np.asarray(ref_dense), rtol=1e-4, atol=1e-6)

    # Each core holds 1/8 of the conv activations; the logits are replicated on every core.
    features = seen["features"]
    assert str(features.sharding) == "{devices=[1,2,4,1]0,1,2,3,4,5,6,7}"
    assert features.bytes_per_device == [4 * 8 * 16 * 8 * 4 // 8] * 8
    assert seen["logits"].sharding.is_replicated
    plan = tpx.spmd_plan()
    permutes = [e for e in plan.collectives() if e.name == "collective-permute"]
    assert len(permutes) >= 4  # the forward halos: height up / down, width left / right
    assert [list(p) for p in permutes[0].pairs] == [[0, 4], [1, 5], [2, 6], [3, 7]]
    assert "collective-permute" in str(plan) and "convolution" in str(plan)
