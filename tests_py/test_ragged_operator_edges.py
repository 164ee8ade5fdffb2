"""RaggedTensor ==, != and slicing beyond the TF cross-check (tests_py/test_crosscheck_ragged_ops.py): broadcasting
against dense operands keeps the ragged rows, errors are typed and name the shapes, and RaggedTensors stay usable as
dict keys (identity hash)."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf


def test_compare_with_a_column_broadcasts_over_each_row():
    rt = tf.ragged.constant([[1, 2], [3]])
    assert (rt == tf.constant([[1], [3]])).to_list() == [[True, False], [True]]
    assert (tf.constant([[1], [3]]) != rt).to_list() == [[False, True], [False]]


def test_compare_with_a_dense_row_of_other_lengths_is_false_not_an_error():
    rt = tf.ragged.constant([[1, 2], [3]])
    assert (rt == tf.constant([1, 3])) is False and (rt != tf.constant([1, 3])) is True


def test_arithmetic_with_dense_operands_of_the_wrong_shape_names_both_shapes():
    rt = tf.ragged.constant([[1, 2], [3]])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape \[3, 1\].*\(2, None\)"):
        rt + tf.constant([[1], [2], [3]])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"size 2.*lengths \[1, 2\]"):
        rt * tf.constant([1, 2])


def test_broadcast_keeps_the_dense_operands_dtype_and_the_row_partition():
    rt = tf.ragged.constant([[1.0, 2.0], [], [3.0]])
    out = rt + tf.constant([[0.5], [1.5], [2.5]])
    assert out.dtype == tf.float32 and out.row_splits.numpy().tolist() == [0, 2, 2, 3]
    assert out.to_list() == [[1.5, 2.5], [], [5.5]]


def test_step_slices_keep_values_and_dtype():
    rt = tf.ragged.constant([[1.5, 2.5], [], [3.5, 4.5, 5.5]])
    assert rt[::-2].to_list() == [[3.5, 4.5, 5.5], [1.5, 2.5]]
    assert rt[:, ::-2].to_list() == [[2.5], [], [5.5, 3.5]]
    assert rt[::2].dtype == rt.dtype and rt[0:0].to_list() == []


def test_ellipsis_then_an_index_into_a_ragged_dimension_is_tfs_error():
    with pytest.raises(ValueError, match="Cannot index into an inner ragged dimension"):
        tf.ragged.constant([[1]])[..., 0]


def test_newaxis_inserts_uniform_dimensions_of_size_one():
    rt = tf.ragged.constant([[1, 2, 3], [4, 5]])
    assert rt[tf.newaxis].shape.as_list() == [1, 2, None]
    assert rt[:, tf.newaxis].shape.as_list() == [2, 1, None]
    assert rt[..., tf.newaxis].to_list() == [[[1], [2], [3]], [[4], [5]]]


def test_ragged_tensors_hash_by_identity():
    a, b = tf.ragged.constant([[1]]), tf.ragged.constant([[1]])
    assert {a: 1, b: 2}[a] == 1
    assert bool(tf.reduce_all((a == b).flat_values))


@pytest.mark.parametrize("ragged_rank", [None, 1.0, np.int64(1)])
def test_from_tensor_rejects_a_ragged_rank_that_is_not_an_int_as_tf(ragged_rank):
    # TF 2.21: TypeError "Argument `ragged_rank` must be an int. Received 1.0." (before: None failed inside an
    # addition, 1.0 and np.int64(1) were accepted)
    with pytest.raises(TypeError, match=rf"`ragged_rank` must be an int. Received {ragged_rank}\."):
        tf.RaggedTensor.from_tensor([[1, 2]], ragged_rank=ragged_rank)


def test_from_tensor_rejects_a_ragged_rank_below_one_as_tf():
    with pytest.raises(ValueError, match=r"`ragged_rank` must be greater than 0. Received 0\."):
        tf.RaggedTensor.from_tensor([[1, 2]], ragged_rank=0)
    assert tf.RaggedTensor.from_tensor([[1, 2]], ragged_rank=True).to_list() == [[1, 2]]  # a bool is an int, as TF
