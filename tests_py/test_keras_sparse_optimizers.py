"""Keras optimizers keep IndexedSlices gradients sparse as Keras 3.15's TF backend does, against stored Keras 3.15 /
TF 2.21 results (data/keras_sparse_optimizers: MirroredStrategy over two logical CPUs; the program's docstring
says what it exercises).

The reference's replicas look up different rows with duplicates; Keras squares, clips and scatters each
occurrence (so a duplicated row differs from the dense gradient) and the all-reduce concatenates the replicas'
slices. Here the same program runs on MirroredStrategy(2), on a 2-replica TPUStrategy and without a strategy.
"""

from __future__ import annotations

import numpy as np
import pytest
from keras_program_helpers import load_program

import tpustrategy as tf

keras = tf.keras
program, REFERENCE = load_program("keras_sparse_optimizers")
TOLERANCE = dict(rtol=2e-6, atol=1e-7)
# A fit runs several epochs, and RMSprop divides by sqrt(v): the last-bit differences of the matmuls' FMA kernels,
# which OpenBLAS picks per CPU (its Cooperlake kernels on an AMD EPYC with AVX-512 here, others on the machines the
# reference and earlier runs used), grow to about one ulp of the order-1 weights (1.04e-7 seen where a weight
# cancels to -5.7e-4). Three ulp of 1.0 absolute.
FIT_TOLERANCE = dict(rtol=2e-6, atol=3.6e-7)

pytestmark = pytest.mark.usefixtures("fresh_keras_names")


def _mirrored():
    return tf.distribute.MirroredStrategy(["TPU:0", "TPU:1"])


def _tpu():
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="")
    topology = tf.tpu.experimental.initialize_tpu_system(resolver)
    assignment = tf.tpu.experimental.DeviceAssignment.build(topology, num_replicas=2)
    return tf.distribute.TPUStrategy(resolver, experimental_device_assignment=assignment)


STRATEGIES = {"mirrored": _mirrored, "tpu": _tpu}


def _assert_close(ours, theirs, what, tolerance=TOLERANCE):
    assert len(ours) == len(theirs), what
    for k, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        np.testing.assert_allclose(a, b, err_msg=f"{what}[{k}]", **tolerance)


@pytest.mark.parametrize("strategy", list(STRATEGIES))
@pytest.mark.parametrize("config", program.APPLY_CONFIGS)
def test_apply_gradients_in_replica_context_as_keras(config, strategy):
    ours, theirs = program.apply_case(tf, keras, STRATEGIES[strategy](), config), REFERENCE["apply"][config]
    assert ours["gradient_type"] == theirs["gradient_type"] == ["IndexedSlices"]
    assert ours["iterations"] == theirs["iterations"] == 3
    _assert_close(ours["table"], theirs["table"], "table")
    _assert_close(ours["slots"], theirs["slots"], "slots")


@pytest.mark.parametrize("config", program.APPLY_CONFIGS)
def test_apply_gradients_without_strategy_as_keras(config):
    ours, theirs = program.local_case(tf, keras, config), REFERENCE["local"][config]
    np.testing.assert_allclose(ours["table"], theirs["table"], **TOLERANCE)
    _assert_close(ours["slots"], theirs["slots"], "slots")


@pytest.mark.parametrize("strategy", [None, *STRATEGIES])
@pytest.mark.parametrize("config", program.FIT_CONFIGS)
def test_embedding_fit_as_keras(config, strategy):
    s = STRATEGIES[strategy]() if strategy is not None else None
    ours = program.fit_case(keras, s, config)
    theirs = REFERENCE["fit" if strategy is not None else "fit_local"][config]
    np.testing.assert_allclose(ours["history"]["loss"], theirs["history"]["loss"], rtol=1e-6)
    _assert_close(ours["weights"], theirs["weights"], "weights", FIT_TOLERANCE)
    _assert_close(ours["slots"], theirs["slots"], "slots", FIT_TOLERANCE)


def _accumulator(optimizer):
    (slot,) = [v for v in optimizer.variables if v.name.endswith("_accumulator")]
    return slot


def test_duplicate_rows_are_not_the_dense_update():
    """Keras' Adagrad adds g1² + g2² for a row looked up twice; a dense gradient would add (g1 + g2)²."""
    table = tf.Variable(np.zeros((3, 1), np.float32))
    sparse = keras.optimizers.Adagrad(0.1)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.gather(table, [0, 0]) * tf.constant([[1.0], [2.0]]))
    grad = tape.gradient(loss, table)
    assert type(grad).__name__ == "IndexedSlices"
    sparse.apply_gradients([(grad, table)])
    accumulator = np.asarray(_accumulator(sparse)).ravel()
    np.testing.assert_allclose(accumulator, [0.1 + 1.0 + 4.0, 0.1, 0.1], rtol=1e-6)
    dense_table = tf.Variable(np.zeros((3, 1), np.float32))
    dense = keras.optimizers.Adagrad(0.1)
    dense.apply_gradients([(tf.convert_to_tensor(grad), dense_table)])
    np.testing.assert_allclose(np.asarray(_accumulator(dense)).ravel(), [0.1 + 9.0, 0.1, 0.1], rtol=1e-6)


def test_rows_not_looked_up_keep_their_values():
    table = tf.Variable(np.full((4, 2), -0.0, np.float32))
    optimizer = keras.optimizers.SGD(0.5)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.gather(table, [2, 0, 2]))
    optimizer.apply_gradients([(tape.gradient(loss, table), table)])
    np.testing.assert_array_equal(table.numpy(), [[-0.5, -0.5], [0, 0], [-1.0, -1.0], [0, 0]])
    assert np.signbit(table.numpy()[1]).all(), "untouched rows are not rewritten (-0.0 stays -0.0)"


def test_loss_scale_factor_with_indexed_slices_raises_keras_type_error():
    table = tf.Variable(np.ones((3, 2), np.float32))
    optimizer = keras.optimizers.SGD(0.1, loss_scale_factor=2.0)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.gather(table, [0]))
    with pytest.raises(TypeError, match="unsupported operand type"):
        optimizer.apply_gradients([(tape.gradient(loss, table), table)])
    np.testing.assert_array_equal(table.numpy(), np.ones((3, 2)))


def test_only_one_clipping_option():
    with pytest.raises(ValueError, match="Only one of `clipnorm`, `clipvalue` and `global_clipnorm`"):
        keras.optimizers.SGD(clipnorm=1.0, clipvalue=0.5)


def test_clipnorm_zero_does_not_clip():
    """Keras clips only with a positive clipnorm (0 would zero every gradient otherwise)."""
    w = tf.Variable([3.0, 4.0])
    keras.optimizers.SGD(1.0, clipnorm=0).apply_gradients([(tf.constant([3.0, 4.0]), w)])
    np.testing.assert_array_equal(w.numpy(), [0.0, 0.0])
