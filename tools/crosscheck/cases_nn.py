"""Training-step ops: convolutions, pooling, moments / batch_normalization, embedding_lookup, dropout, tf.random
(shapes, dtypes, ranges -- the bits differ by design), top_k / in_top_k, einsum, gather(batch_dims), scatter_nd
family, clip_by_global_norm, linalg.norm: values and float64 gradients, and error types.

Float results are rounded to 9 decimals (GEMM accumulation orders differ from oneDNN's by an ulp or so), so a
mismatch here is a real difference. The TF side of these cases is stored in tests_py/data/crosscheck_nn_tf.json
(`crosscheck_tf.py --write-reference`), which tests_py/test_crosscheck_nn.py checks without TensorFlow.
"""

from __future__ import annotations

import numpy as np

from crosscheck.describe import error_of
from crosscheck.registry import case


def _r(x):
    if x is None:
        return None
    if hasattr(x, "indices") and hasattr(x, "dense_shape"):  # IndexedSlices: compare as dense
        x = np.asarray(x.values), np.asarray(x.indices)
        return {"indexed_slices": [np.round(x[0].astype(np.float64), 9), x[1].astype(np.int64)]}
    a = np.asarray(x)
    if a.dtype.kind != "f":
        return a
    # float32: summation orders differ in the last bits; float64: to 9 decimals.
    return np.round(a.astype(np.float64), 4 if a.dtype.itemsize < 8 else 9) + 0.0


def _data(shape, seed):
    n = int(np.prod(shape))
    return np.sin(np.arange(n) * 0.7 + seed).reshape(shape)


def _value_and_grads(tf, fn, *arrays):
    xs = [tf.constant(a, tf.float64) for a in arrays]
    with tf.GradientTape() as g:
        g.watch(xs)
        y = fn(*xs)
        w = tf.constant(_data(np.asarray(y).shape, 9), tf.float64)
        loss = tf.reduce_sum(y * w)
    return {"value": _r(y), "grads": [_r(d) for d in g.gradient(loss, xs)]}


@case()
def nn_conv2d(tf):
    x, f = _data((2, 5, 6, 3), 1), _data((3, 2, 3, 4), 2)
    return {
        "same": _value_and_grads(tf, lambda a, b: tf.nn.conv2d(a, b, 1, "SAME"), x, f),
        "valid_strided": _value_and_grads(tf, lambda a, b: tf.nn.conv2d(a, b, [2, 3], "VALID"), x, f),
        # TF's CPU kernels have no dilated conv2d gradient (InvalidArgumentError); values only.
        "dilated": _r(tf.nn.conv2d(tf.constant(x), tf.constant(f), 1, "SAME", dilations=2)),
        "explicit": _value_and_grads(
            tf, lambda a, b: tf.nn.conv2d(a, b, [1, 2, 1, 1], [[0, 0], [1, 2], [0, 1], [0, 0]]), x, f),
        # TF's CPU kernels have no grouped conv2d gradient either; values only.
        "grouped": _r(tf.nn.conv2d(tf.constant(_data((1, 4, 4, 4), 3)), tf.constant(_data((3, 3, 2, 6), 4)), 1,
                                   "SAME")),
        "float32": _r(tf.nn.conv2d(tf.constant(x, tf.float32), tf.constant(f, tf.float32), 2, "SAME")),
    }


@case()
def nn_conv1d_depthwise_transpose(tf):
    x, f = _data((2, 9, 3), 1), _data((3, 3, 4), 2)
    x4, d = _data((2, 6, 6, 3), 3), _data((3, 3, 3, 2), 4)
    return {
        "conv1d": _value_and_grads(tf, lambda a, b: tf.nn.conv1d(a, b, 2, "SAME"), x, f),
        "depthwise": _value_and_grads(tf, lambda a, b: tf.nn.depthwise_conv2d(a, b, [1, 1, 1, 1], "VALID"), x4, d),
        "depthwise_strided": _value_and_grads(
            tf, lambda a, b: tf.nn.depthwise_conv2d(a, b, [1, 2, 2, 1], "SAME"), x4, d),
        "depthwise_dilated": _value_and_grads(
            tf, lambda a, b: tf.nn.depthwise_conv2d(a, b, [1, 1, 1, 1], "SAME", dilations=[2, 2]), x4, d),
        "transpose": _value_and_grads(
            tf, lambda a, b: tf.nn.conv2d_transpose(a, b, [2, 6, 6, 3], 2, "SAME"), _data((2, 3, 3, 4), 5),
            _data((3, 3, 3, 4), 6)),
    }


@case()
def nn_pooling(tf):
    x = _data((2, 7, 6, 3), 7)
    return {
        "max_same": _value_and_grads(tf, lambda a: tf.nn.max_pool2d(a, 3, 2, "SAME"), x),
        "max_valid": _value_and_grads(tf, lambda a: tf.nn.max_pool2d(a, [2, 3], 1, "VALID"), x),
        "max_explicit": _value_and_grads(tf, lambda a: tf.nn.max_pool2d(a, 2, 2, [[0, 0], [1, 1], [0, 1], [0, 0]]), x),
        "avg_same": _value_and_grads(tf, lambda a: tf.nn.avg_pool2d(a, 3, 2, "SAME"), x),
        "avg_valid": _value_and_grads(tf, lambda a: tf.nn.avg_pool(a, 2, 1, "VALID"), x),
        "pool1d": _value_and_grads(tf, lambda a: tf.nn.max_pool1d(a, 2, 2, "SAME"), _data((2, 7, 3), 8)),
        "int_max": _r(tf.nn.max_pool2d(tf.constant(np.arange(32).reshape(1, 4, 4, 2), tf.int32), 2, 2, "SAME")),
    }


@case()
def nn_conv_pool_errors(tf):
    x, k = np.ones((1, 5, 5, 2), np.float32), np.ones((3, 3, 2, 4), np.float32)
    return {
        "bad_padding": error_of(lambda: tf.nn.conv2d(x, k, 1, "same")),
        "rank3": error_of(lambda: tf.nn.conv2d(np.ones((5, 5, 2), np.float32), k, 1, "SAME")),
        "depth": error_of(lambda: tf.nn.conv2d(np.ones((1, 5, 5, 3), np.float32), k, 1, "SAME")),
        "stride0": error_of(lambda: tf.nn.conv2d(x, k, 0, "SAME")),
        "stride_batch": error_of(lambda: tf.nn.conv2d(x, k, [2, 1, 1, 1], "SAME")),
        "stride_len3": error_of(lambda: tf.nn.conv2d(x, k, [1, 2, 2], "SAME")),
        "explicit_batch": error_of(lambda: tf.nn.conv2d(x, k, 1, [[1, 0], [1, 2], [0, 1], [0, 0]])),
        "explicit_negative": error_of(lambda: tf.nn.conv2d(x, k, 1, [[0, 0], [-1, 2], [0, 1], [0, 0]])),
        "explicit_size": error_of(lambda: tf.nn.conv2d(x, k, 1, [[1, 2], [0, 1]])),
        "dtype_mix": error_of(lambda: tf.nn.conv2d(x.astype(np.float64), k, 1, "SAME")),
        "dw_strides_int": error_of(lambda: tf.nn.depthwise_conv2d(x, np.ones((3, 3, 2, 3), np.float32), 2, "SAME")),
        "dw_strides_unequal": error_of(
            lambda: tf.nn.depthwise_conv2d(x, np.ones((3, 3, 2, 3), np.float32), [1, 2, 1, 1], "SAME")),
        "dw_depth": error_of(lambda: tf.nn.depthwise_conv2d(x, np.ones((3, 3, 3, 3), np.float32), [1, 1, 1, 1],
                                                            "SAME")),
        "pool_k0": error_of(lambda: tf.nn.max_pool2d(x, 0, 2, "SAME")),
        "pool_batch": error_of(lambda: tf.nn.max_pool2d(x, [2, 2, 2, 1], 1, "VALID")),
        "pool_rank": error_of(lambda: tf.nn.max_pool2d(np.ones((5, 5, 2), np.float32), 2, 2, "SAME")),
        "avg_int": error_of(lambda: tf.nn.avg_pool2d(np.ones((1, 5, 5, 2), np.int32), 2, 2, "SAME")),
        "avg_explicit": error_of(lambda: tf.nn.avg_pool2d(x, 2, 2, [[0, 0], [1, 1], [0, 0], [0, 0]])),
    }


@case()
def nn_moments_batchnorm_embedding(tf):
    x = _data((4, 3, 5), 1)
    scale, offset = _data((5,), 2), _data((5,), 3)

    def bn(a, s, o):
        mean, var = tf.nn.moments(a, axes=[0, 1])
        return tf.nn.batch_normalization(a, mean, var, o, s, 1e-3)

    table = _data((7, 3), 4)
    v = tf.Variable(table)
    with tf.GradientTape() as g:
        loss = tf.reduce_sum(tf.nn.embedding_lookup(v, [[1, 4], [4, 0]]) * tf.constant(_data((2, 2, 3), 5)))
    grad = g.gradient(loss, v)
    return {
        "moments": [_r(m) for m in tf.nn.moments(tf.constant(x), axes=[0, 2])],
        "moments_keepdims": [_r(m) for m in tf.nn.moments(tf.constant(x), axes=[1], keepdims=True)],
        "batchnorm": _value_and_grads(tf, bn, x, scale, offset),
        "embedding": _r(tf.nn.embedding_lookup(tf.constant(table), [[1, 4], [4, 0]])),
        "embedding_grad_type": type(grad).__name__,
        "embedding_grad": _r(tf.convert_to_tensor(grad)),
        "embedding_shards": _r(tf.nn.embedding_lookup([table[:3], table[3:5], table[5:]], [5, 0, 3, 6, 2])),
        "embedding_bad_shards": error_of(lambda: tf.nn.embedding_lookup([table[:3], table[3:6], table[6:]], [5])),
    }


@case()
def nn_dropout_and_random_surface(tf):
    tf.random.set_seed(1)
    y = np.asarray(tf.nn.dropout(tf.ones([50, 40]), 0.25))
    u = tf.random.uniform([3, 2], -1.0, 2.0)
    i = tf.random.uniform([100], 2, 5, dtype=tf.int64)
    n = tf.random.normal([4], dtype=tf.float64)
    t = tf.random.truncated_normal([1000])
    c = tf.random.categorical(tf.math.log([[0.5, 0.5, 0.0]]), 20)
    s = tf.random.shuffle(tf.range(10))
    g = tf.random.Generator.from_seed(3)
    tf.random.set_seed(None)  # leave no global seed behind for later cases
    return {
        "dropout_values": sorted({float(v) for v in np.unique(y)}),
        "dropout_rate0_shape": list(np.asarray(tf.nn.dropout(tf.ones([2]), 0.0)).shape),
        "dropout_bad_rate": error_of(lambda: tf.nn.dropout(tf.ones([2]), 1.0)),
        "dropout_int": error_of(lambda: tf.nn.dropout(tf.constant([1, 2]), 0.5)),
        "uniform": [u.dtype.name, list(u.shape), bool(np.all((np.asarray(u) >= -1) & (np.asarray(u) < 2)))],
        "uniform_int": [i.dtype.name, sorted(int(v) for v in np.unique(np.asarray(i)))],
        "uniform_int_no_max": error_of(lambda: tf.random.uniform([2], dtype=tf.int32)),
        "normal": [n.dtype.name, list(n.shape)],
        "truncated_within_2": bool(np.abs(np.asarray(t)).max() <= 2.0),
        "categorical": [c.dtype.name, list(c.shape), sorted(int(v) for v in np.unique(np.asarray(c)))],
        "shuffle": sorted(int(v) for v in np.asarray(s)),
        "stateless_repeat": bool(np.array_equal(np.asarray(tf.random.stateless_normal([3], seed=[1, 2])),
                                                np.asarray(tf.random.stateless_normal([3], seed=[1, 2])))),
        "generator": [g.normal([2, 2]).dtype.name, g.uniform([3], 0, 4, dtype=tf.int32).dtype.name],
        "categorical_vector": error_of(lambda: tf.random.categorical([1.0, 2.0], 3)),
    }


@case()
def nn_top_k_in_top_k(tf):
    x = np.array([[1.0, 3.0, 3.0, -1.0, 2.0], [0.5, 0.5, 0.5, 0.5, 0.5]])
    r = tf.math.top_k(x, k=3)
    return {
        "values": _r(r.values), "indices": _r(r.indices), "index_dtype": r.indices.dtype.name,
        "int64_index": tf.math.top_k(x, 2, index_type=tf.int64).indices.dtype.name,
        "grad": _value_and_grads(tf, lambda a: tf.math.top_k(a, 2).values, _data((3, 4), 1)),
        "too_big": error_of(lambda: tf.math.top_k(x, 6)),
        "negative": error_of(lambda: tf.math.top_k(x, -1)),
        "scalar": error_of(lambda: tf.math.top_k(3.0, 1)),
        "in_top_k": _r(tf.math.in_top_k([2, 0, 3], tf.constant([[0.1, 0.5, 0.5, 0.2], [0.3, 0.2, 0.1, 0.4],
                                                                 [0.9, 0.0, 0.1, np.nan]]), 1)),
        "in_top_k_ties": _r(tf.math.in_top_k([1, 2], [[0.5, 0.5, 0.5], [1.0, 0.0, 0.5]], 2)),
    }


@case()
def nn_einsum(tf):
    a, b = _data((2, 3), 1), _data((3, 4), 2)
    bat, bat2 = _data((2, 3, 4), 3), _data((2, 4, 5), 4)
    q, k = _data((2, 2, 3, 4), 5), _data((2, 2, 5, 4), 6)
    return {
        "matmul": _value_and_grads(tf, lambda x, y: tf.einsum("ij,jk->ik", x, y), a, b),
        "batch": _value_and_grads(tf, lambda x, y: tf.einsum("bij,bjk->bik", x, y), bat, bat2),
        "attention": _value_and_grads(tf, lambda x, y: tf.einsum("bhqd,bhkd->bhqk", x, y), q, k),
        "transpose": _value_and_grads(tf, lambda x: tf.einsum("ijk->kji", x), bat),
        "sum": _value_and_grads(tf, lambda x: tf.einsum("ij->", x), a),
        "row_sum": _value_and_grads(tf, lambda x: tf.einsum("ij->i", x), a),
        "outer": _value_and_grads(tf, lambda x, y: tf.einsum("i,j->ij", x, y), _data((3,), 7), _data((2,), 8)),
        "implicit": _r(tf.einsum("ij,jk", tf.constant(a), tf.constant(b))),
        "ellipsis": _value_and_grads(tf, lambda x, y: tf.einsum("...ij,jk->...ik", x, y), bat, _data((4, 2), 9)),
        "three": _r(tf.einsum("ij,jk,kl->il", tf.constant(a), tf.constant(b), tf.constant(_data((4, 2), 10)))),
        "dot": _value_and_grads(tf, lambda x, y: tf.einsum("i,i->", x, y), _data((4,), 1), _data((4,), 2)),
        "size_mismatch": error_of(lambda: tf.einsum("ij,jk->ik", tf.constant(a), tf.constant(a))),
    }


@case()
def nn_gather_scatter(tf):
    p = _data((2, 4, 3), 1)
    idx = np.array([[0, 3, 3], [1, 2, 0]])
    return {
        "batch_dims1": _value_and_grads(tf, lambda x: tf.gather(x, idx, batch_dims=1), p),
        "batch_dims1_axis2": _value_and_grads(tf, lambda x: tf.gather(x, [[0, 2], [1, 1]], axis=2, batch_dims=1), p),
        "axis1": _value_and_grads(tf, lambda x: tf.gather(x, [2, 0], axis=1), p),
        "gather_nd": _value_and_grads(tf, lambda x: tf.gather_nd(x, [[0, 1], [1, 3], [0, 1]]), p),
        "scatter_nd": _value_and_grads(tf, lambda u: tf.scatter_nd([[1], [3], [1]], u, [5, 3]), _data((3, 3), 2)),
        "scatter_add": _value_and_grads(tf, lambda t, u: tf.tensor_scatter_nd_add(t, [[0, 1], [2, 2]], u),
                                        _data((3, 4), 3), _data((2,), 4)),
        "scatter_update": _value_and_grads(tf, lambda t, u: tf.tensor_scatter_nd_update(t, [[0], [2]], u),
                                           _data((3, 4), 5), _data((2, 4), 6)),
        "scatter_sub": _r(tf.tensor_scatter_nd_sub(tf.constant(_data((3,), 1)), [[1]], tf.constant([2.0], tf.float64))),
        "scatter_oob": error_of(lambda: tf.scatter_nd([[5]], [1.0], [3])),
        "update_oob": error_of(lambda: tf.tensor_scatter_nd_update(tf.zeros([3]), [[3]], [1.0])),
        "batch_dims_gt_axis": error_of(lambda: tf.gather(tf.constant(p), idx, axis=0, batch_dims=1)),
    }


@case()
def nn_clip_and_norm(tf):
    a, b = _data((2, 3), 1) * 3, _data((4,), 2) * 3

    def clipped(x, y):
        out, norm = tf.clip_by_global_norm([x, y], 1.5)
        return tf.concat([tf.reshape(out[0], [-1]), out[1], tf.reshape(norm, [1])], 0)

    return {
        "clip_by_global_norm": _value_and_grads(tf, clipped, a, b),
        "norm_euclidean": _value_and_grads(tf, lambda x: tf.linalg.norm(x), a),
        "norm_axis": _value_and_grads(tf, lambda x: tf.linalg.norm(x, axis=1), a),
        "norm_1": _value_and_grads(tf, lambda x: tf.linalg.norm(x, ord=1, axis=0), a),
        "norm_inf": _value_and_grads(tf, lambda x: tf.norm(x, ord=np.inf), b),
    }


@case()
def nn_relu_mse_step(tf):
    """benchmarks/bench_mlp_step.py's replica step, small: relu(x @ w1) @ w2 against a constant target, mean
    squared; w1's zero column puts exact zeros into relu (its gradient there is 0). The weights' gradients and, by
    an outer tape, the gradient of their squared norm (relu's second derivative: TF's ReluGrad gradient)."""
    out = {}
    for dtype in (tf.float32, tf.float64):
        x, target = tf.constant(_data((5, 4), 1), dtype), tf.constant(_data((5, 3), 2), dtype)
        w1v = _data((4, 6), 3)
        w1v[:, 2] = 0.0
        w1, w2 = tf.Variable(tf.constant(w1v, dtype)), tf.Variable(tf.constant(_data((6, 3), 4), dtype))
        with tf.GradientTape() as outer:
            with tf.GradientTape() as tape:
                h = tf.nn.relu(tf.matmul(x, w1))
                loss = tf.reduce_mean(tf.square(tf.matmul(h, w2) - target))
            g1, g2 = tape.gradient(loss, [w1, w2])
            norm = tf.reduce_sum(g1 * g1) + tf.reduce_sum(g2 * g2)
        out[dtype.name] = {"loss": _r(loss), "grads": [_r(g1), _r(g2)],
                           "second": [_r(d) for d in outer.gradient(norm, [w1, w2])]}
    return out
