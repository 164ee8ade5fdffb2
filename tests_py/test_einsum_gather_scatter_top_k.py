"""tf.einsum, tf.gather(batch_dims), gather_nd, scatter_nd / tensor_scatter_nd_*, tf.math.top_k / in_top_k and
norm clipping against numpy, with gradients through GradientTape checked against numpy finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import errors

RNG = np.random.default_rng(2)


def numeric_grad(f, arrays, k, w, eps=1e-6):
    """d sum(f(*arrays) * w) / d arrays[k] by central differences (numpy)."""
    base = arrays[k]
    g = np.zeros_like(base)
    for i in np.ndindex(base.shape):
        args_p = [a.copy() for a in arrays]
        args_m = [a.copy() for a in arrays]
        args_p[k][i] += eps
        args_m[k][i] -= eps
        g[i] = (np.sum(f(*args_p) * w) - np.sum(f(*args_m) * w)) / (2 * eps)
    return g


def check_op(tf_fn, np_fn, *arrays):
    xs = [tf.constant(a) for a in arrays]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = tf_fn(*xs)
        w = RNG.standard_normal(np.asarray(y).shape)
        loss = tf.reduce_sum(y * w)
    np.testing.assert_allclose(np.asarray(y), np_fn(*arrays), rtol=1e-10, atol=1e-12)
    grads = tape.gradient(loss, xs)
    for k, g in enumerate(grads):
        np.testing.assert_allclose(np.asarray(tf.convert_to_tensor(g)), numeric_grad(np_fn, list(arrays), k, w),
                                   rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("equation,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("ij->", [(2, 3)]),
    ("ij->j", [(2, 3)]),
    ("i,j->ij", [(3,), (2,)]),
    ("i,i->", [(4,), (4,)]),
    ("...ij,jk->...ik", [(2, 3, 4), (4, 2)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("bij,jk", [(2, 3, 4), (4, 5)]),
    ("abc,cd->ad", [(2, 3, 4), (4, 2)]),
])
def test_einsum_matches_numpy(equation, shapes):
    arrays = [RNG.standard_normal(s) for s in shapes]
    check_op(lambda *xs: tf.einsum(equation, *xs), lambda *xs: np.einsum(equation, *xs), *arrays)


def test_einsum_errors():
    a = tf.ones([2, 3])
    with pytest.raises(errors.InvalidArgumentError, match="Expected dimension 2 at axis 1"):
        tf.einsum("ii->i", a)  # a diagonal needs equal sizes (traces themselves: test_crosscheck_fidelity_gaps)
    with pytest.raises(errors.InvalidArgumentError, match="sizes"):
        tf.einsum("ij,jk->ik", a, a)
    with pytest.raises(ValueError, match="operands"):
        tf.einsum("ij,jk->ik", a)
    with pytest.raises(ValueError, match="rank"):
        tf.einsum("ijk->i", a)


@pytest.mark.parametrize("axis,batch_dims,ishape", [(1, 1, (2, 3)), (2, 1, (2, 2)), (2, 2, (2, 4, 2)), (1, 0, (3,))])
def test_gather_batch_dims_matches_numpy(axis, batch_dims, ishape):
    p = RNG.standard_normal((2, 4, 3))
    idx = RNG.integers(0, p.shape[axis], ishape)

    def ref(params):
        if batch_dims == 0:
            return np.take(params, idx, axis=axis)
        out = [np.take(params[b], idx[b], axis=axis - 1) if batch_dims == 1 else
               np.stack([np.take(params[b, c], idx[b, c], axis=axis - 2) for c in range(params.shape[1])])
               for b in range(params.shape[0])]
        return np.stack(out)

    check_op(lambda x: tf.gather(x, idx, axis=axis, batch_dims=batch_dims), ref, p)


def test_gather_nd_and_scatter_family_match_numpy():
    p = RNG.standard_normal((2, 4, 3))
    ind = np.array([[0, 1], [1, 3], [0, 1]])
    check_op(lambda x: tf.gather_nd(x, ind), lambda x: x[ind[:, 0], ind[:, 1]], p)

    def scatter_ref(u):
        out = np.zeros((5, 3))
        np.add.at(out, [1, 3, 1], u)
        return out

    check_op(lambda u: tf.scatter_nd([[1], [3], [1]], u, [5, 3]), scatter_ref, RNG.standard_normal((3, 3)))

    def add_ref(t, u):
        out = t.copy()
        np.add.at(out, ([0, 2], [1, 2]), u)
        return out

    check_op(lambda t, u: tf.tensor_scatter_nd_add(t, [[0, 1], [2, 2]], u), add_ref, RNG.standard_normal((3, 4)),
             RNG.standard_normal(2))

    def update_ref(t, u):
        out = t.copy()
        out[[0, 2]] = u
        return out

    check_op(lambda t, u: tf.tensor_scatter_nd_update(t, [[0], [2]], u), update_ref, RNG.standard_normal((3, 4)),
             RNG.standard_normal((2, 4)))
    np.testing.assert_array_equal(np.asarray(tf.tensor_scatter_nd_sub(tf.zeros([3]), [[1]], [2.0])), [0, -2, 0])


def test_scatter_errors():
    with pytest.raises(errors.InvalidArgumentError, match="does not index"):
        tf.scatter_nd([[5]], [1.0], [3])
    with pytest.raises(errors.InvalidArgumentError, match="does not index"):
        tf.tensor_scatter_nd_update(tf.zeros([3]), [[-1]], [1.0])
    with pytest.raises(errors.InvalidArgumentError, match="updates must have shape"):
        tf.scatter_nd([[1]], [1.0, 2.0], [3])
    with pytest.raises(errors.InvalidArgumentError, match="not in"):
        tf.gather(tf.ones([2, 3]), [[0, 3], [1, 1]], axis=1, batch_dims=1)


def test_top_k_matches_numpy_and_gradient():
    x = RNG.standard_normal((3, 2, 6))
    values, indices = tf.math.top_k(x, 3)
    order = np.argsort(-x, axis=-1, kind="stable")[..., :3]
    np.testing.assert_array_equal(np.asarray(indices), order)
    np.testing.assert_array_equal(np.asarray(values), np.take_along_axis(x, order, -1))
    assert indices.dtype == tf.int32 and tf.nn.top_k(x, 1, index_type=tf.int64).indices.dtype == tf.int64
    check_op(lambda a: tf.math.top_k(a, 2).values,
             lambda a: np.take_along_axis(a, np.argsort(-a, axis=-1, kind="stable")[..., :2], -1), x)
    with pytest.raises(errors.InvalidArgumentError, match="at least k columns"):
        tf.math.top_k(x, 7)


def test_in_top_k_counts_ties():
    pred = tf.constant([[0.1, 0.5, 0.5, 0.2], [0.3, 0.2, 0.1, 0.4], [0.9, 0.0, 0.1, np.nan]])
    np.testing.assert_array_equal(np.asarray(tf.math.in_top_k([2, 0, 3], pred, 1)), [True, False, False])
    np.testing.assert_array_equal(np.asarray(tf.math.in_top_k([1, 2], [[0.5, 0.5, 0.5], [1.0, 0.0, 0.5]], 2)),
                                  [True, True])
    with pytest.raises(errors.InvalidArgumentError):
        tf.math.in_top_k([0], [0.5, 0.2], 1)


def test_clip_by_global_norm_and_norm_gradients():
    a, b = RNG.standard_normal((2, 3)) * 3, RNG.standard_normal(4) * 3

    def ref(x, y):
        n = np.sqrt(np.sum(x * x) + np.sum(y * y))
        s = 1.5 / max(n, 1.5)
        return np.concatenate([(x * s).reshape(-1), y * s, [n]])

    def ours(x, y):
        out, n = tf.clip_by_global_norm([x, y], 1.5)
        return tf.concat([tf.reshape(out[0], [-1]), out[1], tf.reshape(n, [1])], 0)

    check_op(ours, ref, a, b)
    check_op(lambda x: tf.linalg.norm(x, axis=1), lambda x: np.linalg.norm(x, axis=1), a)
    check_op(lambda x: tf.linalg.norm(x), lambda x: np.linalg.norm(x), a)
