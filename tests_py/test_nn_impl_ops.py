"""tf.nn.dropout, moments, batch_normalization and embedding_lookup against numpy, with their gradients."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf

RNG = np.random.default_rng(1)


def test_dropout_keeps_and_scales():
    tf.random.set_seed(11)
    x = tf.ones([200, 50])
    y = np.asarray(tf.nn.dropout(x, 0.3))
    kept = y != 0
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    assert abs(kept.mean() - 0.7) < 0.02
    assert tf.nn.dropout(x, 0.0) is x


def test_dropout_noise_shape_and_seed():
    tf.random.set_seed(None)
    x = tf.ones([4, 100])
    y = np.asarray(tf.nn.dropout(x, 0.5, noise_shape=[1, 100], seed=3))
    assert (y == y[0]).all()  # one decision per column, broadcast over rows
    z = np.asarray(tf.nn.dropout(x, 0.5, noise_shape=[None, 1], seed=4))  # None: x's size
    assert (z.T == z.T[0]).all()
    tf.random.set_seed(None)
    a = np.asarray(tf.nn.dropout(x, 0.5, seed=8))
    tf.random.set_seed(None)
    b = np.asarray(tf.nn.dropout(x, 0.5, seed=8))
    np.testing.assert_array_equal(a, b)


def test_dropout_gradient_is_the_mask():
    x = tf.Variable(RNG.standard_normal((10, 10)).astype(np.float32))
    with tf.GradientTape() as tape:
        y = tf.nn.dropout(x, 0.4, seed=2)
        loss = tf.reduce_sum(y)
    g = np.asarray(tape.gradient(loss, x))
    mask = np.asarray(y) != 0
    np.testing.assert_allclose(g, np.where(mask, 1 / 0.6, 0), rtol=1e-6)


def test_dropout_errors():
    with pytest.raises(ValueError, match="range"):
        tf.nn.dropout(tf.ones([2]), 1.0)
    with pytest.raises(ValueError, match="floating"):
        tf.nn.dropout(tf.constant([1, 2]), 0.5)
    y = tf.nn.dropout(tf.ones([1000]), tf.constant(0.5))
    assert set(np.unique(np.asarray(y))) <= {0.0, 2.0}


def test_moments_match_numpy_and_differentiate():
    x = RNG.standard_normal((4, 3, 5))
    mean, var = tf.nn.moments(tf.constant(x), axes=[0, 2])
    np.testing.assert_allclose(np.asarray(mean), x.mean(axis=(0, 2)), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(var), x.var(axis=(0, 2)), rtol=1e-12)
    m2, v2 = tf.nn.moments(tf.constant(x), axes=[1], keepdims=True)
    assert m2.shape == (4, 1, 5) and v2.shape == (4, 1, 5)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        _, v = tf.nn.moments(xt, axes=[0])
        loss = tf.reduce_sum(v)
    # d/dx of the population variance: 2 (x - mean) / n
    np.testing.assert_allclose(np.asarray(tape.gradient(loss, xt)), 2 * (x - x.mean(0)) / 4, rtol=1e-10)
    h_mean, _ = tf.nn.moments(tf.constant(x.astype(np.float16)), axes=[0])
    assert h_mean.dtype == tf.float16


def test_batch_normalization_matches_formula_and_gradients():
    x = RNG.standard_normal((6, 4))
    mean, var = x.mean(0), x.var(0)
    offset, scale = RNG.standard_normal(4), RNG.standard_normal(4)
    y = tf.nn.batch_normalization(x, mean, var, offset, scale, 1e-3)
    np.testing.assert_allclose(np.asarray(y), (x - mean) / np.sqrt(var + 1e-3) * scale + offset, rtol=1e-10)
    np.testing.assert_allclose(np.asarray(tf.nn.batch_normalization(x, mean, var, None, None, 1e-3)),
                               (x - mean) / np.sqrt(var + 1e-3), rtol=1e-10)
    s, o = tf.Variable(scale), tf.Variable(offset)
    w = RNG.standard_normal((6, 4))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.nn.batch_normalization(tf.constant(x), mean, var, o, s, 1e-3) * w)
    ds, do = tape.gradient(loss, [s, o])
    np.testing.assert_allclose(np.asarray(do), w.sum(0), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ds), ((x - mean) / np.sqrt(var + 1e-3) * w).sum(0), rtol=1e-10)


def test_embedding_lookup_values_and_indexed_slices_gradient():
    table = RNG.standard_normal((10, 3)).astype(np.float32)
    ids = np.array([[1, 4], [4, 9]])
    np.testing.assert_array_equal(np.asarray(tf.nn.embedding_lookup(table, ids)), table[ids])
    v = tf.Variable(table)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.nn.embedding_lookup(v, ids) * 2.0)
    g = tape.gradient(loss, v)
    assert isinstance(g, tf.IndexedSlices)
    np.testing.assert_array_equal(np.asarray(g.indices).reshape(-1), ids.reshape(-1))
    dense = np.zeros_like(table)
    np.add.at(dense, ids.reshape(-1), 2.0)
    np.testing.assert_allclose(np.asarray(tf.convert_to_tensor(g)), dense)


def test_embedding_lookup_shards_and_max_norm():
    table = RNG.standard_normal((7, 2)).astype(np.float32)
    shards = [table[:3], table[3:5], table[5:]]  # TF2's "div" split of 7 rows into 3 shards
    np.testing.assert_array_equal(np.asarray(tf.nn.embedding_lookup(shards, [6, 0, 3])), table[[6, 0, 3]])
    clipped = np.asarray(tf.nn.embedding_lookup(table * 10, [0, 1], max_norm=1.0))
    np.testing.assert_allclose(np.linalg.norm(clipped, axis=1), [1.0, 1.0], rtol=1e-5)
    with pytest.raises(TypeError):
        tf.nn.embedding_lookup(table, [0.5])
