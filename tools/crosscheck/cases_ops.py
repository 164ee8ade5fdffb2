"""Tensor ops on tricky inputs, and tensor reprs."""

from __future__ import annotations

from crosscheck.describe import Repr, error_of
from crosscheck.registry import case


@case()
def integer_floordiv_mod(tf):
    a, b = tf.constant([-7, 7, -7, 7, -1, 0]), tf.constant([2, -2, -2, 2, 3, -3])
    fa, fb = tf.cast(a, tf.float32), tf.cast(b, tf.float32)
    return {"floordiv": tf.math.floordiv(a, b), "op //": a // b, "floormod": tf.math.floormod(a, b), "op %": a % b,
            "float //": fa // fb, "float %": fa % fb, "truediv int": a / b,
            "int div by zero": error_of(lambda: tf.math.floordiv(a, tf.zeros_like(b)))}


@case()
def low_precision_rounding(tf):
    out = {}
    for dtype in (tf.float16, tf.bfloat16):
        x = tf.constant([1.0, 2049.0, 257.0, 0.1, 1.0 / 3.0, 65504.0], dtype)
        out[dtype.name] = {"x": x, "x+1": x + tf.constant(1.0, dtype), "x*3": x * tf.constant(3.0, dtype),
                           "x/3": x / tf.constant(3.0, dtype), "cast f32": tf.cast(x, tf.float32),
                           "sum": tf.reduce_sum(tf.fill([1000], tf.constant(0.1, dtype))),
                           "mean": tf.reduce_mean(x), "exp": tf.exp(tf.constant([0.5, 11.0], dtype))}
    return out


@case()
def softmax_cases(tf):
    return {"f32": tf.nn.softmax(tf.constant([1.0, 2.0, 3.0])),
            "large": tf.nn.softmax(tf.constant([[1000.0, 0.0], [-1000.0, -1000.0]])),
            "f16": tf.nn.softmax(tf.constant([0.1, 0.2, 0.7], tf.float16)),
            "axis0": tf.nn.softmax(tf.constant([[1.0, 2.0], [3.0, 5.0]]), axis=0)}


@case()
def matmul_cases(tf):
    a = tf.reshape(tf.range(6, dtype=tf.float32) / 7.0, (2, 3))
    b = tf.reshape(tf.range(12, dtype=tf.float32) - 5.5, (3, 4))
    return {"f32": tf.matmul(a, b), "transpose_b": tf.matmul(a, a, transpose_b=True),
            "int32": tf.matmul(tf.constant([[1, -2], [3, 4]]), tf.constant([[5, 6], [-7, 8]])),
            "batched": tf.matmul(tf.ones((2, 2, 3)), tf.ones((2, 3, 1))),
            "bf16": tf.matmul(tf.cast(a, tf.bfloat16), tf.cast(b, tf.bfloat16)),
            "shape error": error_of(lambda: tf.matmul(a, a))}


@case()
def reduce_mean_of_ints(tf):
    return {"pos": tf.reduce_mean(tf.constant([1, 2])), "neg": tf.reduce_mean(tf.constant([-1, -2])),
            "axis": tf.reduce_mean(tf.constant([[1, 2, 4], [-3, -4, -6]]), axis=1),
            "int64": tf.reduce_mean(tf.constant([7, 8], tf.int64)),
            "empty f32": tf.reduce_mean(tf.zeros((0,)))}


@case()
def one_hot_cases(tf):
    return {"basic": tf.one_hot([0, 2, -1, 5], 3), "on off": tf.one_hot([1, 0], 2, on_value=5, off_value=-1),
            "axis0": tf.one_hot([0, 1], 3, axis=0), "dtype": tf.one_hot([2], 3, dtype=tf.int32),
            "2d": tf.one_hot([[0, 1], [1, 0]], 2)}


@case()
def strided_slicing(tf):
    x = tf.range(10)
    m = tf.reshape(tf.range(12), (3, 4))
    return {"[::-1]": x[::-1], "[8:1:-2]": x[8:1:-2], "[-1::-3]": x[-1::-3], "[:-4:-1]": x[:-4:-1],
            "[5:1]": x[5:1], "[::-1, 1::2]": m[::-1, 1::2], "[-1]": m[-1], "[:, -1]": m[:, -1],
            "[1:, ::-2]": m[1:, ::-2], "scalar index": x[3], "out of range": error_of(lambda: x[10])}


@case()
def tensor_reprs(tf):
    values = {"f32 scalar": tf.constant(1.5), "f32 vec": tf.constant([1.0, 0.1, -2.5]),
              "f64": tf.constant([1.0 / 3.0], tf.float64), "f16": tf.constant([0.1, 1.0], tf.float16),
              "bf16": tf.constant([0.1, 3.0], tf.bfloat16), "int32": tf.constant([[1, 2], [3, 4]]),
              "int64": tf.constant(7, tf.int64), "bool": tf.constant([True, False]),
              "empty": tf.zeros((0, 3)), "large": tf.range(2000), "large f": tf.ones((40, 40))}
    return {k: {"repr": Repr(repr(v)), "str": Repr(str(v))} for k, v in values.items()}
