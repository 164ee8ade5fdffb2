"""tf.random: TF's seed rules (set_seed, op seeds, repeated calls), stateless ops, Generator, distributions
(moments and ranges), dtypes and errors. The numbers are our Philox stream, not TF's (documented)."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import errors


@pytest.fixture(autouse=True)
def clear_seed():
    tf.random.set_seed(None)
    yield
    tf.random.set_seed(None)


def values(t):
    return np.asarray(t).copy()


def test_set_seed_makes_programs_repeat():
    def program():
        return [values(tf.random.uniform([3])), values(tf.random.normal([2, 2])), values(tf.random.uniform([3]))]

    tf.random.set_seed(1234)
    first = program()
    tf.random.set_seed(1234)
    second = program()
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], first[2])  # successive ops take successive op seeds
    tf.random.set_seed(4321)
    assert not np.array_equal(first[0], values(tf.random.uniform([3])))


def test_op_seed_sequences_continue_and_restart():
    a = values(tf.random.uniform([4], seed=7))
    b = values(tf.random.uniform([4], seed=7))
    assert not np.array_equal(a, b)  # as TF: the op's kernel state advances
    tf.random.set_seed(None)
    np.testing.assert_array_equal(values(tf.random.uniform([4], seed=7)), a)


def test_unseeded_ops_differ():
    assert not np.array_equal(values(tf.random.uniform([8])), values(tf.random.uniform([8])))


def test_uniform_ranges_and_dtypes():
    tf.random.set_seed(0)
    x = values(tf.random.uniform([10000], -2.0, 3.0))
    assert x.dtype == np.float32 and x.min() >= -2 and x.max() < 3
    assert abs(x.mean() - 0.5) < 0.05
    i = tf.random.uniform([1000], 5, 9, dtype=tf.int64)
    assert i.dtype == tf.int64 and set(np.unique(values(i))) == {5, 6, 7, 8}
    with pytest.raises(ValueError, match="maxval"):
        tf.random.uniform([2], dtype=tf.int32)
    with pytest.raises(errors.InvalidArgumentError):
        tf.random.uniform([2], 3, 3, dtype=tf.int32)
    assert tf.random.uniform([2, 0]).shape == (2, 0)
    assert tf.random.uniform([2], dtype=tf.float64).dtype == tf.float64


def test_normal_and_truncated_normal_moments():
    tf.random.set_seed(3)
    n = values(tf.random.normal([20000], mean=1.0, stddev=2.0, dtype=tf.float64))
    assert abs(n.mean() - 1.0) < 0.05 and abs(n.std() - 2.0) < 0.05
    t = values(tf.random.truncated_normal([20000], stddev=0.5))
    assert np.abs(t).max() <= 1.0
    # a normal truncated at 2 stddev has stddev 0.8796 of the untruncated one
    assert abs(t.std() - 0.5 * 0.8796) < 0.01
    with pytest.raises(ValueError):
        tf.random.normal([2], dtype=tf.int32)


def test_normal_is_differentiable_in_mean_and_stddev():
    mean, std = tf.Variable(1.0), tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.random.normal([5], mean, std, seed=1))
    dm, ds = tape.gradient(y, [mean, std])
    assert float(dm) == 5.0
    tf.random.set_seed(None)
    np.testing.assert_allclose(float(ds), np.sum(values(tf.random.normal([5], seed=1))), rtol=1e-6)


def test_categorical_follows_the_logits():
    tf.random.set_seed(5)
    logits = tf.math.log(tf.constant([[0.1, 0.2, 0.7], [1.0, 0.0, 0.0]]))
    s = values(tf.random.categorical(logits, 5000))
    assert s.shape == (2, 5000) and s.dtype == np.int64
    freq = np.bincount(s[0], minlength=3) / 5000
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.7], atol=0.03)
    assert set(np.unique(s[1])) == {0}  # log(0) = -inf never sampled
    with pytest.raises(errors.InvalidArgumentError, match="matrix"):
        tf.random.categorical([1.0, 2.0], 3)
    assert tf.random.categorical(logits, 2, dtype=tf.int32).dtype == tf.int32


def test_shuffle_permutes_the_first_axis():
    tf.random.set_seed(9)
    x = np.arange(20).reshape(10, 2)
    y = values(tf.random.shuffle(x))
    assert sorted(map(tuple, y)) == sorted(map(tuple, x)) and not np.array_equal(x, y)
    with pytest.raises(errors.InvalidArgumentError):
        tf.random.shuffle(3)


def test_stateless_depend_only_on_the_seed():
    a = values(tf.random.stateless_uniform([5], seed=[1, 2]))
    np.testing.assert_array_equal(a, values(tf.random.stateless_uniform([5], seed=[1, 2])))
    assert not np.array_equal(a, values(tf.random.stateless_uniform([5], seed=[1, 3])))
    n = values(tf.random.stateless_normal([10000], seed=tf.constant([4, 5], tf.int64)))
    assert abs(n.mean()) < 0.05 and abs(n.std() - 1) < 0.05
    t = values(tf.random.stateless_truncated_normal([1000], seed=[0, 0], stddev=3.0))
    assert np.abs(t).max() <= 6.0
    with pytest.raises(errors.InvalidArgumentError, match=r"shape \[2\]"):
        tf.random.stateless_uniform([2], seed=[1, 2, 3])


def test_generator_sequences():
    g1, g2 = tf.random.Generator.from_seed(42), tf.random.Generator.from_seed(42)
    a1, a2 = values(g1.normal([4])), values(g2.normal([4]))
    np.testing.assert_array_equal(a1, a2)
    assert not np.array_equal(a1, values(g1.normal([4])))
    u = values(g1.uniform([1000], 0, 10, dtype=tf.int32))
    assert u.min() >= 0 and u.max() < 10
    state = g1.state
    later = values(g1.uniform([3]))
    g1.reset(state)
    np.testing.assert_array_equal(values(g1.uniform([3])), later)
    g3 = tf.random.Generator.from_non_deterministic_state()
    g4 = tf.random.Generator.from_non_deterministic_state()
    assert not np.array_equal(values(g3.normal([4])), values(g4.normal([4])))
    children = g2.split(2)
    assert not np.array_equal(values(children[0].normal([3])), values(children[1].normal([3])))
    assert g2.make_seeds(3).shape == (2, 3)
    assert tf.random.experimental.Generator is tf.random.Generator
