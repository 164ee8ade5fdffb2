"""tf.data transformations against hand-computed elements: batch, unbatch, repeat, take, skip, shard,
map, filter, zip, concatenate, cache, enumerate, prefetch, flat_map, interleave; specs and cardinality."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import errors
from tpustrategy.data import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset


def values(ds):
    return [np.asarray(x).tolist() for x in ds]


def card(ds):
    return int(np.asarray(ds.cardinality()))


def test_batch_with_and_without_remainder():
    assert values(Dataset.range(7).batch(3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert values(Dataset.range(7).batch(3, drop_remainder=True)) == [[0, 1, 2], [3, 4, 5]]
    assert Dataset.range(7).batch(3).element_spec == tf.TensorSpec([None], tf.int64)
    assert Dataset.range(7).batch(3, drop_remainder=True).element_spec == tf.TensorSpec([3], tf.int64)
    assert card(Dataset.range(7).batch(3)) == 3
    assert card(Dataset.range(7).batch(3, drop_remainder=True)) == 2
    assert card(Dataset.range(6).batch(3)) == 2
    with pytest.raises(errors.InvalidArgumentError, match="greater than zero"):
        Dataset.range(3).batch(0)


def test_batch_of_nested_elements_matches_numpy_stack():
    rows = np.arange(24, dtype=np.float32).reshape(6, 2, 2)
    ds = Dataset.from_tensor_slices({"x": rows, "y": np.arange(6)}).batch(4)
    batches = list(ds.as_numpy_iterator())
    np.testing.assert_array_equal(batches[0]["x"], rows[:4])
    np.testing.assert_array_equal(batches[1]["x"], rows[4:])
    assert batches[1]["y"].tolist() == [4, 5]
    assert ds.element_spec == {"x": tf.TensorSpec([None, 2, 2], tf.float32), "y": tf.TensorSpec([None], tf.int64)}
    nested = Dataset.range(4).batch(2).batch(2)
    assert values(nested) == [[[0, 1], [2, 3]]]
    assert nested.element_spec.shape == [None, None]


def test_batch_rejects_ragged_elements():
    ragged = Dataset.from_generator(lambda: iter([[1], [1, 2]]), output_signature=tf.TensorSpec([None], tf.int32))
    with pytest.raises(errors.InvalidArgumentError, match="different shapes in component 0"):
        list(ragged.batch(2))


def test_unbatch_inverts_batch():
    ds = Dataset.range(7).batch(3).unbatch()
    assert values(ds) == list(range(7))
    assert ds.element_spec == tf.TensorSpec([], tf.int64)
    assert card(ds) == UNKNOWN_CARDINALITY  # the batch dim is None
    assert card(Dataset.range(8).batch(4, drop_remainder=True).unbatch()) == 8
    pairs = Dataset.from_tensors(([1, 2], [[1.0], [2.0]])).unbatch()
    assert [(int(np.asarray(a)), np.asarray(b).tolist()) for a, b in pairs] == [(1, [1.0]), (2, [2.0])]
    with pytest.raises(ValueError):
        Dataset.range(3).unbatch()


def test_repeat_take_skip():
    assert values(Dataset.range(3).repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert values(Dataset.range(3).repeat().take(7)) == [0, 1, 2, 0, 1, 2, 0]
    assert values(Dataset.range(3).repeat(0)) == []
    assert values(Dataset.range(0).repeat()) == []
    assert values(Dataset.range(5).take(2)) == [0, 1]
    assert values(Dataset.range(5).take(-1)) == [0, 1, 2, 3, 4]
    assert values(Dataset.range(5).take(0)) == []
    assert values(Dataset.range(5).skip(3)) == [3, 4]
    assert values(Dataset.range(5).skip(-1)) == []
    assert values(Dataset.range(5).skip(9)) == []


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda: Dataset.range(3).repeat(), INFINITE_CARDINALITY),
        (lambda: Dataset.range(3).repeat(4), 12),
        (lambda: Dataset.range(0).repeat(), 0),
        (lambda: Dataset.range(3).repeat().take(5), 5),
        (lambda: Dataset.range(3).repeat().skip(5), INFINITE_CARDINALITY),
        (lambda: Dataset.range(3).take(5), 3),
        (lambda: Dataset.range(5).skip(2), 3),
        (lambda: Dataset.range(5).skip(-1), 0),
        (lambda: Dataset.range(10).shard(3, 0), 4),
        (lambda: Dataset.range(10).shard(3, 2), 3),
        (lambda: Dataset.range(10).filter(lambda x: True), UNKNOWN_CARDINALITY),
        (lambda: Dataset.range(10).filter(lambda x: True).repeat(), INFINITE_CARDINALITY),
        (lambda: Dataset.range(10).filter(lambda x: True).take(3), UNKNOWN_CARDINALITY),
        (lambda: Dataset.range(10).map(lambda x: x), 10),
        (lambda: Dataset.range(10).shuffle(3).prefetch(2).cache(), 10),
        (lambda: Dataset.zip((Dataset.range(3), Dataset.range(5))), 3),
        (lambda: Dataset.zip((Dataset.range(3).repeat(), Dataset.range(5))), 5),
        (lambda: Dataset.range(3).concatenate(Dataset.range(4)), 7),
        (lambda: Dataset.range(3).concatenate(Dataset.range(4).repeat()), INFINITE_CARDINALITY),
        (lambda: Dataset.range(3).enumerate(), 3),
    ],
)
def test_cardinality(make, expected):
    ds = make()
    assert card(ds) == expected
    assert int(np.asarray(tf.data.experimental.cardinality(ds))) == expected
    if expected >= 0:
        assert len(ds) == expected
        assert len(list(ds.take(50))) == min(expected, 50)


def test_len_of_infinite_dataset_raises_type_error():
    with pytest.raises(TypeError, match="infinite"):
        len(Dataset.range(2).repeat())
    assert bool(Dataset.range(0)) is True


def test_shard_takes_every_nth_and_validates_like_tf():
    assert values(Dataset.range(10).shard(3, 1)) == [1, 4, 7]
    with pytest.raises(errors.InvalidArgumentError, match="greater than zero"):
        Dataset.range(10).shard(0, 0)
    with pytest.raises(errors.InvalidArgumentError, match="between 0 and 2"):
        Dataset.range(10).shard(3, 3)
    with pytest.raises(errors.InvalidArgumentError):
        Dataset.range(10).shard(3, -1)
    hinted = Dataset.range(10).shard(tf.data.experimental.SHARD_HINT, tf.data.experimental.SHARD_HINT)
    with pytest.raises(errors.InvalidArgumentError, match="SHARD_HINT"):
        list(hinted)


def test_map_unpacks_tuples_but_not_dicts_or_namedtuples():
    ds = Dataset.from_tensor_slices(([1, 2], [10, 20])).map(lambda a, b: np.asarray(a) + np.asarray(b))
    assert values(ds) == [11, 22]
    assert ds.element_spec == tf.TensorSpec([], tf.int32)
    dicts = Dataset.from_tensor_slices({"a": [1, 2]}).map(lambda d: {"twice": np.asarray(d["a"]) * 2})
    assert [e["twice"] for e in dicts.as_numpy_iterator()] == [2, 4]


def test_map_output_spec_follows_unknown_dims():
    ds = Dataset.range(5).batch(2).map(lambda x: (np.asarray(x) * 2, np.zeros(3, np.float32)))
    assert ds.element_spec == (tf.TensorSpec([None], tf.int64), tf.TensorSpec([3], tf.float32))
    assert values(ds.map(lambda a, b: a)) == [[0, 2], [4, 6], [8]]


def test_map_list_output_becomes_tuple_and_python_values_become_tensors():
    ds = Dataset.range(2).map(lambda x: [x, 1.5])
    first = next(iter(ds))
    assert isinstance(first, tuple) and first[1].dtype == tf.float32


def test_map_spec_falls_back_to_a_real_element_when_probing_fails():
    table = {0: [1.0], 1: [2.0]}
    ds = Dataset.range(2).map(lambda x: np.asarray(table[int(np.asarray(x))], np.float32))
    assert ds.element_spec == tf.TensorSpec([1], tf.float32)
    assert values(ds) == [[1.0], [2.0]]


def test_filter_keeps_true_elements_and_requires_scalar_bool():
    ds = Dataset.range(10).filter(lambda x: np.asarray(x) % 3 == 0)
    assert values(ds) == [0, 3, 6, 9]
    assert values(Dataset.range(4).filter(lambda x: tf.constant(int(np.asarray(x)) > 1))) == [2, 3]
    with pytest.raises(ValueError, match="tf.bool"):
        list(Dataset.range(3).filter(lambda x: x))
    pairs = Dataset.from_tensor_slices(([1, 2, 3], [3, 2, 1])).filter(lambda a, b: np.asarray(a) > np.asarray(b))
    assert [(int(np.asarray(a)), int(np.asarray(b))) for a, b in pairs] == [(3, 1)]


def test_zip_structures_and_shortest_input():
    ds = Dataset.zip((Dataset.range(3), Dataset.range(10, 20)))
    assert [(int(np.asarray(a)), int(np.asarray(b))) for a, b in ds] == [(0, 10), (1, 11), (2, 12)]
    named = Dataset.zip({"a": Dataset.range(2), "b": Dataset.from_tensor_slices([5.0, 6.0])})
    assert named.element_spec == {"a": tf.TensorSpec([], tf.int64), "b": tf.TensorSpec([], tf.float32)}
    assert [e["b"] for e in named.as_numpy_iterator()] == [5.0, 6.0]
    varargs = Dataset.zip(Dataset.range(2), Dataset.range(2))
    assert len(list(varargs)) == 2
    with pytest.raises(TypeError):
        Dataset.zip([Dataset.range(2), Dataset.range(2)], datasets=(Dataset.range(1),))


def test_concatenate_relaxes_shapes_and_checks_types():
    ds = Dataset.from_tensors([1, 2]).concatenate(Dataset.from_tensors([3, 4, 5]))
    assert values(ds) == [[1, 2], [3, 4, 5]]
    assert ds.element_spec == tf.TensorSpec([None], tf.int32)
    with pytest.raises(TypeError):
        Dataset.range(2).concatenate(Dataset.from_tensors(1.0))


def test_cache_replays_the_first_complete_pass():
    calls = []

    def gen():
        calls.append(1)
        yield from range(3)

    ds = Dataset.from_generator(gen, output_signature=tf.TensorSpec([], tf.int64)).cache()
    assert values(ds) == [0, 1, 2]
    assert values(ds) == [0, 1, 2]
    assert len(calls) == 1


def test_enumerate_pairs_int64_indices():
    ds = Dataset.from_tensor_slices([7, 8]).enumerate(start=5)
    assert [(int(np.asarray(i)), int(np.asarray(v))) for i, v in ds] == [(5, 7), (6, 8)]
    assert ds.element_spec[0] == tf.TensorSpec([], tf.int64)


def test_prefetch_and_apply_pass_elements_through():
    assert values(Dataset.range(3).prefetch(tf.data.AUTOTUNE)) == [0, 1, 2]
    assert values(Dataset.range(4).apply(lambda ds: ds.skip(2))) == [2, 3]
    with pytest.raises(TypeError):
        Dataset.range(2).apply(lambda ds: 3)


def test_flat_map_and_interleave_order():
    flat = Dataset.range(3).flat_map(lambda x: Dataset.range(int(np.asarray(x))))
    assert values(flat) == [0, 0, 1]
    # TF's documented example: cycle_length=2, block_length=4 over [1..5] repeated 6 times each.
    inter = Dataset.range(1, 6).interleave(
        lambda x: Dataset.from_tensors(x).repeat(6), cycle_length=2, block_length=4)
    assert values(inter) == [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 4, 4,
                             5, 5, 5, 5, 5, 5]
