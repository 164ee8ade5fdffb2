"""tf.add & co. as C entry points and the Tensor operators as plain methods (elementwise_entries.cc,
elementwise_operators.cc): the fast path for Tensor operands gives what the generic path (_core.ops, the facade's
Python function) gives, every other call takes the generic path, and the functions keep TF's signatures."""

from __future__ import annotations

import gc
import inspect
import pickle
import weakref

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import _core, errors
from tpustrategy.ops import _spmd_hook, math_ops

BINARY = ["add", "subtract", "multiply", "divide", "floordiv", "floormod", "pow", "maximum", "minimum", "less",
          "less_equal", "greater", "greater_equal"]
UNARY = ["negative", "abs", "square", "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "floor", "ceil", "sign"]
RNG = np.random.default_rng(7)


def same(got, want):
    assert isinstance(got, tf.Tensor) and got.dtype == want.dtype and got._shape_tuple == want._shape_tuple
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_binary_entry_matches_the_kernel(name, dtype):
    a = tf.constant((RNG.random((3, 4)) * 5 + 1).astype(dtype))
    b = tf.constant((RNG.random((4,)) * 3 + 1).astype(dtype))  # broadcast
    same(getattr(tf.math, name)(a, b), getattr(_core.ops, name)(a, b))
    same(getattr(tf.math, name)(a, b, name="n"), getattr(_core.ops, name)(a, b))
    same(getattr(tf.math, name)(a, 2), getattr(_core.ops, name)(a, 2))  # the number takes a's dtype
    same(getattr(tf.math, name)(3, b), getattr(_core.ops, name)(3, b))


@pytest.mark.parametrize("name", UNARY)
def test_unary_entry_matches_the_kernel(name):
    x = tf.constant((RNG.random((5, 3)) + 0.5).astype(np.float32))
    same(getattr(tf.math, name)(x), getattr(_core.ops, name)(x))
    same(tf.nn.relu(-x), _core.ops.relu(-x))


def test_large_operands_release_the_gil_and_agree():
    a, b = RNG.random((128, 64)).astype(np.float32), RNG.random((128, 64)).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(tf.add(tf.constant(a), tf.constant(b))), a + b)
    np.testing.assert_array_equal(np.asarray(tf.constant(a) * tf.constant(b)), a * b)


def test_other_operands_take_the_generic_path():
    t = tf.constant([1.0, 2.0])
    same(tf.add([1.0, 2.0], t), _core.ops.add(t, t))
    same(tf.add(np.array([1.0, 2.0], np.float32), t), _core.ops.add(t, t))
    same(tf.add(x=t, y=t), _core.ops.add(t, t))
    v = tf.Variable([1.0, 2.0])
    same(tf.add(v, t), _core.ops.add(t, t))
    same(v + 1.0, _core.ops.add(t, 1.0))
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'y'"):
        tf.add(t)
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        tf.add(t, t, z=1)


def test_errors_are_the_kernels():
    a, b = tf.constant([1.0, 2.0]), tf.constant([1, 2])
    for call in (lambda: tf.add(a, b), lambda: a + b, lambda: tf.add(a, tf.constant([1.0, 2.0, 3.0]))):
        with pytest.raises(errors.InvalidArgumentError):
            call()
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        tf.add(b, 1.5)
    with pytest.raises(TypeError, match="unsupported operand"):
        a + "x"  # noqa: B018 (NotImplemented from both sides)
    with pytest.raises(errors.InvalidArgumentError, match="Integer division by zero"):
        b // tf.constant([0, 1])


def test_operators_match_the_ops():
    a = tf.constant(RNG.random((2, 3)).astype(np.float32) + 1)
    b = tf.constant(RNG.random((3,)).astype(np.float32) + 1)
    pairs = [(a + b, tf.add(a, b)), (a - b, tf.subtract(a, b)), (a * b, tf.multiply(a, b)),
             (a / b, tf.divide(a, b)), (a // b, tf.math.floordiv(a, b)), (a % b, tf.math.floormod(a, b)),
             (a**b, tf.pow(a, b)), (2.0 - a, tf.subtract(2.0, a)), (2.0 / a, tf.divide(2.0, a)),
             (a < b, tf.less(a, b)), (a >= b, tf.greater_equal(a, b)), (-a, tf.negative(a))]
    for got, want in pairs:
        same(got, want)
    p, q = tf.constant([True, False]), tf.constant([True, True])
    same(p & q, tf.logical_and(p, q))
    same(True | p, tf.logical_or(True, p))
    with pytest.raises(TypeError, match="takes 1 positional arguments but 0 were given"):
        a.__add__()


def test_gradient_tape_records_the_entries_and_operators():
    x = tf.constant([1.0, -2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.add(tf.nn.relu(x) * x, tf.exp(x)) - x)
    want = np.where(np.asarray(x) > 0, 2 * np.asarray(x), 0) + np.exp(np.asarray(x)) - 1
    np.testing.assert_allclose(np.asarray(tape.gradient(y, x)), want, rtol=1e-6)


def test_a_partitioned_operand_goes_to_the_spmd_partitioner(monkeypatch):
    class Partitioner:
        @staticmethod
        def binary(kind, x, y):
            return ("binary", kind)

        @staticmethod
        def unary(kind, x):
            return ("unary", kind)

    class Sharded:
        _spmd_partitioned = True

    monkeypatch.setattr(_spmd_hook, "active", True)
    monkeypatch.setattr(_spmd_hook, "partitioner", Partitioner)
    t = tf.constant([1.0])
    assert tf.add(Sharded(), t) == ("binary", "add") and tf.maximum(t, Sharded()) == ("binary", "maximum")
    assert tf.nn.relu(Sharded()) == ("unary", "relu") and tf.exp(Sharded()) == ("unary", "exp")
    same(tf.add(t, t), _core.ops.add(t, t))  # Tensors are never partitioned


def test_the_entries_keep_tf_signatures_docs_and_modules():
    assert str(inspect.signature(tf.add)) == "(x, y, name=None)"
    assert str(inspect.signature(tf.nn.relu)) == "(features, name=None)"
    assert tf.add.__name__ == "add" and tf.add.__module__ == "tpustrategy.ops.math_ops"
    assert tf.nn.relu.__module__ == "tpustrategy.ops.nn_ops"
    assert "x + y elementwise" in (tf.add.__doc__ or "") and "max(features, 0)" in (tf.nn.relu.__doc__ or "")
    assert tf.nn.sigmoid is tf.math.sigmoid and tf.nn.tanh is tf.math.tanh  # one function, as in TF
    assert math_ops.add is tf.add is tf.math.add
    for function in (tf.add, tf.nn.relu, tf.exp):  # found again by module and name (pickle, Keras' Lambda)
        assert pickle.loads(pickle.dumps(function)) is function


def test_entry_registration_checks_its_arguments():
    with pytest.raises(ValueError, match="no elementwise op named 'frobnicate'"):
        _core.ops._elementwise_entry("frobnicate", print, module="m", doc="d")
    with pytest.raises(ValueError, match="op 'add' has its entry already"):
        _core.ops._elementwise_entry("add", print, module="m", doc="d")
    with pytest.raises(TypeError, match="fallback must be callable"):
        _core.ops._elementwise_entry("relu", 3, module="m", doc="d")


def test_results_live_and_die_like_other_tensors():
    t = tf.constant(np.arange(6, dtype=np.float32))
    r = tf.add(t, t)
    view = np.asarray(r)
    ref = weakref.ref(r)
    del r
    gc.collect()
    assert ref() is not None  # the numpy view keeps its tensor alive
    np.testing.assert_array_equal(view, 2 * np.arange(6))
    del view
    gc.collect()
    assert ref() is None
    for _ in range(1000):  # results go back to pybind11 functions and are freed without the instance registry
        same(_core.ops.identity(t + t), tf.multiply(t, 2.0))


def test_tensor_operands_take_the_c_path(monkeypatch):
    # The facade's Python functions ask the SPMD hook about every call while it is active; the C entries never do
    # for Tensor operands (a Tensor is never sharded). A recording hook tells the two paths apart.
    asked: list[tuple[object, ...]] = []
    monkeypatch.setattr(_spmd_hook, "active", True)
    monkeypatch.setattr(_spmd_hook, "sharded", lambda *values: asked.append(values) or False)
    t = tf.constant([1.0, 2.0])
    for result in (tf.add(t, t), tf.add(t, 1.0), tf.math.subtract(2, t), tf.exp(t), tf.nn.relu(t), t + t, -t):
        assert isinstance(result, tf.Tensor)
    assert asked == []
    tf.add([1.0, 2.0], t)  # a list operand: the generic path, which asks
    assert len(asked) == 1
