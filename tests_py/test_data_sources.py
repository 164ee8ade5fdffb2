"""tf.data sources: range, from_tensors, from_tensor_slices (nests), from_generator; element_spec, cardinality."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import errors
from tpustrategy.data import Dataset


def _i(t):
    return int(np.asarray(t))


def _f(t):
    return float(np.asarray(t))


def _b(t):
    return bool(np.asarray(t))


def values(ds):
    return [np.asarray(x).tolist() for x in ds]


def test_range_matches_python_range_and_is_int64():
    assert values(Dataset.range(5)) == [0, 1, 2, 3, 4]
    assert values(Dataset.range(2, 5)) == [2, 3, 4]
    assert values(Dataset.range(1, 10, 3)) == [1, 4, 7]
    assert values(Dataset.range(5, 1, -2)) == [5, 3]
    assert values(Dataset.range(0)) == []
    first = next(iter(Dataset.range(3)))
    assert isinstance(first, tf.Tensor) and first.dtype == tf.int64 and first.shape == []
    assert Dataset.range(3).element_spec == tf.TensorSpec([], tf.int64)
    assert Dataset.range(3, output_type=tf.int32).element_spec.dtype == tf.int32
    assert _i(Dataset.range(1, 10, 3).cardinality()) == 3
    assert _i(Dataset.range(5, 1).cardinality()) == 0
    with pytest.raises(errors.InvalidArgumentError, match="step"):
        Dataset.range(0, 5, 0)


def test_datasets_can_be_iterated_repeatedly():
    ds = Dataset.range(3)
    assert values(ds) == values(ds) == [0, 1, 2]


def test_from_tensors_is_one_element_with_the_whole_value():
    ds = Dataset.from_tensors([[1, 2], [3, 4]])
    assert values(ds) == [[[1, 2], [3, 4]]]
    assert ds.element_spec == tf.TensorSpec([2, 2], tf.int32)
    assert _i(ds.cardinality()) == 1 and len(ds) == 1


def test_from_tensor_slices_lists_are_tensors_tuples_are_structure():
    ds = Dataset.from_tensor_slices([[1, 2], [3, 4], [5, 6]])
    assert values(ds) == [[1, 2], [3, 4], [5, 6]]
    assert ds.element_spec == tf.TensorSpec([2], tf.int32)
    pairs = Dataset.from_tensor_slices(([1, 2], [3.0, 4.0]))
    elements = list(pairs)
    assert isinstance(elements[0], tuple)
    assert [(_i(a), _f(b)) for a, b in elements] == [(1, 3.0), (2, 4.0)]
    assert pairs.element_spec == (tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.float32))
    assert len(pairs) == 2


def test_from_tensor_slices_dicts_and_namedtuples():
    ds = Dataset.from_tensor_slices({"b": np.arange(6).reshape(3, 2), "a": [7.0, 8.0, 9.0]})
    spec = ds.element_spec
    assert list(spec) == ["b", "a"]  # the user's key order is kept in the element
    assert spec["b"] == tf.TensorSpec([2], tf.int64)
    rows = list(ds.as_numpy_iterator())
    assert rows[1]["b"].tolist() == [2, 3] and rows[1]["a"] == np.float32(8.0)
    Point = collections.namedtuple("Point", ["x", "y"])
    points = Dataset.from_tensor_slices(Point(x=[1, 2], y=[[1.0], [2.0]]))
    first = next(iter(points))
    assert isinstance(first, Point)
    assert _i(first.x) == 1 and np.asarray(first.y).tolist() == [1.0]
    assert isinstance(points.element_spec, Point)


def test_from_tensor_slices_of_tensors_and_numpy_keeps_dtypes():
    ds = Dataset.from_tensor_slices(tf.constant([[1.5, 2.5]], dtype=tf.float64))
    assert ds.element_spec == tf.TensorSpec([2], tf.float64)
    assert np.asarray(next(iter(ds))).dtype == np.float64
    assert Dataset.from_tensor_slices(np.zeros((4, 0), np.float32)).element_spec.shape == [0]


def test_from_tensor_slices_errors():
    with pytest.raises(ValueError):
        Dataset.from_tensor_slices(3)
    with pytest.raises(errors.InvalidArgumentError, match="Dimensions"):
        Dataset.from_tensor_slices(([1, 2], [1, 2, 3]))


def test_from_tensor_slices_of_strings_gives_bytes():
    ds = Dataset.from_tensor_slices(["a", "bc"])
    assert list(ds) == [b"a", b"bc"]
    assert repr(ds.element_spec) == "TensorSpec(shape=(), dtype=tf.string, name=None)"


def test_from_generator_with_output_signature():
    def gen():
        yield 1, [1.0]
        yield 2, [2.0, 3.0]

    sig = (tf.TensorSpec([], tf.int64), tf.TensorSpec([None], tf.float32))
    ds = Dataset.from_generator(gen, output_signature=sig)
    assert ds.element_spec == sig
    out = [(_i(a), np.asarray(b).tolist()) for a, b in ds]
    assert out == [(1, [1.0]), (2, [2.0, 3.0])]
    assert next(iter(ds))[0].dtype == tf.int64
    assert _i(ds.cardinality()) == tf.data.UNKNOWN_CARDINALITY
    with pytest.raises(TypeError, match="length is unknown"):
        len(ds)


def test_from_generator_with_types_shapes_and_args():
    def gen(n):
        for i in range(int(n)):
            yield {"v": [i, i]}

    ds = Dataset.from_generator(gen, output_types={"v": tf.int32}, output_shapes={"v": [2]}, args=(3,))
    assert ds.element_spec == {"v": tf.TensorSpec([2], tf.int32)}
    assert [e["v"].tolist() for e in ds.as_numpy_iterator()] == [[0, 0], [1, 1], [2, 2]]
    unknown = Dataset.from_generator(lambda: iter([1, 2]), output_types=tf.int64)
    assert unknown.element_spec.shape.rank is None
    assert values(unknown) == [1, 2]


def test_from_generator_checks_each_element():
    bad_shape = Dataset.from_generator(lambda: iter([[1, 2, 3]]), output_signature=tf.TensorSpec([2], tf.int32))
    with pytest.raises(errors.InvalidArgumentError, match="shape"):
        list(bad_shape)
    bad_structure = Dataset.from_generator(lambda: iter([1]), output_signature=(tf.TensorSpec([], tf.int32),) * 2)
    with pytest.raises(errors.InvalidArgumentError, match="TypeError: `generator` yielded an element that did not"):
        list(bad_structure)  # TF 2.21 wraps the generator's TypeError in an InvalidArgumentError at iteration
    with pytest.raises(TypeError):
        Dataset.from_generator(lambda: iter([]))


def test_iterator_protocol_get_next_and_optional():
    it = iter(Dataset.range(2))
    assert it.element_spec == tf.TensorSpec([], tf.int64)
    assert _i(it.get_next()) == 0
    opt = it.get_next_as_optional()
    assert _b(opt.has_value()) and _i(opt.get_value()) == 1
    assert not _b(it.get_next_as_optional().has_value())
    with pytest.raises(errors.OutOfRangeError):
        it.get_next()
    with pytest.raises(StopIteration):
        next(it)


def test_as_numpy_iterator_and_reduce():
    assert list(Dataset.range(3).as_numpy_iterator()) == [0, 1, 2]
    assert isinstance(next(Dataset.range(3).as_numpy_iterator()), np.int64)
    total = Dataset.range(5).reduce(np.int64(0), lambda state, x: np.asarray(state) + np.asarray(x))
    assert isinstance(total, tf.Tensor) and _i(total) == 10
    pair = Dataset.from_tensor_slices(([1, 2], [3, 4])).reduce(
        (0, 0), lambda s, e: (np.asarray(s[0]) + np.asarray(e[0]), np.asarray(s[1]) + np.asarray(e[1])))
    assert (_i(pair[0]), _i(pair[1])) == (3, 7)
