"""rebatch (RebatchV2 list semantics), shuffle (buffer semantics, seeds, reshuffling), options and the
pipeline rewrite hooks used by the distribution layer."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy import errors
from tpustrategy.data import Dataset, dataset_ops
from tpustrategy.data.experimental import AutoShardPolicy, DistributeOptions


def values(ds):
    return [np.asarray(x).tolist() for x in ds]


def unbatch_then_batch(total: int, batch: int, sizes: list[int], drop_remainder: bool = False):
    """The reference: the stream behaves like unbatch() then batches whose sizes cycle through `sizes`."""
    rows = list(range(total))
    out, i, k = [], 0, 0
    while i < len(rows):
        size = sizes[k % len(sizes)]
        k += 1
        chunk = rows[i:i + size]
        if len(chunk) < size and drop_remainder:
            break
        out.append(chunk)
        i += len(chunk)
    return out


def test_rebatch_sizes_cycle_and_cross_input_batches():
    assert values(Dataset.range(10).batch(4).rebatch([3, 0, 2])) == [[0, 1, 2], [], [3, 4], [5, 6, 7], [], [8, 9]]
    assert values(Dataset.range(6).batch(4).rebatch([2, 2])) == [[0, 1], [2, 3], [4, 5]]
    assert values(Dataset.range(5).batch(4).rebatch(2)) == [[0, 1], [2, 3], [4]]
    assert values(Dataset.range(5).batch(4).rebatch(2, drop_remainder=True)) == [[0, 1], [2, 3]]


@pytest.mark.parametrize("total", [0, 1, 7, 12, 13])
@pytest.mark.parametrize("batch", [1, 3, 4])
@pytest.mark.parametrize("sizes", [[1], [2, 1], [3, 0, 2], [5], [0, 4]])
@pytest.mark.parametrize("drop_remainder", [False, True])
def test_rebatch_matches_unbatch_then_cyclic_batch(total, batch, sizes, drop_remainder):
    ds = Dataset.range(total).batch(batch).rebatch(sizes, drop_remainder=drop_remainder)
    expected = unbatch_then_batch(total, batch, sizes, drop_remainder)
    got = values(ds)
    # A trailing empty batch of a 0 size is emitted only while input remains; compare the non-empty rows.
    assert [r for r in got if r] == [r for r in expected if r]
    assert sum(len(r) for r in got) == sum(len(r) for r in expected)


def test_rebatch_keeps_structure_and_dtypes():
    ds = Dataset.from_tensor_slices({"x": np.arange(10, dtype=np.float32).reshape(5, 2), "y": np.arange(5)})
    out = list(ds.batch(2).rebatch([3, 1]).as_numpy_iterator())
    assert [o["y"].tolist() for o in out] == [[0, 1, 2], [3], [4]]
    assert out[0]["x"].dtype == np.float32 and out[0]["x"].shape == (3, 2)


def test_rebatch_element_spec_and_validation():
    spec = Dataset.range(8).batch(4).rebatch([2, 2], drop_remainder=True).element_spec
    assert spec == tf.TensorSpec([2], tf.int64)
    assert Dataset.range(8).batch(4).rebatch([2, 1]).element_spec == tf.TensorSpec([None], tf.int64)
    with pytest.raises(ValueError):
        Dataset.range(8).rebatch(2)
    with pytest.raises(errors.InvalidArgumentError):
        Dataset.range(8).batch(2).rebatch([0, 0])
    with pytest.raises(errors.InvalidArgumentError):
        Dataset.range(8).batch(2).rebatch([-1, 2])


def test_semantics_v2_example_for_two_replicas():
    # SEMANTICS.md 2.5: G=4 over 2 replicas, range(6).batch(4) with sizes [2, 2] → [0,1]|[2,3], then [4,5].
    assert values(Dataset.range(6).batch(4).rebatch([2, 2])) == [[0, 1], [2, 3], [4, 5]]


def test_shuffle_is_a_seeded_permutation():
    a = values(Dataset.range(20).shuffle(5, seed=42))
    b = values(Dataset.range(20).shuffle(5, seed=42))
    assert a == b and sorted(a) == list(range(20)) and a != list(range(20))
    assert values(Dataset.range(20).shuffle(5, seed=43)) != a


def test_unseeded_shuffle_repeats_after_set_seed_as_tf():
    # TF: without an op seed the shuffle takes one from the global seed, so a program reruns the same order
    tf.random.set_seed(11)
    first = [values(Dataset.range(40).shuffle(40)), values(Dataset.range(40).shuffle(40))]
    tf.random.set_seed(11)
    again = [values(Dataset.range(40).shuffle(40)), values(Dataset.range(40).shuffle(40))]
    tf.random.set_seed(None)
    assert first == again and first[0] != first[1]  # each shuffle op takes the next op seed


def test_shuffle_buffer_bounds_how_far_elements_move():
    # With a buffer of k, the element emitted at step i was read at most i + k - 1: it is < i + k.
    order = values(Dataset.range(200).shuffle(4, seed=1))
    assert all(value < step + 4 for step, value in enumerate(order))
    assert values(Dataset.range(10).shuffle(1, seed=3)) == list(range(10))


def test_shuffle_reshuffles_each_iteration_unless_disabled():
    ds = Dataset.range(30).shuffle(30, seed=7)
    first, second = values(ds), values(ds)
    assert sorted(first) == sorted(second) and first != second
    assert values(Dataset.range(30).shuffle(30, seed=7)) == first  # reproducible from the seed
    fixed = Dataset.range(30).shuffle(30, seed=7, reshuffle_each_iteration=False)
    assert values(fixed) == values(fixed)
    epochs = values(Dataset.range(5).shuffle(5, seed=2).repeat(2))
    assert sorted(epochs[:5]) == sorted(epochs[5:]) == list(range(5)) and epochs[:5] != epochs[5:]
    with pytest.raises(errors.InvalidArgumentError):
        Dataset.range(3).shuffle(0)


def test_options_defaults_merge_and_with_options():
    options = tf.data.Options()
    assert options.experimental_distribute.auto_shard_policy == AutoShardPolicy.AUTO
    assert options.experimental_distribute.num_devices is None
    assert isinstance(options.experimental_distribute, DistributeOptions)
    with pytest.raises(AttributeError):
        options.not_an_option = 1
    options.experimental_distribute.auto_shard_policy = AutoShardPolicy.DATA
    options.experimental_deterministic = False
    ds = Dataset.range(4).with_options(options).map(lambda x: x)
    assert ds.options().experimental_distribute.auto_shard_policy == AutoShardPolicy.DATA
    assert ds.options().experimental_deterministic is False
    later = tf.data.Options()
    later.experimental_distribute.auto_shard_policy = AutoShardPolicy.OFF
    assert ds.with_options(later).options().experimental_distribute.auto_shard_policy == AutoShardPolicy.OFF
    assert ds.with_options(later).options().experimental_deterministic is False
    assert Dataset.range(3).options() == tf.data.Options()
    assert values(ds) == [0, 1, 2, 3]


def test_enum_values_match_tf():
    assert [p.value for p in AutoShardPolicy] == [-1, 0, 1, 2, 3]
    assert tf.data.experimental.SHARD_HINT == -1
    assert tf.data.AUTOTUNE == tf.data.experimental.AUTOTUNE == -1
    assert tf.data.INFINITE_CARDINALITY == -1 and tf.data.UNKNOWN_CARDINALITY == -2


def test_rewrite_hooks_replace_shard_hints_and_rebuild_pipelines():
    hint = tf.data.experimental.SHARD_HINT
    ds = Dataset.range(10).shard(hint, hint).map(lambda x: np.asarray(x) * 10).batch(2)
    assert dataset_ops.source_files(ds) is None
    worker1 = dataset_ops.replace_shard_hints(ds, 3, 1)
    assert values(worker1) == [[10, 40], [70]]
    assert values(dataset_ops.replace_shard_hints(ds, 3, 0)) == [[0, 30], [60, 90]]
    with pytest.raises(errors.InvalidArgumentError):
        list(ds)  # the original pipeline is unchanged
    shuffled = Dataset.range(8).shuffle(8, seed=1)
    pipeline = shuffled.batch(4)
    rebuilt = dataset_ops.rewrite(pipeline, lambda node: node)
    assert rebuilt is pipeline  # nothing replaced, nothing cloned
    inserted = dataset_ops.rewrite(pipeline, lambda n: n.shard(2, 0) if n is shuffled else n)
    assert sum(len(b) for b in values(inserted)) == 4
    zipped = Dataset.zip({"a": Dataset.range(4).shard(hint, hint), "b": Dataset.range(4)})
    out = list(dataset_ops.replace_shard_hints(zipped, 2, 1).as_numpy_iterator())
    assert [(e["a"], e["b"]) for e in out] == [(1, 0), (3, 1)]
