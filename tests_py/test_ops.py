"""Tensor ops against numpy: dtypes, broadcasting, Python operators, indexing and error types."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import errors

DTYPES = ["int32", "int64", "float16", "bfloat16", "float32", "float64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]


def np_dtype(name):
    return ml_dtypes.bfloat16 if name == "bfloat16" else np.dtype(name)


def arr(values, dtype):
    return np.asarray(values, dtype=np.float64).astype(np_dtype(dtype))


def check(result, expected, dtype=None, rtol=None):
    assert isinstance(result, tf.Tensor)
    expected = np.asarray(expected)
    got = np.asarray(result)
    assert got.shape == expected.shape
    if dtype is not None:
        assert result.dtype == tf.DType(dtype)
    if rtol is None:
        np.testing.assert_array_equal(got.astype(np.float64), expected.astype(np.float64))
    else:
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=rtol)


BROADCAST_CASES = [
    ((2, 3), (2, 3)),
    ((2, 3), (3,)),
    ((2, 3), ()),
    ((), (4,)),
    ((4, 1), (1, 5)),
    ((2, 1, 3), (5, 1)),
    ((0, 3), (3,)),
    ((0, 1), (1, 4)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("sa", "sb"), BROADCAST_CASES, ids=lambda s: "x".join(map(str, s)) or "scalar")
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "maximum", "minimum"])
def test_binary_arithmetic_matches_numpy(op, sa, sb, dtype):
    rng = np.random.default_rng(0)
    a = arr(rng.integers(-5, 6, size=sa), dtype)
    b = arr(rng.integers(-5, 6, size=sb), dtype)
    expected = getattr(np, op)(a.astype(np.float64), b.astype(np.float64)).astype(np_dtype(dtype))
    check(getattr(tf, op)(tf.constant(a), tf.constant(b)), expected, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("op", "npop"),
    [
        ("equal", np.equal),
        ("not_equal", np.not_equal),
        ("less", np.less),
        ("less_equal", np.less_equal),
        ("greater", np.greater),
        ("greater_equal", np.greater_equal),
    ],
)
def test_comparisons_return_bool(op, npop, dtype):
    a = arr([[1, 2, 3], [4, 5, 6]], dtype)
    b = arr([3, 2, 1], dtype)
    check(getattr(tf, op)(a, b), npop(a, b), "bool")


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_division_rules(dtype):
    a = np.array([7, -7, 7, -7, 0], dtype=dtype)
    b = np.array([2, 2, -2, -2, 3], dtype=dtype)
    check(tf.math.floordiv(a, b), a // b, dtype)
    check(tf.math.floormod(a, b), a % b, dtype)
    check(tf.divide(a, b), a / b, "float64")
    with pytest.raises(errors.InvalidArgumentError, match="Integer division by zero"):
        tf.math.floordiv(a, np.zeros_like(b))
    check(tf.pow(a, np.array(3, dtype=dtype)), a**3, dtype)
    with pytest.raises(errors.InvalidArgumentError):
        tf.pow(a, np.array(-1, dtype=dtype))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(
    ("op", "npop"),
    [
        ("exp", np.exp),
        ("log", np.log),
        ("sqrt", np.sqrt),
        ("tanh", np.tanh),
        ("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
        ("abs", np.abs),
        ("negative", np.negative),
        ("square", np.square),
    ],
)
def test_unary_floats(op, npop, dtype):
    x = arr([0.5, 1.0, 2.0, 3.5], dtype)
    expected = npop(x.astype(np.float64))
    rtol = {"float16": 2e-3, "bfloat16": 1e-2, "float32": 1e-6, "float64": 1e-12}[dtype]
    fn = getattr(tf.math, op)
    check(fn(tf.constant(x)), expected, dtype, rtol=rtol)


@pytest.mark.parametrize("op", ["exp", "log", "sqrt", "tanh", "sigmoid"])
@pytest.mark.parametrize("dtype", ["int32", "int64", "bool"])
def test_float_only_ops_reject_other_dtypes(op, dtype):
    with pytest.raises(TypeError):
        getattr(tf.math, op)(tf.zeros([2], dtype))


def test_relu_and_softmax():
    x = np.array([[-1.0, 0.0, 2.0], [1000.0, 1000.0, -1000.0]], np.float32)
    check(tf.nn.relu(x), np.maximum(x, 0), "float32")
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    check(tf.nn.softmax(x), e / e.sum(axis=-1, keepdims=True), "float32", rtol=1e-6)
    e0 = np.exp(x - x.max(axis=0, keepdims=True))
    check(tf.nn.softmax(x, axis=0), e0 / e0.sum(axis=0, keepdims=True), "float32", rtol=1e-6)
    with np.errstate(over="ignore"):
        expected = 1 / (1 + np.exp(-x.astype(np.float64)))
    check(tf.nn.sigmoid(x), expected, "float32", rtol=1e-6)


def test_python_operators():
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    n = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    check(a + 1, n + 1, "float32")
    check(1 + a, 1 + n)
    check(a - 1, n - 1)
    check(10 - a, 10 - n)
    check(a * 2, n * 2)
    check(2 * a, 2 * n)
    check(a / 2, n / 2)
    check(1 / a, 1 / n, rtol=1e-6)
    check(a // 3, n // 3)
    check(7 // a, 7 // n)
    check(a % 3, n % 3)
    check(a**2, n**2)
    check(2**a, 2**n)
    check(a @ a, n @ n)
    check(n @ a, n @ n)
    check(-a, -n)
    check(abs(-a), n)
    check(a < 2, n < 2, "bool")
    check(a <= 2, n <= 2)
    check(a > 2, n > 2)
    check(a >= 2, n >= 2)
    check(a == 2, n == 2)
    check(a != 2, n != 2)
    check(n + a, n + n)  # numpy defers to the tensor
    b = tf.constant([True, False])
    check(b & True, [True, False])
    check(b | False, [True, False])
    check(~b, [False, True])
    assert (a == "text") is False
    assert (a != None) is True  # noqa: E711
    assert (a == tf.constant([1.0, 2.0, 3.0])) is False  # incompatible shapes compare unequal


def test_python_scalars_take_the_tensor_dtype():
    i = tf.constant([1, 2, 3])
    assert (i + 1).dtype == tf.int32
    assert (2 * tf.constant([1.0], tf.float16)).dtype == tf.float16
    assert (i / 2).dtype == tf.float64
    with pytest.raises(TypeError):
        i + 1.5
    with pytest.raises(TypeError):
        1.5 * i
    with pytest.raises(TypeError):
        i + "a"
    with pytest.raises(TypeError):
        i + object()


def test_mismatched_dtypes_and_shapes():
    with pytest.raises(errors.InvalidArgumentError, match="float32 tensor but is a int32"):
        tf.add(tf.constant([1.0]), tf.constant([1]))
    with pytest.raises(errors.InvalidArgumentError, match=r"Incompatible shapes: \[2,3\] vs. \[2\]"):
        tf.ones([2, 3]) + tf.ones([2])
    with pytest.raises(ValueError):  # InvalidArgumentError is a ValueError
        tf.ones([2, 3]) * tf.ones([4])
    with pytest.raises(TypeError):
        tf.constant([True]) + tf.constant([False])


def test_len_iter_and_scalar_conversions():
    t = tf.constant([[1, 2], [3, 4], [5, 6]])
    assert len(t) == 3
    rows = list(t)
    assert len(rows) == 3
    check(rows[2], [5, 6], "int32")
    s = tf.constant(3)
    assert int(s) == 3 and float(s) == 3.0 and bool(s) is True
    assert [10, 20, 30, 40][s] == 40  # __index__
    assert bool(tf.constant(0.0)) is False
    assert float(tf.constant([2.5])) == 2.5
    with pytest.raises(ValueError):
        bool(t)
    with pytest.raises(TypeError):
        len(s)
    with pytest.raises(TypeError):
        iter(s)
    with pytest.raises(TypeError):
        int(t)
    with pytest.raises(TypeError):
        [1, 2][tf.constant(1.0)]
    assert list(tf.zeros([0, 2])) == []


INDEX_CASES = [
    1,
    -1,
    (0, 1),
    (slice(None), 1),
    slice(1, None),
    slice(None, None, -1),
    slice(-2, None, -1),
    slice(5, -10, -2),
    (Ellipsis, 0),
    (None, Ellipsis),
    (slice(None), None, 2),
    (1, slice(None, None, 2), Ellipsis),
    slice(100, 200),
    slice(-100, 2),
    (slice(None, None, 3), slice(None, None, -2), slice(1, 3)),
    (np.int64(1), -2),
]


@pytest.mark.parametrize("key", INDEX_CASES, ids=repr)
def test_getitem_matches_numpy(key):
    n = np.arange(4 * 3 * 5, dtype=np.float32).reshape(4, 3, 5)
    check(tf.constant(n)[key], n[key], "float32")


def test_getitem_errors():
    t = tf.reshape(tf.range(12), [3, 4])
    with pytest.raises(errors.InvalidArgumentError):
        t[3]
    with pytest.raises(errors.InvalidArgumentError):
        t[0, -5]
    with pytest.raises(errors.InvalidArgumentError):
        t[0, 0, 0]
    with pytest.raises(ValueError):
        t[::0]
    with pytest.raises(TypeError):
        t["a"]
    with pytest.raises(TypeError):
        t[[0, 1]]
    with pytest.raises(TypeError):
        t[1.0]
    check(t[tf.constant(1)], np.arange(4, 8))
    check(t[10**30 :], np.zeros((0, 4)))  # huge bounds clamp like Python


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 2], [2, 0], (1, 2), []], ids=repr)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions_match_numpy(dtype, axis, keepdims):
    rng = np.random.default_rng(1)
    x = arr(rng.integers(1, 4, size=(3, 4, 2)), dtype)
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    xf = x.astype(np.float64)
    rtol = 1e-2 if dtype in ("float16", "bfloat16") else 1e-6
    for name, npfn in [
        ("reduce_sum", np.sum),
        ("reduce_max", np.max),
        ("reduce_min", np.min),
        ("reduce_prod", np.prod),
    ]:
        with np.errstate(over="ignore"):
            expected = np.asarray(npfn(xf, axis=np_axis, keepdims=keepdims)).astype(np_dtype(dtype))
        check(getattr(tf, name)(x, axis=axis, keepdims=keepdims), expected, dtype, rtol=rtol)
    mean = tf.reduce_mean(x, axis=axis, keepdims=keepdims)
    if dtype.startswith("int"):
        s = np.sum(x, axis=np_axis, keepdims=keepdims)
        count = x.size // max(s.size, 1)
        check(mean, s // count, dtype)
    else:
        check(mean, np.mean(xf, axis=np_axis, keepdims=keepdims), dtype, rtol=rtol)


def test_reduction_errors_and_bool():
    with pytest.raises(errors.InvalidArgumentError):
        tf.reduce_sum(tf.ones([2, 2]), axis=2)
    with pytest.raises(TypeError):
        tf.reduce_sum(tf.constant([True]))
    b = np.array([[True, False], [False, False]])
    check(tf.reduce_any(b, axis=1), b.any(axis=1), "bool")
    check(tf.reduce_all(b), b.all(), "bool")


def test_argmax_argmin():
    x = np.array([[1, 9, 3], [7, 2, 9]], np.float32)
    check(tf.argmax(x, axis=1), np.argmax(x, axis=1), "int64")
    check(tf.argmax(x), np.argmax(x, axis=0), "int64")
    check(tf.argmin(x, axis=-1, output_type=tf.int32), np.argmin(x, axis=-1), "int32")
    with pytest.raises(errors.InvalidArgumentError):
        tf.argmax(x, axis=2)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("sa", "sb"),
    [((2, 3), (3, 4)), ((5, 2, 3), (3, 1)), ((2, 1, 2, 3), (4, 3, 2)), ((1, 0), (0, 2))],
    ids=str,
)
def test_matmul_matches_numpy(dtype, sa, sb):
    rng = np.random.default_rng(2)
    a = arr(rng.integers(-3, 4, size=sa), dtype)
    b = arr(rng.integers(-3, 4, size=sb), dtype)
    expected = np.matmul(a.astype(np.float64), b.astype(np.float64))
    check(tf.matmul(a, b), expected, dtype, rtol=1e-2 if dtype in ("float16", "bfloat16") else 1e-9)


def test_matmul_transposes_and_errors():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    check(tf.matmul(a, a, transpose_b=True), a @ a.T, "float64")
    check(tf.linalg.matmul(a, a, transpose_a=True), a.T @ a)
    check(tf.matmul(a, a, adjoint_b=True), a @ a.T)
    with pytest.raises(errors.InvalidArgumentError, match=r"size-incompatible: In\[0\]: \[2,3\], In\[1\]: \[2,3\]"):
        tf.matmul(a, a)
    with pytest.raises(errors.InvalidArgumentError):
        tf.matmul([1.0, 2.0], [[1.0], [2.0]])
    with pytest.raises(TypeError):
        tf.matmul([[True]], [[True]])


def test_shape_ops_match_numpy():
    n = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    t = tf.constant(n)
    check(tf.reshape(t, [4, -1]), n.reshape(4, -1), "int32")
    check(tf.reshape(t, tf.constant([6, 4])), n.reshape(6, 4))
    check(tf.expand_dims(t, -1), n[..., None])
    check(tf.squeeze(tf.ones([1, 2, 1])), np.ones([2]))
    check(tf.squeeze(tf.ones([1, 2, 1]), axis=[0]), np.ones([2, 1]))
    check(tf.transpose(t), n.T)
    check(tf.transpose(t, perm=[1, 0, 2]), n.transpose(1, 0, 2))
    check(tf.concat([t, t], axis=1), np.concatenate([n, n], axis=1))
    check(tf.concat([t, n], -1), np.concatenate([n, n], axis=-1))
    check(tf.stack([t, t], axis=1), np.stack([n, n], axis=1))
    parts = tf.split(t, 2, axis=2)
    assert len(parts) == 2
    check(parts[1], n[:, :, 2:])
    parts = tf.split(t, [1, -1], axis=2)
    check(parts[1], n[:, :, 1:])
    check(tf.tile(t, [1, 2, 1]), np.tile(n, (1, 2, 1)))
    check(tf.broadcast_to([1, 2, 3], [2, 3]), np.broadcast_to([1, 2, 3], (2, 3)))
    check(tf.slice(t, [0, 1, 1], [-1, 2, 2]), n[:, 1:3, 1:3])
    check(tf.gather(t, [1, 0, 1], axis=1), n[:, [1, 0, 1]])
    unstacked = tf.unstack(t, axis=1)
    check(unstacked[2], n[:, 2])
    check(tf.shape(t), [2, 3, 4], "int32")
    assert int(tf.rank(t)) == 3 and int(tf.size(t)) == 24


def test_shape_op_errors():
    t = tf.ones([2, 3])
    with pytest.raises(errors.InvalidArgumentError):
        tf.reshape(t, [4, -1])
    with pytest.raises(errors.InvalidArgumentError):
        tf.concat([t, tf.ones([2, 2])], axis=0)
    with pytest.raises(errors.InvalidArgumentError):
        tf.stack([t, tf.ones([3, 2])])
    with pytest.raises(errors.InvalidArgumentError):
        tf.split(t, 2, axis=1)
    with pytest.raises(errors.InvalidArgumentError):
        tf.transpose(t, [0, 0])
    with pytest.raises(errors.InvalidArgumentError):
        tf.broadcast_to(t, [3, 3])
    with pytest.raises(errors.InvalidArgumentError):
        tf.tile(t, [2])
    with pytest.raises(errors.InvalidArgumentError):
        tf.expand_dims(t, 5)
    with pytest.raises(errors.InvalidArgumentError):
        tf.squeeze(t, axis=0)


def test_creation_ops():
    check(tf.zeros([2, 3]), np.zeros((2, 3)), "float32")
    check(tf.ones((2,), dtype=tf.int64), np.ones(2), "int64")
    check(tf.zeros_like(tf.constant([1, 2])), [0, 0], "int32")
    check(tf.ones_like([1.0, 2.0], dtype="bfloat16"), [1, 1], "bfloat16")
    check(tf.fill([2, 2], 7), np.full((2, 2), 7), "int32")
    check(tf.fill([2], 0.5), [0.5, 0.5], "float32")
    check(tf.range(5), np.arange(5), "int32")
    check(tf.range(1, 10, 3), np.arange(1, 10, 3), "int32")
    check(tf.range(5, 0, -2), np.arange(5, 0, -2), "int32")
    check(tf.range(0.0, 1.0, 0.25), np.arange(0, 1, 0.25), "float32")
    check(tf.range(0, 3, dtype=tf.float64), np.arange(3.0), "float64")
    check(tf.range(3, delta=1.5), [0, 1.5], "float32")
    with pytest.raises(errors.InvalidArgumentError):
        tf.range(0, 5, 0)
    check(tf.one_hot([0, 2, 5], 3), np.eye(3, dtype=np.float32)[[0, 2]].tolist() + [[0, 0, 0]], "float32")
    check(tf.one_hot([1], 2, on_value=5, off_value=-1), [[-1, 5]], "int32")
    check(tf.one_hot([1, 0], 2, axis=0, dtype=tf.int64), [[0, 1], [1, 0]], "int64")
    cond = np.array([[True], [False]])
    check(tf.where(cond, [1.0, 2.0], 0.0), np.where(cond, [1.0, 2.0], 0.0), "float32")
    check(tf.where([False, True, True]), [[1], [2]], "int64")
    with pytest.raises(errors.InvalidArgumentError):
        tf.where([True, False], [1, 2, 3], [1])
    x = tf.constant([1, 2])
    check(tf.identity(x), [1, 2], "int32")


@pytest.mark.parametrize("src", DTYPES + ["bool"])
@pytest.mark.parametrize("dst", DTYPES + ["bool"])
def test_cast_matches_numpy(src, dst):
    x = np.array([0, 1, 2, 3], dtype=np_dtype(src)) if src != "bool" else np.array([True, False, True, False])
    expected = x.astype(np.float64).astype(np_dtype(dst)) if dst != "bool" else x.astype(bool)
    check(tf.cast(x, dst), expected, dst)
    check(tf.cast(tf.constant([-1.7, 2.7]), tf.int32), [-1, 2], "int32")


def test_large_inputs_use_the_pool():
    n = np.random.default_rng(3).standard_normal((1024, 1024)).astype(np.float32)
    t = tf.constant(n)
    check(t + t * 2, n + n * 2, rtol=1e-6)
    check(tf.reduce_sum(t, axis=0), n.sum(axis=0), rtol=1e-4)
    check(tf.transpose(t), n.T)
    m = n[:256, :256].astype(np.float64)
    check(tf.matmul(m, m), m @ m, rtol=1e-9)


def test_ops_count_against_device_memory(tpu0):
    with tf.device(tpu0):
        t = tf.ones([256, 256])
        assert t.device.endswith("TPU:0")
        u = t + t
        assert u.device == t.device
        assert tf.reduce_sum(u).device == t.device


def test_kernels_release_the_gil():
    from gil_check import stall_during

    a = tf.constant(np.random.default_rng(4).standard_normal((768, 768)))
    kernel, stamps, longest_gap = stall_during(lambda: tf.matmul(a, a))
    assert stamps > 10
    assert longest_gap < max(0.6 * kernel, 0.02)


def test_ops_from_several_threads_agree():
    from concurrent.futures import ThreadPoolExecutor

    n = np.arange(512 * 512, dtype=np.float32).reshape(512, 512) / 1000
    t = tf.constant(n)

    def work(i):
        return np.asarray(tf.reduce_sum(t * float(i), axis=0))

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(work, range(8)))
    for i, r in enumerate(results):
        np.testing.assert_allclose(r, (n * i).sum(axis=0), rtol=1e-4)


def test_nn_losses_match_numpy():
    rng = np.random.default_rng(5)
    logits = rng.standard_normal((4, 3)).astype(np.float32)
    labels = np.array([0, 2, 1, 2])
    onehot = np.eye(3, dtype=np.float32)[labels]
    logp = logits - logits.max(-1, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(-1, keepdims=True))
    check(tf.nn.softmax_cross_entropy_with_logits(onehot, logits), -(onehot * logp).sum(-1), "float32", rtol=1e-5)
    check(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels.astype(np.int32), logits),
        -logp[range(4), labels],
        "float32",
        rtol=1e-5,
    )
    with pytest.raises(errors.InvalidArgumentError, match="outside the valid range"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(np.array([3], np.int32), logits[:1])
    z = (rng.random((4, 3)) > 0.5).astype(np.float32)
    expected = np.maximum(logits, 0) - logits * z + np.log1p(np.exp(-np.abs(logits)))
    check(tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=logits), expected, "float32", rtol=1e-5)
    check(tf.nn.l2_loss(logits), (logits.astype(np.float64) ** 2).sum() / 2, "float32", rtol=1e-5)
    check(tf.nn.relu6(logits * 10), np.clip(logits * 10, 0, 6), "float32")
    check(tf.nn.leaky_relu(logits), np.where(logits > 0, logits, 0.2 * logits), "float32", rtol=1e-6)


def test_math_composites_match_numpy():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((3, 4)).astype(np.float64)
    check(tf.clip_by_value(x, -0.5, 0.5), np.clip(x, -0.5, 0.5), "float64")
    check(tf.math.squared_difference(x, 1.0), (x - 1) ** 2, rtol=1e-12)
    check(tf.math.reciprocal(x), 1 / x, rtol=1e-12)
    check(tf.math.reduce_variance(x, axis=1), x.var(axis=1), rtol=1e-12)
    check(tf.math.reduce_std(x, axis=0, keepdims=True), x.std(axis=0, keepdims=True), rtol=1e-12)
    big = x * 300
    m = big.max(-1, keepdims=True)
    check(
        tf.math.reduce_logsumexp(big, axis=-1), (np.log(np.exp(big - m).sum(-1, keepdims=True)) + m)[:, 0], rtol=1e-12
    )
    check(tf.math.reduce_logsumexp(x), np.log(np.exp(x).sum()), rtol=1e-12)
    y = np.array([1.0, np.nan, np.inf, 0.0])
    check(tf.math.is_nan(y), np.isnan(y), "bool")
    check(tf.math.is_finite(y), np.isfinite(y), "bool")
    check(tf.math.count_nonzero(y), np.count_nonzero(y), "int64")
    with pytest.raises(TypeError):
        tf.math.is_nan([1, 2])
