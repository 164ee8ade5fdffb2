"""Fused optimizer updates: SGD's var - grad * lr in one C++ pass and Variable.assign_add / assign_sub of
floating values in C++ are bit-identical to the separate ops (numpy's float arithmetic), on every floating
dtype, on one device and on every mirrored component; bad input to the kernel is a typed error."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import _core

DTYPES = [("float32", np.float32), ("float64", np.float64), ("float16", np.float16),
          ("bfloat16", ml_dtypes.bfloat16)]


def _data(np_dtype, shape=(5, 7)):
    rng = np.random.default_rng(3)
    w = rng.normal(size=shape).astype(np_dtype)
    g = (rng.normal(size=shape) * 10.0 ** rng.integers(-6, 3, size=shape)).astype(np_dtype)
    g.flat[0], g.flat[1] = np.inf, np.nan  # specials propagate as in the unfused ops
    return w, g


@pytest.mark.parametrize(("name", "np_dtype"), DTYPES)
def test_sgd_step_is_bit_identical_to_multiply_then_subtract(name, np_dtype):
    w, g = _data(np_dtype)
    lr = 0.0123
    var = tf.Variable(w)
    tf.keras.optimizers.SGD(learning_rate=lr).apply_gradients([(tf.constant(g), var)])
    step = (g.astype(np.float32) * np.float32(np_dtype(lr))).astype(np_dtype)  # each op rounds to the dtype
    expected = (w.astype(np.float32) - step.astype(np.float32)).astype(np_dtype)
    if np_dtype == np.float64:
        expected = w - g * np.float64(lr)
    np.testing.assert_array_equal(var.numpy().view(np.uint8), expected.view(np.uint8))
    assert var.dtype == getattr(tf, name)


@pytest.mark.parametrize(("name", "np_dtype"), DTYPES)
def test_assign_add_and_sub_of_floats_match_numpy_bitwise(name, np_dtype):
    w, g = _data(np_dtype)
    var = tf.Variable(w)
    var.assign_sub(g)
    np.testing.assert_array_equal(var.numpy().view(np.uint8), np.subtract(w, g).view(np.uint8))
    var.assign_add(tf.constant(g))
    with np.errstate(invalid="ignore"):  # -inf + inf: NaN, as the C++ kernel gives
        expected = np.add(np.subtract(w, g), g)
    np.testing.assert_array_equal(var.numpy().view(np.uint8), expected.view(np.uint8))


def test_integer_variables_keep_their_wrapping_update():
    var = tf.Variable(np.array([2**31 - 1, 5], np.int32))
    var.assign_add(np.array([1, -7], np.int32))
    np.testing.assert_array_equal(var.numpy(), np.array([-(2**31), -2], np.int32))


def test_assign_sub_inside_a_tape_is_not_differentiated_through():
    v = tf.Variable(np.float32(3.0))
    with tf.GradientTape() as tape:
        y = v * 2.0
        v.assign_sub(1.0)
        z = y + v * 3.0
    assert float(tape.gradient(z, v)) == 5.0  # TF: both reads of v count, the update adds nothing
    assert float(v.numpy()) == 2.0


def test_sgd_updates_every_mirrored_component_identically():
    strategy = tf.distribute.MirroredStrategy([f"TPU:{i}" for i in range(4)])
    rng = np.random.default_rng(4)
    w = rng.normal(size=(3, 4)).astype(np.float32)
    g = (rng.integers(-8, 8, size=(3, 4)) / 4).astype(np.float32)  # sums of 4 copies are exact in any order
    with strategy.scope():
        var = tf.Variable(w)
        opt = tf.keras.optimizers.SGD(learning_rate=0.5)

    def replica_fn():
        opt.apply_gradients([(tf.constant(g), var)])

    strategy.run(replica_fn)
    expected = w - (4 * g) * np.float32(0.5)  # the 4 replicas' gradients summed, then one update
    for component in var.values:
        np.testing.assert_array_equal(component.numpy(), expected)


@pytest.mark.parametrize(("args", "message"), [
    ((np.ones(3, np.float32), np.ones(3, np.float64), np.float32(1)), "share one floating dtype"),
    ((np.ones(3, np.int32), np.ones(3, np.int32), np.int32(1)), "share one floating dtype"),
    ((np.ones(3, np.float32), np.ones(4, np.float32), np.float32(1)), "same shape"),
    ((np.ones(3, np.float32), np.ones(3, np.float32), np.ones(2, np.float32)), "not a scalar"),
])
def test_gradient_descent_kernel_rejects_bad_input(args, message):
    tensors = [tf.constant(a) for a in args]
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        _core.ops._apply_gradient_descent(*tensors)
