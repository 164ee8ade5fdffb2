"""Tensors and numpy: construction, dtype inference, zero-copy views, copies, reprs."""

from __future__ import annotations

import pickle

import ml_dtypes
import numpy as np
import pytest

import tpustrategy as tf


@pytest.mark.parametrize(
    ("value", "dtype"),
    [
        (1, tf.int32),
        (2**40, tf.int64),
        (1.5, tf.float32),
        (True, tf.bool),
        ([1, 2, 3], tf.int32),
        ([1.0, 2], tf.float32),
        ([[True, False]], tf.bool),
        (np.array([1.0, 2.0]), tf.float64),
        (np.array([1, 2], dtype=np.int64), tf.int64),
        (np.float16(3), tf.float16),
        (np.array([1], dtype=ml_dtypes.bfloat16), tf.bfloat16),
    ],
    ids=["int", "bigint", "float", "bool", "intlist", "floatlist", "boollist", "f64array", "i64array", "f16scalar",
         "bf16array"],
)
def test_dtype_inference_matches_tensorflow(value, dtype):
    t = tf.constant(value)
    assert t.dtype == dtype
    np.testing.assert_array_equal(t.numpy(), np.asarray(value))


def test_explicit_dtype_casts_and_rejects_lossy_python_values():
    assert tf.constant([1, 2], dtype=tf.float32).dtype == tf.float32
    assert tf.constant(3, dtype="float64").numpy() == 3.0
    with pytest.raises(TypeError, match="1.5"):
        tf.constant(1.5, dtype=tf.int32)
    with pytest.raises(TypeError, match="int32"):
        tf.constant(2**40, dtype=tf.int32)


@pytest.mark.parametrize("bad", [None, {"a": 1}, object(), np.array(["a", 1], dtype=object)])
def test_unsupported_types_raise_type_error(bad):
    with pytest.raises(TypeError):
        tf.constant(bad)


def test_ragged_lists_raise_value_error():
    with pytest.raises(ValueError, match="non-rectangular"):
        tf.constant([[1, 2], [3]])


def test_numpy_views_share_memory_and_are_read_only():
    t = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    a = np.asarray(t)
    b = t.numpy()
    assert np.shares_memory(a, b)
    assert a.ctypes.data == t._buffer_address()
    assert not a.flags.writeable and not b.flags.writeable
    with pytest.raises(ValueError):
        a[0, 0] = 7
    m = memoryview(t)
    assert m.readonly and m.shape == (2, 3) and m.format == "f"


def test_views_keep_the_tensor_alive():
    view = np.asarray(tf.constant(np.arange(1000, dtype=np.int64)))
    np.testing.assert_array_equal(view, np.arange(1000))  # the tensor object is gone, its buffer is not


def test_np_array_and_constant_copy():
    source = np.arange(4, dtype=np.float32)
    t = tf.constant(source)
    assert not np.shares_memory(np.asarray(t), source)
    source[0] = 100
    assert t.numpy()[0] == 0  # constant took a copy, as tf.constant does
    copy = np.array(t)
    assert copy.flags.writeable and not np.shares_memory(copy, np.asarray(t))
    copy[1] = -1
    assert t.numpy()[1] == 1


def test_conversion_keeps_identity_zero_copy():
    t = tf.constant([1.0, 2.0])
    assert tf.convert_to_tensor(t) is t
    assert tf.convert_to_tensor(np.asarray(t)) is t
    assert tf.convert_to_tensor(t.numpy()) is t
    with pytest.raises(ValueError, match="requested dtype int32"):
        tf.convert_to_tensor(t, dtype=tf.int32)


def test_non_contiguous_numpy_is_copied_correctly():
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    view = base[::2, 1::2]
    np.testing.assert_array_equal(tf.constant(view).numpy(), view)
    np.testing.assert_array_equal(tf.constant(base.T).numpy(), base.T)


def test_repr_and_str_have_tensorflow_shape():
    assert repr(tf.constant(3.0)) == "<tf.Tensor: shape=(), dtype=float32, numpy=3.0>"
    assert repr(tf.constant([1, 2])) == "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>"
    assert repr(tf.constant([[1], [2], [3], [4]])) == (
        "<tf.Tensor: shape=(4, 1), dtype=int32, numpy=\narray([[1],\n       [2],\n       [3],\n       [4]], "
        "dtype=int32)>"
    )
    assert str(tf.constant([1.5, 2.0])) == "tf.Tensor([1.5 2. ], shape=(2,), dtype=float32)"
    assert repr(tf.float32) == "tf.float32"
    assert str(tf.bfloat16) == "<dtype: 'bfloat16'>"


def test_shape_dtype_and_spec():
    t = tf.constant(np.zeros((2, 3), np.float16))
    assert t.shape == (2, 3) and t.shape.as_list() == [2, 3] and t.shape.rank == 2
    assert t.ndim == 2 and t.dtype == tf.float16 and t.dtype == np.float16 and t.dtype == "float16"
    assert repr(t.shape) == "TensorShape([2, 3])"
    spec = tf.TensorSpec.from_tensor(t)
    assert spec == tf.TensorSpec([2, 3], tf.float16)
    assert tf.TensorSpec([None, 3], tf.float16).is_compatible_with(t)
    assert tf.is_tensor(t) and not tf.is_tensor(np.zeros(1))


def test_constant_shape_argument_broadcasts_or_reshapes():
    np.testing.assert_array_equal(tf.constant(7, shape=(2, 2)).numpy(), np.full((2, 2), 7))
    np.testing.assert_array_equal(tf.constant([1, 2, 3, 4], shape=(2, 2)).numpy(), [[1, 2], [3, 4]])
    with pytest.raises(TypeError, match="cannot take shape"):
        tf.constant([1, 2, 3], shape=(2, 2))


def test_tensors_are_unhashable_but_have_refs():
    t = tf.constant(1)
    with pytest.raises(TypeError, match="unhashable"):
        hash(t)
    assert {t.ref(): 1}[t.ref()] == 1 and t.ref().deref() is t


def test_pickle_round_trip_every_dtype():
    for dtype in [tf.bool, tf.int32, tf.int64, tf.float16, tf.bfloat16, tf.float32, tf.float64]:
        t = tf.constant([1, 0], dtype=dtype)
        back = pickle.loads(pickle.dumps(t))
        assert back.dtype == dtype
        np.testing.assert_array_equal(np.asarray(back), np.asarray(t))


def test_bfloat16_values_are_bit_identical_to_ml_dtypes():
    values = np.array([1.0, 1 + 1 / 256, 1 + 3 / 256, 3.14159, -2.5e-3], dtype=np.float32)
    t = tf.constant(values, dtype=tf.bfloat16)
    expected = values.astype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(np.asarray(t).view(np.uint16), expected.view(np.uint16))


@pytest.mark.parametrize(
    ("scalar", "dtype"),
    [
        (np.float64(2.0), tf.float64),
        (np.float32(2.0), tf.float32),
        (np.int64(3), tf.int64),
        (np.bool_(True), tf.bool),
    ],
    ids=["f64", "f32", "i64", "bool"],
)
def test_numpy_scalars_keep_their_dtype(scalar, dtype):
    # np.float64 is a subclass of Python float; TF keeps float64 for it, so do we.
    t = tf.constant(scalar)
    assert t.dtype == dtype and t.shape == ()
