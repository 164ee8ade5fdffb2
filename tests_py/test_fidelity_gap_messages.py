"""Error messages of the #14 fidelity3 fixes, as TF 2.21 words them (the crosscheck references keep only the error
types; these strings were measured in the reference venv)."""

from __future__ import annotations

import pytest

import tpustrategy as tf


def test_meshgrid_of_mixed_dtypes_names_both():
    with pytest.raises(tf.errors.InvalidArgumentError) as raised:
        tf.meshgrid(tf.constant([1, 2]), tf.constant([1.0, 2.0]))
    assert raised.value.message == ("cannot compute Mul as input #1(zero-based) was expected to be a float tensor "
                                    "but is a int32 tensor [Op:Mul] name: ")
