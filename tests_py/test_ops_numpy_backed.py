"""sort/argsort, unique, segment ops, cumsum/cumprod, reverse, pad, meshgrid, linspace, searchsorted,
histogram_fixed_width, boolean_mask, tf.bitwise: values from numpy / TF's documented examples, dtypes, errors."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import errors

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.float64])
def test_sort_and_argsort_match_numpy_stable_order(dtype):
    a = RNG.integers(-5, 5, (4, 7)).astype(dtype)
    for axis in (0, 1, -1):
        out = tf.sort(tf.constant(a), axis=axis)
        assert out.dtype == tf.DType(np.dtype(dtype).name)
        np.testing.assert_array_equal(out.numpy(), np.sort(a, axis=axis))
        np.testing.assert_array_equal(tf.argsort(tf.constant(a), axis=axis).numpy(),
                                      np.argsort(a, axis=axis, kind="stable"))
    np.testing.assert_array_equal(tf.sort(tf.constant(a), direction="DESCENDING").numpy(), -np.sort(-a, axis=-1))
    assert tf.argsort(tf.constant(a)).dtype == tf.int32
    with pytest.raises(ValueError, match="ASCENDING"):
        tf.sort(tf.constant(a), direction="UP")
    with pytest.raises(errors.InvalidArgumentError, match="out of range"):
        tf.sort(tf.constant(a), axis=2)


def test_unique_keeps_first_occurrence_order():
    y, idx = tf.unique(tf.constant([1, 1, 2, 4, 4, 4, 7, 8, 8]))
    assert y.numpy().tolist() == [1, 2, 4, 7, 8] and idx.numpy().tolist() == [0, 0, 1, 2, 2, 2, 3, 4, 4]
    y, idx = tf.unique(tf.constant([5.0, 3.0, 5.0]), out_idx=tf.int64)
    assert y.numpy().tolist() == [5.0, 3.0] and idx.dtype == tf.int64 and idx.numpy().tolist() == [0, 1, 0]
    with pytest.raises(errors.InvalidArgumentError, match="1D"):
        tf.unique(tf.constant([[1]]))


def test_segment_reductions():
    data = tf.constant([[1, 2, 3, 4], [4, 3, 2, 1], [5, 6, 7, 8]])
    ids = tf.constant([0, 0, 1])
    assert tf.math.segment_sum(data, ids).numpy().tolist() == [[5, 5, 5, 5], [5, 6, 7, 8]]
    assert tf.math.segment_max(data, ids).numpy().tolist() == [[4, 3, 3, 4], [5, 6, 7, 8]]
    assert tf.math.segment_prod(data, ids).numpy().tolist() == [[4, 6, 6, 4], [5, 6, 7, 8]]
    f = tf.constant([1.0, 2.0, 3.0, 4.0])
    assert tf.math.segment_mean(f, tf.constant([0, 0, 2, 2])).numpy().tolist() == [1.5, 0.0, 3.5]
    assert tf.math.unsorted_segment_sum(tf.constant([1, 2, 3, 4]), tf.constant([0, 2, 0, -1]), 3).numpy().tolist() \
        == [4, 0, 2]
    assert tf.math.unsorted_segment_max(f, tf.constant([1, 1, 0, 0]), 3).numpy()[:2].tolist() == [4.0, 2.0]
    with pytest.raises(errors.InvalidArgumentError, match="not increasing"):
        tf.math.segment_sum(f, tf.constant([1, 0, 0, 0]))
    with pytest.raises(errors.InvalidArgumentError, match="out of range"):
        tf.math.unsorted_segment_sum(f, tf.constant([0, 5, 0, 0]), 3)


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumsum_cumprod_exclusive_reverse(exclusive, reverse):
    a = RNG.integers(1, 4, (3, 4)).astype(np.int64)
    for axis in (0, 1):
        for op, ufunc, ident in ((tf.cumsum, np.cumsum, 0), (tf.math.cumprod, np.cumprod, 1)):
            b = np.flip(a, axis) if reverse else a
            want = ufunc(b, axis=axis)
            if exclusive:
                want = np.concatenate([np.full_like(np.take(want, [0], axis), ident),
                                       np.take(want, range(want.shape[axis] - 1), axis)], axis)
            want = np.flip(want, axis) if reverse else want
            got = op(tf.constant(a), axis=axis, exclusive=exclusive, reverse=reverse)
            assert got.dtype == tf.int64
            np.testing.assert_array_equal(got.numpy(), want)


def test_reverse_and_pad():
    t = tf.constant([[1, 2, 3], [4, 5, 6]])
    assert tf.reverse(t, [1]).numpy().tolist() == [[3, 2, 1], [6, 5, 4]]
    assert tf.reverse(t, [0, -1]).numpy().tolist() == [[6, 5, 4], [3, 2, 1]]
    with pytest.raises(errors.InvalidArgumentError, match="more than once"):
        tf.reverse(t, [1, -1])
    paddings = [[1, 1], [2, 2]]
    assert tf.pad(t, paddings, constant_values=9).numpy()[0].tolist() == [9] * 7
    assert tf.pad(t, paddings, "REFLECT").numpy().tolist()[0] == [6, 5, 4, 5, 6, 5, 4]
    assert tf.pad(t, paddings, "SYMMETRIC").numpy().tolist()[0] == [2, 1, 1, 2, 3, 3, 2]
    with pytest.raises(errors.InvalidArgumentError, match="no greater than"):
        tf.pad(t, [[2, 0], [0, 0]], "REFLECT")
    with pytest.raises(errors.InvalidArgumentError, match="2 columns"):
        tf.pad(t, [[1, 1]])
    with pytest.raises(ValueError, match="CONSTANT"):
        tf.pad(t, paddings, "WRAP")


def test_meshgrid_linspace_searchsorted_histogram():
    x, y = tf.meshgrid([1, 2, 3], [4, 5])
    assert x.numpy().tolist() == [[1, 2, 3], [1, 2, 3]] and y.numpy().tolist() == [[4, 4, 4], [5, 5, 5]]
    assert [g.shape for g in tf.meshgrid([1, 2, 3], [4, 5], indexing="ij")] == [(3, 2), (3, 2)]
    lin = tf.linspace(10.0, 12.0, 3)
    assert lin.dtype == tf.float32 and lin.numpy().tolist() == [10.0, 11.0, 12.0]
    seq = tf.constant([[0, 3, 9, 9, 10], [1, 2, 3, 4, 5]])
    vals = tf.constant([[2, 4, 9], [0, 2, 6]])
    assert tf.searchsorted(seq, vals).numpy().tolist() == [[1, 2, 2], [0, 1, 5]]
    assert tf.searchsorted(seq, vals, side="right").numpy().tolist() == [[1, 2, 4], [0, 2, 5]]
    hist = tf.histogram_fixed_width(tf.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 15]), [0.0, 5.0], nbins=5)
    assert hist.dtype == tf.int32 and hist.numpy().tolist() == [2, 1, 1, 0, 2]
    with pytest.raises(errors.InvalidArgumentError, match="nbins"):
        tf.histogram_fixed_width(tf.constant([1.0]), [0.0, 1.0], nbins=0)


def test_boolean_mask():
    t = tf.constant([[1, 2], [3, 4], [5, 6]])
    assert tf.boolean_mask(t, tf.constant([True, False, True])).numpy().tolist() == [[1, 2], [5, 6]]
    mask2d = tf.constant([[True, False], [False, True], [True, True]])
    assert tf.boolean_mask(t, mask2d).numpy().tolist() == [1, 4, 5, 6]
    assert tf.boolean_mask(t, tf.constant([False, True]), axis=1).numpy().tolist() == [[2], [4], [6]]
    with pytest.raises(ValueError, match="incompatible"):
        tf.boolean_mask(t, tf.constant([True, False]))
    with pytest.raises(TypeError, match="bool"):
        tf.boolean_mask(t, tf.constant([1, 0, 1]))


def test_bitwise_ops_match_numpy():
    a = RNG.integers(-100, 100, 10).astype(np.int32)
    b = RNG.integers(-100, 100, 10).astype(np.int32)
    for op, ref in ((tf.bitwise.bitwise_and, np.bitwise_and), (tf.bitwise.bitwise_or, np.bitwise_or),
                    (tf.bitwise.bitwise_xor, np.bitwise_xor)):
        np.testing.assert_array_equal(op(tf.constant(a), tf.constant(b)).numpy(), ref(a, b))
    np.testing.assert_array_equal(tf.bitwise.invert(tf.constant(a)).numpy(), ~a)
    assert tf.bitwise.left_shift(tf.constant([1, 2]), tf.constant([3, 1])).numpy().tolist() == [8, 4]
    assert tf.bitwise.right_shift(tf.constant([-8, 8]), tf.constant([1, 2])).numpy().tolist() == [-4, 2]
    with pytest.raises(errors.InvalidArgumentError, match="float32"):  # TF 2.21: attr 'T' of float not allowed
        tf.bitwise.bitwise_and(tf.constant([1.0]), tf.constant([1.0]))
    with pytest.raises(errors.InvalidArgumentError, match="int64"):
        tf.bitwise.bitwise_and(tf.constant([1], tf.int32), tf.constant([1], tf.int64))
