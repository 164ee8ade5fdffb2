"""The extended dtypes (uint8, int8, int16, uint16, uint32, uint64, complex64): construction, casts, wrapping
arithmetic, the division family, reductions, complex parts and products, bitwise ops, decode_raw,
convert_image_dtype, the errors TF raises for kernels it does not register, and a uint8 all_reduce.

The TF side is stored in tests_py/data/crosscheck_dtypes_tf.json (`crosscheck_tf.py -k cases_dtypes
--write-reference tests_py/data/crosscheck_dtypes_tf.json`); tests_py/test_crosscheck_dtypes.py checks it
without TensorFlow.
"""

from __future__ import annotations

from crosscheck.describe import error_of
from crosscheck.registry import MIRRORED, case

_INTS = ("uint8", "int8", "int16", "uint16", "uint32", "uint64")


@case()
def dtypes_properties(tf):
    out = {}
    for name in (*_INTS, "complex64"):
        d = getattr(tf, name)
        out[name] = {"size": d.size, "is_integer": d.is_integer, "is_unsigned": d.is_unsigned,
                     "is_complex": d.is_complex, "is_floating": d.is_floating, "real_dtype": d.real_dtype.name,
                     "numpy": d.as_numpy_dtype.__name__, "min": error_of(lambda d=d: d.min),
                     "max": error_of(lambda d=d: d.max)}
    return out


@case()
def dtypes_construction(tf):
    return {
        "wrap_minus_one": tf.constant(-1, tf.uint8),
        "wrap_256": tf.constant(256, tf.uint8),
        "list_int16": tf.constant([[1, -2], [3, 32767]], tf.int16),
        "uint64_big": tf.constant([2**63 + 5], tf.uint64),
        "complex": tf.constant([1 + 2j, -3 + 0.5j], tf.complex64),
        "zeros_uint8": tf.zeros([2], tf.uint8),
        "ones_int8": tf.ones([2], tf.int8),
    }


@case()
def dtypes_casts(tf):
    f = tf.constant([-1.5, 255.7, 300.0, float("nan"), 0.5])
    i = tf.constant([-129, -1, 128, 256, 300, 70000])
    c = tf.constant([1.7 + 2j, 2j, 0j, -3.5 - 1j], tf.complex64)
    out = {f"f32->{n}": tf.cast(f, getattr(tf, n)) for n in ("uint8", "int8", "int16", "uint16")}
    out.update({f"i32->{n}": tf.cast(i, getattr(tf, n)) for n in _INTS})
    out.update({f"c64->{n}": tf.cast(c, getattr(tf, n)) for n in ("float32", "float64", "int32", "bool", "uint8")})
    out["bool->uint8"] = tf.cast(tf.constant([True, False]), tf.uint8)
    out["f32->c64"] = tf.cast(tf.constant([1.5, -2.0]), tf.complex64)
    out["uint8->f32/255"] = tf.cast(tf.constant([0, 3, 250, 255], tf.uint8), tf.float32) / 255.0
    out["uint16->int8"] = tf.cast(tf.constant([65535, 128], tf.uint16), tf.int8)
    return out


@case()
def dtypes_arithmetic(tf):
    out = {}
    for name in _INTS:
        d = getattr(tf, name)
        a = tf.constant([250, 3, 7, 100], d)
        b = tf.constant([10, 2, 1, 3], d)
        out[name] = {"add": a + b, "sub": b - a, "mul": a * a, "floordiv": a // b, "mod": a % b, "div": a / b,
                     "max": tf.maximum(a, b), "less": a < b, "square": tf.square(a), "add_py": a + 300,
                     "sum": tf.reduce_sum(a), "mean": tf.reduce_mean(a), "prod": tf.reduce_prod(a),
                     "max_r": tf.reduce_max(a), "min_r": tf.reduce_min(a),
                     "neg": error_of(lambda a=a: -a), "abs": error_of(lambda a=a: tf.abs(a)),
                     "div0": error_of(lambda a=a, d=d: a // tf.constant([0, 1, 1, 1], d))}
    s8 = tf.constant([-7, -128, 7, -1], tf.int8)
    t8 = tf.constant([2, -1, -2, 3], tf.int8)
    out["int8_signed"] = {"floordiv": s8 // t8, "mod": s8 % t8, "neg": -s8, "abs": tf.abs(s8), "sign": tf.sign(s8)}
    out["mixed"] = error_of(lambda: tf.constant([1], tf.uint8) + tf.constant([1]))
    out["exp_uint8"] = error_of(lambda: tf.exp(tf.constant([1], tf.uint8)))
    return out


@case()
def dtypes_complex(tf):
    c = tf.constant([1 + 2j, -3 + 0.5j], tf.complex64)
    d = tf.constant([1j, 2 + 0j], tf.complex64)
    return {
        "add": c + d, "sub": c - d, "mul": c * d, "eq": tf.equal(c, c), "neg": -c, "square": tf.square(c),
        "abs": tf.abs(c), "real": tf.math.real(c), "imag": tf.math.imag(c), "conj": tf.math.conj(c),
        "angle": tf.math.angle(c), "sum": tf.reduce_sum(c), "prod": tf.reduce_prod(c),
        "real_f32": tf.math.real(tf.constant([1.5])), "imag_f32": tf.math.imag(tf.constant([1.5])),
        "angle_f32": tf.math.angle(tf.constant([-1.5, 2.0])),
        "complex": tf.complex(tf.constant([1.0, 2.0]), tf.constant([3.0, -4.0])),
        "complex_mixed": error_of(lambda: tf.complex(tf.constant([1.0]), tf.constant([2.0], tf.float64))),
        "complex_int": error_of(lambda: tf.complex(tf.constant([1]), tf.constant([2]))),
        "matmul": tf.matmul(tf.reshape(c, [1, 2]), tf.reshape(d, [2, 1])),
        "matmul_tb": tf.matmul(tf.reshape(c, [1, 2]), tf.reshape(d, [1, 2]), transpose_b=True),
        "less": error_of(lambda: tf.less(c, c)),
        "reduce_max": error_of(lambda: tf.reduce_max(c)),
        "floordiv": error_of(lambda: c // c),
    }


@case()
def dtypes_bitwise(tf):
    u8 = tf.constant([250, 3, 7], tf.uint8)
    i8 = tf.constant([-128, 64, 5], tf.int8)
    return {
        "and": tf.bitwise.bitwise_and(u8, tf.constant([15, 1, 3], tf.uint8)),
        "or": tf.bitwise.bitwise_or(i8, tf.constant([1, 1, 2], tf.int8)),
        "xor": tf.bitwise.bitwise_xor(u8, tf.constant([255, 255, 0], tf.uint8)),
        "invert_u8": tf.bitwise.invert(u8), "invert_i8": tf.bitwise.invert(i8),
        "lshift": tf.bitwise.left_shift(u8, tf.constant([1, 9, 0], tf.uint8)),
        "rshift": tf.bitwise.right_shift(i8, tf.constant([1, 9, -1], tf.int8)),
        "lshift_u16": tf.bitwise.left_shift(tf.constant([3], tf.uint16), tf.constant([15], tf.uint16)),
    }


@case()
def dtypes_decode_and_images(tf):
    convert = tf.image.convert_image_dtype
    return {
        "decode_u8": tf.io.decode_raw(tf.constant([b"\x01\x02\xff", b"abc"]), tf.uint8),
        "decode_i16": tf.io.decode_raw(tf.constant([b"\x01\x02\xff\xff"]), tf.int16),
        "decode_u16_be": tf.io.decode_raw(tf.constant([b"\x01\x02"]), tf.uint16, little_endian=False),
        "u8->f32": convert(tf.constant([[0, 128, 255]], tf.uint8), tf.float32),
        "f32->u8": convert(tf.constant([[0.0, 0.5, 1.0]]), tf.uint8),
        "f32->u8_sat": convert(tf.constant([[-0.5, 1.5]]), tf.uint8, saturate=True),
        "u8->u16": convert(tf.constant([[1, 255]], tf.uint8), tf.uint16),
        "u16->u8": convert(tf.constant([[257, 65535]], tf.uint16), tf.uint8),
        "i8->f32": convert(tf.constant([[-128, 127]], tf.int8), tf.float32),
        "f32->i16": convert(tf.constant([[-1.0, 0.5, 1.0]]), tf.int16),
        "u8->i32": convert(tf.constant([[1, 255]], tf.uint8), tf.int32),
    }


@case()
def dtypes_mnist_pipeline(tf):
    import numpy as np

    images = (np.arange(24, dtype=np.int64) * 37 % 256).astype(np.uint8).reshape(6, 2, 2)
    labels = np.array([1, 2, 3, 4, 5, 6], np.uint8)
    ds = tf.data.Dataset.from_tensor_slices((images, labels))
    ds = ds.map(lambda x, y: (tf.cast(x, tf.float32) / 255.0, tf.cast(y, tf.int64))).batch(4)
    return {"spec": [str(s.dtype.name) for s in ds.element_spec], "batches": list(ds)}


@case(kinds=(MIRRORED,))
def dtypes_all_reduce(tf, strategy):
    def fn(dtype):
        rid = tf.distribute.get_replica_context().replica_id_in_sync_group
        row = tf.constant([[200, 1], [100, 2], [7, 250]])[rid]
        return tf.distribute.get_replica_context().all_reduce("SUM", tf.cast(row, dtype))

    def value(dtype):
        rid = tf.distribute.get_replica_context().replica_id_in_sync_group
        return tf.cast(tf.constant([[200, 1], [100, 2], [7, 250]])[rid], dtype)

    out = {}
    for name in ("uint8", "int16", "complex64"):
        s = strategy(3)  # a fresh strategy per dtype (TF's collectives key instances by dtype)
        dtype = getattr(tf, name)
        # Strategy.reduce takes every dtype (and wraps); replica-context all_reduce only TF's collective dtypes.
        out[f"{name} reduce"] = error_of(lambda s=s, d=dtype: s.reduce("SUM", s.run(value, args=(d,)), axis=None))
        out[f"{name} all_reduce"] = error_of(lambda s=s, d=dtype: s.experimental_local_results(
            s.run(fn, args=(d,)))[0])
    return out
