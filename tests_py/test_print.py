"""tf.print: TF 2.21's text for tensors and structures (expected strings observed with TF 2.21), streams,
and replica order inside strategy.run."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import tpustrategy as tf


def printed(*args, **kwargs):
    lines = []
    tf.print(*args, output_stream=lines.append, **kwargs)
    return lines[0]


@pytest.mark.parametrize("value,text", [
    (lambda: tf.constant(3), "3"),
    (lambda: tf.constant(3.5), "3.5"),
    (lambda: tf.constant([1.5, 2.0, 3.25]), "[1.5 2 3.25]"),
    (lambda: tf.constant(np.arange(12).reshape(3, 4)), "[[0 1 2 3]\n [4 5 6 7]\n [8 9 10 11]]"),
    (lambda: tf.range(10), "[0 1 2 ... 7 8 9]"),
    (lambda: tf.constant(True), "1"),
    (lambda: tf.constant([True, False]), "[1 0]"),
    (lambda: tf.constant(1e-8), "1e-08"),
    (lambda: tf.constant(123456789.0), "123456792"),
    (lambda: tf.constant([1e10, 1.0]), "[1e+10 1]"),
    (lambda: tf.constant([0.1, 0.2], tf.float64), "[0.1 0.2]"),
    (lambda: tf.constant(1.0 / 3, tf.float64), "0.33333333333333331"),
    (lambda: tf.constant(np.float16(0.1)), "0.0999755859"),
    (lambda: tf.constant([], tf.float32), "[]"),
    (lambda: tf.constant(-0.0), "-0"),
    (lambda: tf.constant([np.nan, np.inf, -np.inf]), "[nan inf -inf]"),
    (lambda: tf.constant(2 ** 40, tf.int64), "1099511627776"),
    (lambda: tf.constant([[1.5]]), "[[1.5]]"),
    (lambda: tf.constant(0.123456789), "0.123456791"),
])
def test_tensor_text_as_tensorflow(value, text):
    assert printed(value()) == text


def test_summarize_and_high_rank():
    assert printed(tf.range(10), summarize=2) == "[0 1 ... 8 9]"
    assert printed(tf.range(10), summarize=-1) == "[0 1 2 3 4 5 6 7 8 9]"
    cube = printed(tf.reshape(tf.range(60), [3, 4, 5]))
    assert cube.startswith("[[[0 1 2 3 4]\n  [5 6 7 8 9]\n  [10 11 12 13 14]\n  [15 16 17 18 19]]\n\n [[20 21")
    big = printed(tf.reshape(tf.range(200), [20, 10]))
    assert big.split("\n")[:4] == ["[[0 1 2 ... 7 8 9]", " [10 11 12 ... 17 18 19]", " [20 21 22 ... 27 28 29]",
                                   " ..."]


def test_structures_sep_end_and_python_values():
    assert printed({"a": tf.constant([1, 2]), "b": 2.5}) == "{'a': [1 2], 'b': 2.5}"
    assert printed([tf.constant(1), "x", (2, 3)]) == "[1, 'x', (2, 3)]"
    assert printed(None) == "None"
    assert printed(np.array([1, 2])) == "array([1, 2])"


def test_streams(capsys, tmp_path):
    tf.print("loss:", tf.constant(0.123456789), "step", 3, sep="|", end="<END>\n", output_stream=sys.stdout)
    assert capsys.readouterr().out == "loss:|0.123456791|step|3<END>\n"
    tf.print(tf.constant([1, 2]))
    assert capsys.readouterr().err == "[1 2]\n"  # the default stream is stderr, as TF
    path = tmp_path / "log.txt"
    tf.print("a", output_stream=f"file://{path}")
    tf.print("b", output_stream=f"file://{path}")
    assert path.read_text() == "a\nb\n"
    with pytest.raises(ValueError):
        tf.print("x", output_stream=3)
    with pytest.raises(ValueError):
        tf.print("x", bad_option=1)


def test_replicas_print_in_replica_order(capsys):
    strategy = tf.distribute.MirroredStrategy([f"TPU:{i}" for i in range(8)])
    n = strategy.num_replicas_in_sync

    def step():
        ctx = tf.distribute.get_replica_context()
        rid = ctx.replica_id_in_sync_group
        tf.print("before", rid, output_stream=sys.stdout)
        total = ctx.all_reduce(tf.distribute.ReduceOp.SUM, tf.constant(1.0))
        tf.print("after", rid, total, output_stream=sys.stdout)

    strategy.run(step)
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"before {i}" for i in range(n)] + [f"after {i} {n}" for i in range(n)]


def test_distributed_values_print_as_tensorflow():
    # observed with TF 2.21 (MirroredStrategy over two logical CPUs)
    strategy = tf.distribute.MirroredStrategy(["TPU:0", "TPU:1"])
    pr = strategy.run(lambda: tf.distribute.get_replica_context().replica_id_in_sync_group + tf.constant([1, 2]))
    expected = ("PerReplica:{\n"
                "  0: <tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>,\n"
                "  1: <tf.Tensor: shape=(2,), dtype=int32, numpy=array([2, 3], dtype=int32)>\n"
                "}")
    assert printed(pr) == expected
    assert printed("v", [pr]) == "v [" + expected + "]"
    with strategy.scope():
        v = tf.Variable(1.5)
    assert printed(v) == "1.5"
