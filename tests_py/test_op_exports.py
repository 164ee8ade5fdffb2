"""The top-level op names are listed once (tpustrategy/ops/__init__.py) and re-exported from there."""

from __future__ import annotations

import types

import tpustrategy as tf
from tpustrategy import ops
from tpustrategy.ops import array_ops, complex_ops, einsum_op, gather_scatter_ops, logging_ops, math_ops


def test_ops_all_is_derived_from_the_imports():
    assert ops.__all__ == sorted(ops.__all__)
    # 64 + pad, stop_gradient + einsum, gather_nd, scatter_nd, tensor_scatter_nd_add/sub/update, print, complex
    assert len(ops.__all__) == len(set(ops.__all__)) == 74
    modules = (array_ops, math_ops, einsum_op, gather_scatter_ops, logging_ops, complex_ops)
    for name in ops.__all__:
        value = getattr(ops, name)
        assert callable(value) and not isinstance(value, types.ModuleType), name
        # The layout ops TF also runs on tf.string tensors are wrapped by ops/string_dispatch.py (functools.wraps).
        value = getattr(value, "__wrapped__", value)
        assert any(value is getattr(m, "print_v2" if name == "print" else name, None) for m in modules), name
    assert not {"annotations", "array_ops", "math_ops", "nn_ops"} & set(ops.__all__)


def test_top_level_exports_every_op_once_as_the_same_object():
    assert len(tf.__all__) == len(set(tf.__all__))
    assert set(ops.__all__) <= set(tf.__all__)
    for name in ops.__all__:
        assert getattr(tf, name) is getattr(ops, name), name
    for name in tf.__all__:
        assert hasattr(tf, name), name


def test_star_import_gives_the_public_names():
    namespace: dict = {}
    exec("from tpustrategy import *", namespace)
    assert {"add", "reduce_sum", "zeros_like", "Variable", "distribute", "nest"} <= set(namespace)
    assert namespace["add"] is math_ops.add
    # math-only ops stay in tf.math, as in TensorFlow.
    assert "reduce_logsumexp" not in namespace and tf.math.reduce_logsumexp is math_ops.reduce_logsumexp
