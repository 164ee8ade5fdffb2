"""Tensor ops against numpy: dtypes, broadcasting, Python operators, indexing and error types."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import tpustrategy as tps
from tpustrategy import errors

DTYPES = ["int32", "int64", "float16", "bfloat16", "float32", "float64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]


def np_dtype(name):
    return ml_dtypes.bfloat16 if name == "bfloat16" else np.dtype(name)


def arr(values, dtype):
    return np.asarray(values, dtype=np.float64).astype(np_dtype(dtype))


def check(result, expected, dtype=None, rtol=None):
    assert isinstance(result, tps.Tensor)
    expected = np.asarray(expected)
    got = np.asarray(result)
    assert got.shape == expected.shape
    if dtype is not None:
        assert result.dtype == tps.DType(dtype)
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
    check(getattr(tps, op)(tps.constant(a), tps.constant(b)), expected, dtype)


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
    check(getattr(tps, op)(a, b), npop(a, b), "bool")


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_division_rules(dtype):
    a = np.array([7, -7, 7, -7, 0], dtype=dtype)
    b = np.array([2, 2, -2, -2, 3], dtype=dtype)
    check(tps.math.floordiv(a, b), a // b, dtype)
    check(tps.math.floormod(a, b), a % b, dtype)
    check(tps.divide(a, b), a / b, "float64")
    with pytest.raises(errors.InvalidArgumentError, match="Integer division by zero"):
        tps.math.floordiv(a, np.zeros_like(b))
    check(tps.pow(a, np.array(3, dtype=dtype)), a**3, dtype)
    with pytest.raises(errors.InvalidArgumentError):
        tps.pow(a, np.array(-1, dtype=dtype))


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
    fn = getattr(tps.math, op)
    check(fn(tps.constant(x)), expected, dtype, rtol=rtol)


@pytest.mark.parametrize("op", ["exp", "log", "sqrt", "tanh", "sigmoid"])
@pytest.mark.parametrize("dtype", ["int32", "int64", "bool"])
def test_float_only_ops_reject_other_dtypes(op, dtype):
    with pytest.raises(TypeError):
        getattr(tps.math, op)(tps.zeros([2], dtype))


def test_relu_and_softmax():
    x = np.array([[-1.0, 0.0, 2.0], [1000.0, 1000.0, -1000.0]], np.float32)
    check(tps.nn.relu(x), np.maximum(x, 0), "float32")
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    check(tps.nn.softmax(x), e / e.sum(axis=-1, keepdims=True), "float32", rtol=1e-6)
    e0 = np.exp(x - x.max(axis=0, keepdims=True))
    check(tps.nn.softmax(x, axis=0), e0 / e0.sum(axis=0, keepdims=True), "float32", rtol=1e-6)
    with np.errstate(over="ignore"):
        expected = 1 / (1 + np.exp(-x.astype(np.float64)))
    check(tps.nn.sigmoid(x), expected, "float32", rtol=1e-6)


def test_python_operators():
    a = tps.constant([[1.0, 2.0], [3.0, 4.0]])
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
    b = tps.constant([True, False])
    check(b & True, [True, False])
    check(b | False, [True, False])
    check(~b, [False, True])
    assert (a == "text") is False
    assert (a != None) is True  # noqa: E711
    assert (a == tps.constant([1.0, 2.0, 3.0])) is False  # incompatible shapes compare unequal


def test_python_scalars_take_the_tensor_dtype():
    i = tps.constant([1, 2, 3])
    assert (i + 1).dtype == tps.int32
    assert (2 * tps.constant([1.0], tps.float16)).dtype == tps.float16
    assert (i / 2).dtype == tps.float64
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
        tps.add(tps.constant([1.0]), tps.constant([1]))
    with pytest.raises(errors.InvalidArgumentError, match=r"Incompatible shapes: \[2,3\] vs. \[2\]"):
        tps.ones([2, 3]) + tps.ones([2])
    with pytest.raises(ValueError):  # InvalidArgumentError is a ValueError
        tps.ones([2, 3]) * tps.ones([4])
    with pytest.raises(TypeError):
        tps.constant([True]) + tps.constant([False])


def test_len_iter_and_scalar_conversions():
    t = tps.constant([[1, 2], [3, 4], [5, 6]])
    assert len(t) == 3
    rows = list(t)
    assert len(rows) == 3
    check(rows[2], [5, 6], "int32")
    s = tps.constant(3)
    assert int(s) == 3 and float(s) == 3.0 and bool(s) is True
    assert [10, 20, 30, 40][s] == 40  # __index__
    assert bool(tps.constant(0.0)) is False
    assert float(tps.constant([2.5])) == 2.5
    with pytest.raises(ValueError):
        bool(t)
    with pytest.raises(TypeError):
        len(s)
    with pytest.raises(TypeError):
        iter(s)
    with pytest.raises(TypeError):
        int(t)
    with pytest.raises(TypeError):
        [1, 2][tps.constant(1.0)]
    assert list(tps.zeros([0, 2])) == []


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
    check(tps.constant(n)[key], n[key], "float32")


def test_getitem_errors():
    t = tps.reshape(tps.range(12), [3, 4])
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
    check(t[tps.constant(1)], np.arange(4, 8))
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
        check(getattr(tps, name)(x, axis=axis, keepdims=keepdims), expected, dtype, rtol=rtol)
    mean = tps.reduce_mean(x, axis=axis, keepdims=keepdims)
    if dtype.startswith("int"):
        s = np.sum(x, axis=np_axis, keepdims=keepdims)
        count = x.size // max(s.size, 1)
        check(mean, s // count, dtype)
    else:
        check(mean, np.mean(xf, axis=np_axis, keepdims=keepdims), dtype, rtol=rtol)


def test_reduction_errors_and_bool():
    with pytest.raises(errors.InvalidArgumentError):
        tps.reduce_sum(tps.ones([2, 2]), axis=2)
    with pytest.raises(TypeError):
        tps.reduce_sum(tps.constant([True]))
    b = np.array([[True, False], [False, False]])
    check(tps.reduce_any(b, axis=1), b.any(axis=1), "bool")
    check(tps.reduce_all(b), b.all(), "bool")


def test_argmax_argmin():
    x = np.array([[1, 9, 3], [7, 2, 9]], np.float32)
    check(tps.argmax(x, axis=1), np.argmax(x, axis=1), "int64")
    check(tps.argmax(x), np.argmax(x, axis=0), "int64")
    check(tps.argmin(x, axis=-1, output_type=tps.int32), np.argmin(x, axis=-1), "int32")
    with pytest.raises(errors.InvalidArgumentError):
        tps.argmax(x, axis=2)


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
    check(tps.matmul(a, b), expected, dtype, rtol=1e-2 if dtype in ("float16", "bfloat16") else 1e-9)


def test_matmul_transposes_and_errors():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    check(tps.matmul(a, a, transpose_b=True), a @ a.T, "float64")
    check(tps.linalg.matmul(a, a, transpose_a=True), a.T @ a)
    check(tps.matmul(a, a, adjoint_b=True), a @ a.T)
    with pytest.raises(errors.InvalidArgumentError, match=r"size-incompatible: In\[0\]: \[2,3\], In\[1\]: \[2,3\]"):
        tps.matmul(a, a)
    with pytest.raises(errors.InvalidArgumentError):
        tps.matmul([1.0, 2.0], [[1.0], [2.0]])
    with pytest.raises(TypeError):
        tps.matmul([[True]], [[True]])


def test_shape_ops_match_numpy():
    n = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    t = tps.constant(n)
    check(tps.reshape(t, [4, -1]), n.reshape(4, -1), "int32")
    check(tps.reshape(t, tps.constant([6, 4])), n.reshape(6, 4))
    check(tps.expand_dims(t, -1), n[..., None])
    check(tps.squeeze(tps.ones([1, 2, 1])), np.ones([2]))
    check(tps.squeeze(tps.ones([1, 2, 1]), axis=[0]), np.ones([2, 1]))
    check(tps.transpose(t), n.T)
    check(tps.transpose(t, perm=[1, 0, 2]), n.transpose(1, 0, 2))
    check(tps.concat([t, t], axis=1), np.concatenate([n, n], axis=1))
    check(tps.concat([t, n], -1), np.concatenate([n, n], axis=-1))
    check(tps.stack([t, t], axis=1), np.stack([n, n], axis=1))
    parts = tps.split(t, 2, axis=2)
    assert len(parts) == 2
    check(parts[1], n[:, :, 2:])
    parts = tps.split(t, [1, -1], axis=2)
    check(parts[1], n[:, :, 1:])
    check(tps.tile(t, [1, 2, 1]), np.tile(n, (1, 2, 1)))
    check(tps.broadcast_to([1, 2, 3], [2, 3]), np.broadcast_to([1, 2, 3], (2, 3)))
    check(tps.slice(t, [0, 1, 1], [-1, 2, 2]), n[:, 1:3, 1:3])
    check(tps.gather(t, [1, 0, 1], axis=1), n[:, [1, 0, 1]])
    unstacked = tps.unstack(t, axis=1)
    check(unstacked[2], n[:, 2])
    check(tps.shape(t), [2, 3, 4], "int32")
    assert int(tps.rank(t)) == 3 and int(tps.size(t)) == 24


def test_shape_op_errors():
    t = tps.ones([2, 3])
    with pytest.raises(errors.InvalidArgumentError):
        tps.reshape(t, [4, -1])
    with pytest.raises(errors.InvalidArgumentError):
        tps.concat([t, tps.ones([2, 2])], axis=0)
    with pytest.raises(errors.InvalidArgumentError):
        tps.stack([t, tps.ones([3, 2])])
    with pytest.raises(errors.InvalidArgumentError):
        tps.split(t, 2, axis=1)
    with pytest.raises(errors.InvalidArgumentError):
        tps.transpose(t, [0, 0])
    with pytest.raises(errors.InvalidArgumentError):
        tps.broadcast_to(t, [3, 3])
    with pytest.raises(errors.InvalidArgumentError):
        tps.tile(t, [2])
    with pytest.raises(errors.InvalidArgumentError):
        tps.expand_dims(t, 5)
    with pytest.raises(errors.InvalidArgumentError):
        tps.squeeze(t, axis=0)


def test_creation_ops():
    check(tps.zeros([2, 3]), np.zeros((2, 3)), "float32")
    check(tps.ones((2,), dtype=tps.int64), np.ones(2), "int64")
    check(tps.zeros_like(tps.constant([1, 2])), [0, 0], "int32")
    check(tps.ones_like([1.0, 2.0], dtype="bfloat16"), [1, 1], "bfloat16")
    check(tps.fill([2, 2], 7), np.full((2, 2), 7), "int32")
    check(tps.fill([2], 0.5), [0.5, 0.5], "float32")
    check(tps.range(5), np.arange(5), "int32")
    check(tps.range(1, 10, 3), np.arange(1, 10, 3), "int32")
    check(tps.range(5, 0, -2), np.arange(5, 0, -2), "int32")
    check(tps.range(0.0, 1.0, 0.25), np.arange(0, 1, 0.25), "float32")
    check(tps.range(0, 3, dtype=tps.float64), np.arange(3.0), "float64")
    check(tps.range(3, delta=1.5), [0, 1.5], "float32")
    with pytest.raises(errors.InvalidArgumentError):
        tps.range(0, 5, 0)
    check(tps.one_hot([0, 2, 5], 3), np.eye(3, dtype=np.float32)[[0, 2]].tolist() + [[0, 0, 0]], "float32")
    check(tps.one_hot([1], 2, on_value=5, off_value=-1), [[-1, 5]], "int32")
    check(tps.one_hot([1, 0], 2, axis=0, dtype=tps.int64), [[0, 1], [1, 0]], "int64")
    cond = np.array([[True], [False]])
    check(tps.where(cond, [1.0, 2.0], 0.0), np.where(cond, [1.0, 2.0], 0.0), "float32")
    check(tps.where([False, True, True]), [[1], [2]], "int64")
    with pytest.raises(errors.InvalidArgumentError):
        tps.where([True, False], [1, 2, 3], [1])
    x = tps.constant([1, 2])
    check(tps.identity(x), [1, 2], "int32")


@pytest.mark.parametrize("src", DTYPES + ["bool"])
@pytest.mark.parametrize("dst", DTYPES + ["bool"])
def test_cast_matches_numpy(src, dst):
    x = np.array([0, 1, 2, 3], dtype=np_dtype(src)) if src != "bool" else np.array([True, False, True, False])
    expected = x.astype(np.float64).astype(np_dtype(dst)) if dst != "bool" else x.astype(bool)
    check(tps.cast(x, dst), expected, dst)
    check(tps.cast(tps.constant([-1.7, 2.7]), tps.int32), [-1, 2], "int32")


def test_large_inputs_use_the_pool():
    n = np.random.default_rng(3).standard_normal((1024, 1024)).astype(np.float32)
    t = tps.constant(n)
    check(t + t * 2, n + n * 2, rtol=1e-6)
    check(tps.reduce_sum(t, axis=0), n.sum(axis=0), rtol=1e-4)
    check(tps.transpose(t), n.T)
    m = n[:256, :256].astype(np.float64)
    check(tps.matmul(m, m), m @ m, rtol=1e-9)


def test_ops_count_against_device_memory(tpu0):
    with tps.device(tpu0):
        t = tps.ones([256, 256])
        assert t.device.endswith("TPU:0")
        u = t + t
        assert u.device == t.device
        assert tps.reduce_sum(u).device == t.device


def test_kernels_release_the_gil():
    from gil_check import stall_during

    a = tps.constant(np.random.default_rng(4).standard_normal((768, 768)))
    kernel, stamps, longest_gap = stall_during(lambda: tps.matmul(a, a))
    assert stamps > 10
    assert longest_gap < max(0.6 * kernel, 0.02)


def test_ops_from_several_threads_agree():
    from concurrent.futures import ThreadPoolExecutor

    n = np.arange(512 * 512, dtype=np.float32).reshape(512, 512) / 1000
    t = tps.constant(n)

    def work(i):
        return np.asarray(tps.reduce_sum(t * float(i), axis=0))

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
    check(tps.nn.softmax_cross_entropy_with_logits(onehot, logits), -(onehot * logp).sum(-1), "float32", rtol=1e-5)
    check(
        tps.nn.sparse_softmax_cross_entropy_with_logits(labels.astype(np.int32), logits),
        -logp[range(4), labels],
        "float32",
        rtol=1e-5,
    )
    with pytest.raises(errors.InvalidArgumentError, match="outside the valid range"):
        tps.nn.sparse_softmax_cross_entropy_with_logits(np.array([3], np.int32), logits[:1])
    z = (rng.random((4, 3)) > 0.5).astype(np.float32)
    expected = np.maximum(logits, 0) - logits * z + np.log1p(np.exp(-np.abs(logits)))
    check(tps.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=logits), expected, "float32", rtol=1e-5)
    check(tps.nn.l2_loss(logits), (logits.astype(np.float64) ** 2).sum() / 2, "float32", rtol=1e-5)
    check(tps.nn.relu6(logits * 10), np.clip(logits * 10, 0, 6), "float32")
    check(tps.nn.leaky_relu(logits), np.where(logits > 0, logits, 0.2 * logits), "float32", rtol=1e-6)


def test_math_composites_match_numpy():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((3, 4)).astype(np.float64)
    check(tps.clip_by_value(x, -0.5, 0.5), np.clip(x, -0.5, 0.5), "float64")
    check(tps.math.squared_difference(x, 1.0), (x - 1) ** 2, rtol=1e-12)
    check(tps.math.reciprocal(x), 1 / x, rtol=1e-12)
    check(tps.math.reduce_variance(x, axis=1), x.var(axis=1), rtol=1e-12)
    check(tps.math.reduce_std(x, axis=0, keepdims=True), x.std(axis=0, keepdims=True), rtol=1e-12)
    big = x * 300
    m = big.max(-1, keepdims=True)
    check(
        tps.math.reduce_logsumexp(big, axis=-1), (np.log(np.exp(big - m).sum(-1, keepdims=True)) + m)[:, 0], rtol=1e-12
    )
    check(tps.math.reduce_logsumexp(x), np.log(np.exp(x).sum()), rtol=1e-12)
    y = np.array([1.0, np.nan, np.inf, 0.0])
    check(tps.math.is_nan(y), np.isnan(y), "bool")
    check(tps.math.is_finite(y), np.isfinite(y), "bool")
    check(tps.math.count_nonzero(y), np.count_nonzero(y), "int64")
    with pytest.raises(TypeError):
        tps.math.is_nan([1, 2])
