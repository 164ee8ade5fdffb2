"""Dataset element kinds and names as TF 2.21 shows them: the class names ``type(ds)`` / ``repr(ds)`` print, None
and dataset-valued components, py_function outputs' static shapes (with ``set_shape`` / ``tf.ensure_shape``),
and the error for something that should be a dataset.

From what TF's tests check (data/kernel_tests/from_tensors_test.py: datasets and None as elements;
map_test.py / batch_test.py / unbatch_test.py: None components; map_test.py and py_func_test.py: py_function shapes;
ops/array_ops_test.py: ensure_shape). Every expected name, spec, value and error message here was observed on
TF 2.21 (the same calls run there; 2 logical CPUs for MirroredStrategy)."""

from __future__ import annotations

import numpy as np
import pytest

import tpustrategy as tf
from tpustrategy.data import Dataset


def _write(tmp_path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


NAMES = {
    "range": (lambda p: Dataset.range(3), "_RangeDataset"),
    "from_tensors": (lambda p: Dataset.from_tensors(1), "_TensorDataset"),
    "from_tensor_slices": (lambda p: Dataset.from_tensor_slices([1, 2]), "_TensorSliceDataset"),
    "from_generator": (lambda p: Dataset.from_generator(lambda: iter([1]), tf.int64), "_FlatMapDataset"),
    "counter": (lambda p: Dataset.counter(), "_ScanDataset"),
    "random": (lambda p: Dataset.random(seed=1), "_RandomDataset"),
    "map": (lambda p: Dataset.range(3).map(lambda x: x), "_MapDataset"),
    "map parallel": (lambda p: Dataset.range(3).map(lambda x: x, num_parallel_calls=tf.data.AUTOTUNE),
                     "_ParallelMapDataset"),
    "batch": (lambda p: Dataset.range(3).batch(2), "_BatchDataset"),
    "batch parallel": (lambda p: Dataset.range(3).batch(2, num_parallel_calls=2), "_ParallelBatchDataset"),
    "ragged_batch": (lambda p: Dataset.range(3).ragged_batch(2), "_BatchDataset"),
    "interleave": (lambda p: Dataset.range(3).interleave(Dataset.from_tensors), "_InterleaveDataset"),
    "interleave parallel": (lambda p: Dataset.range(3).interleave(Dataset.from_tensors, num_parallel_calls=2),
                            "_ParallelInterleaveDataset"),
    "flat_map": (lambda p: Dataset.range(3).flat_map(Dataset.from_tensors), "_FlatMapDataset"),
    "enumerate": (lambda p: Dataset.range(3).enumerate(), "_ZipDataset"),
    "cache": (lambda p: Dataset.range(3).cache(), "CacheDataset"),
    "prefetch": (lambda p: Dataset.range(3).prefetch(1), "_PrefetchDataset"),
    "with_options": (lambda p: Dataset.range(3).with_options(tf.data.Options()), "_OptionsDataset"),
    "rebatch": (lambda p: Dataset.range(4).batch(2).rebatch(1), "_RebatchDataset"),
    "assert_cardinality": (lambda p: Dataset.range(3).apply(tf.data.experimental.assert_cardinality(3)),
                           "_AssertCardinalityDataset"),
    "sample_from_datasets": (lambda p: Dataset.sample_from_datasets([Dataset.range(2), Dataset.range(3)], seed=1),
                             "_DirectedInterleaveDataset"),
    "sample_from_datasets of one": (lambda p: Dataset.sample_from_datasets([Dataset.range(2)], [1.0], seed=1),
                                    "_RangeDataset"),  # TF returns the only input itself
    "choose_from_datasets": (lambda p: Dataset.choose_from_datasets([Dataset.range(2)], Dataset.range(1)),
                             "_DirectedInterleaveDataset"),
    "window": (lambda p: Dataset.range(3).window(2), "_WindowDataset"),
    "TFRecordDataset": (lambda p: tf.data.TFRecordDataset(_write(p, "a.tfrecord", b"")), "TFRecordDatasetV2"),
    "TextLineDataset": (lambda p: tf.data.TextLineDataset(_write(p, "a.txt", b"x\n")), "TextLineDatasetV2"),
    "FixedLengthRecordDataset": (lambda p: tf.data.FixedLengthRecordDataset(_write(p, "a.bin", b"ab"), 1),
                                 "FixedLengthRecordDatasetV2"),
    "list_files": (lambda p: Dataset.list_files(_write(p, "f.txt", b"")), "_ShuffleDataset"),
    "list_files unshuffled": (lambda p: Dataset.list_files(_write(p, "f.txt", b""), shuffle=False),
                              "_TensorSliceDataset"),
}


@pytest.mark.parametrize("case", sorted(NAMES))
def test_datasets_have_tf_class_names_in_type_and_repr(case, tmp_path):
    build, name = NAMES[case]
    ds = build(tmp_path)
    assert type(ds).__name__ == name
    assert repr(ds) == f"<{name} element_spec={ds.element_spec}>"
    assert isinstance(ds, Dataset)


def test_public_reader_classes_carry_tf_v2_names():
    assert (tf.data.TFRecordDataset.__name__, tf.data.TextLineDataset.__name__) == (
        "TFRecordDatasetV2", "TextLineDatasetV2")


def test_parallel_variants_give_the_same_elements():
    plain = Dataset.range(7).map(lambda x: x * 2).batch(3)
    parallel = Dataset.range(7).map(lambda x: x * 2, num_parallel_calls=4).batch(3, num_parallel_calls=2)
    assert [b.numpy().tolist() for b in parallel] == [b.numpy().tolist() for b in plain] == [
        [0, 2, 4], [6, 8, 10], [12]]
    assert parallel.element_spec == plain.element_spec


# ---- None components (NoneTensorSpec) ----

def test_none_component_of_from_tensors():
    ds = Dataset.from_tensors((42, None))
    assert repr(ds.element_spec) == "(TensorSpec(shape=(), dtype=tf.int32, name=None), NoneTensorSpec())"
    [(x, y)] = list(ds)
    assert int(x) == 42 and y is None


def test_an_element_of_none_only_is_refused_as_tf():
    with pytest.raises(tf.errors.InvalidArgumentError, match="has no component but None"):
        Dataset.from_tensors(None)
    for ds in (Dataset.range(2).map(lambda x: None), Dataset.range(2).map(lambda x: (None, None))):
        with pytest.raises(tf.errors.InvalidArgumentError, match="has no component but None"):
            list(ds.take(1)) + [ds.element_spec]
    with pytest.raises(tf.errors.InvalidArgumentError):  # a generator yielding None for a typed output
        list(Dataset.from_generator(lambda: iter([None]), tf.int64))


def test_none_component_reaches_map_functions():
    def halve_if_none(x, y):
        return x // 2 if y is None else x

    assert [int(v) for v in Dataset.from_tensors((42, None)).map(halve_if_none)] == [21]


def test_none_component_batches_and_unbatches_to_none():
    batched = Dataset.range(10).map(lambda x: (x, None)).batch(10)
    assert repr(batched.element_spec[1]) == "NoneTensorSpec()"
    [(values, none)] = list(batched)
    assert values.numpy().tolist() == list(range(10)) and none is None
    assert [v.numpy().tolist() for v in batched.map(lambda x, y: x)] == [list(range(10))]

    rows = Dataset.from_tensors((list(range(4)), None)).unbatch()
    assert [(int(x), y) for x, y in rows] == [(0, None), (1, None), (2, None), (3, None)]
    assert [int(x) for x in rows.map(lambda x, y: x)] == [0, 1, 2, 3]


def test_none_component_in_slices_and_through_transformations():
    ds = Dataset.from_tensor_slices(({"a": [1, 2, 3]}, None)).repeat(2).shuffle(6, seed=3).filter(
        lambda d, n: d["a"] > 1).take(3)
    assert repr(ds.element_spec[1]) == "NoneTensorSpec()"
    elements = list(ds)
    assert len(elements) == 3 and all(n is None and int(d["a"]) > 1 for d, n in elements)
    assert [(x.tolist(), y) for x, y in Dataset.from_tensors(([1, 2], None)).as_numpy_iterator()] == [([1, 2], None)]


def test_none_component_in_a_distributed_dataset():
    strategy = tf.distribute.MirroredStrategy(["TPU:0", "TPU:1"])
    dist = strategy.experimental_distribute_dataset(Dataset.range(8).map(lambda x: (x, None)).batch(4))
    assert repr(dist.element_spec) == (
        "(PerReplicaSpec(TensorSpec(shape=(None,), dtype=tf.int64, name=None), TensorSpec(shape=(None,), "
        "dtype=tf.int64, name=None)), PerReplicaSpec(NoneTensorSpec(), NoneTensorSpec()))")
    steps = [(strategy.experimental_local_results(x), none) for x, none in dist]
    assert [([t.numpy().tolist() for t in xs], type(none).__name__, none.values) for xs, none in steps] == [
        ([[0, 1], [2, 3]], "PerReplica", (None, None)), ([[4, 5], [6, 7]], "PerReplica", (None, None))]


def test_none_and_a_tensor_are_not_compatible_components():
    with pytest.raises(TypeError, match="compatible"):
        Dataset.sample_from_datasets([Dataset.from_tensors((1, None)), Dataset.from_tensors((1, 2))])


# ---- datasets as elements (DatasetSpec) ----

def test_dataset_as_an_element_flat_maps_back():
    nested = Dataset.from_tensors(Dataset.range(10))
    assert repr(nested.element_spec) == (
        "DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))")
    assert [int(x) for x in nested.flat_map(lambda d: d)] == list(range(10))
    [inner] = list(nested)
    assert type(inner).__name__ == "_VariantDataset" and [int(x) for x in inner] == list(range(10))


def test_map_returning_datasets_has_a_dataset_spec():
    ds = Dataset.range(1, 4).map(lambda n: Dataset.range(n))
    assert ds.element_spec == tf.data.DatasetSpec(tf.TensorSpec([], tf.int64))
    assert [[int(x) for x in d] for d in ds] == [[0], [0, 1], [0, 1, 2]]
    assert [int(x) for x in ds.interleave(lambda d: d, cycle_length=3)] == [0, 0, 0, 1, 1, 2]


def test_windows_can_be_mapped_and_zipped_as_datasets():
    windows = Dataset.range(6).window(3).map(lambda w: w.batch(3))
    assert windows.element_spec == tf.data.DatasetSpec(tf.TensorSpec([None], tf.int64))
    assert [b.numpy().tolist() for b in windows.flat_map(lambda d: d)] == [[0, 1, 2], [3, 4, 5]]
    zipped = Dataset.zip((Dataset.range(6).window(2), Dataset.range(3)))
    assert [(list(w.as_numpy_iterator()), int(i)) for w, i in zipped] == [([0, 1], 0), ([2, 3], 1), ([4, 5], 2)]


def test_dataset_elements_refuse_numpy_iteration_and_batching():
    nested = Dataset.from_tensors(Dataset.range(2))
    with pytest.raises(TypeError, match="as_numpy_iterator.*not supported for datasets that produce values of type"):
        nested.as_numpy_iterator()
    with pytest.raises(tf.errors.UnimplementedError, match="component 0.*_VariantDataset"):
        list(nested.repeat(2).batch(2))


# ---- py_function / numpy_function static shapes ----

def test_py_function_outputs_have_an_unknown_static_shape_in_map():
    ds = Dataset.range(3).map(lambda x: tf.py_function(lambda v: v * 2, [x], tf.int64))
    assert repr(ds.element_spec) == "TensorSpec(shape=<unknown>, dtype=tf.int64, name=None)"
    assert [int(v) for v in ds] == [0, 2, 4]
    assert ds.batch(2).element_spec.shape.rank is None  # batching an unknown rank keeps it unknown
    pair = Dataset.range(3).map(lambda x: tf.numpy_function(lambda v: (v, np.float32(v)), [x],
                                                            [tf.int64, tf.float32]))
    assert [s.shape.rank for s in pair.element_spec] == [None, None]
    assert [s.dtype for s in pair.element_spec] == [tf.int64, tf.float32]


def test_unknown_rank_components_batch_as_tf():
    ranges = Dataset.range(1, 4).map(lambda x: tf.py_function(lambda v: tf.range(v), [x], tf.int64))
    with pytest.raises(ValueError, match="You must provide `padded_shapes` argument because component 0 has unknown "
                                         "rank."):
        ranges.padded_batch(2)
    padded = ranges.padded_batch(2, padded_shapes=[None])
    assert padded.element_spec.shape.as_list() == [None, None]
    assert [b.numpy().tolist() for b in padded] == [[[0, 0], [0, 1]], [[0, 1, 2]]]
    assert [b.numpy().tolist() for b in ranges.rebatch(1)] == [[0], [0], [1], [0], [1], [2]]
    # ragged_batch leaves a component of unknown rank dense (TF's _DenseToRaggedDataset), so rows must agree
    for batched in (ranges.batch(2), ranges.ragged_batch(2)):
        assert batched.element_spec.shape.rank is None
        with pytest.raises(tf.errors.InvalidArgumentError):
            list(batched)


def test_set_shape_and_ensure_shape_state_the_static_shape():
    def load(x):
        image = tf.numpy_function(lambda v: np.full((4, 2), v, np.float32), [x], tf.float32)
        image.set_shape([None, 2])
        label = tf.ensure_shape(tf.py_function(lambda v: v, [x], tf.int64), [])
        return image, label

    ds = Dataset.range(3).map(load)
    assert [s.shape.as_list() for s in ds.element_spec] == [[None, 2], []]
    assert [s.shape.as_list() for s in ds.batch(2, drop_remainder=True).element_spec] == [[2, None, 2], [2]]
    assert [(i.shape.as_list(), int(lab)) for i, lab in ds] == [([4, 2], 0), ([4, 2], 1), ([4, 2], 2)]


def test_a_py_function_returning_its_input_leaves_the_input_known():
    ds = Dataset.range(3).map(lambda x: (x, tf.py_function(lambda v: v, [x], tf.int64)))
    assert [s.shape.rank for s in ds.element_spec] == [0, None]
    assert [(int(a), int(b)) for a, b in ds] == [(0, 0), (1, 1), (2, 2)]


def test_tensors_computed_from_a_py_function_output_have_tfs_static_shape():
    # TF's shape inference: `out + 1` is as unknown as `out`; a full reduction is a scalar whatever the rank
    # (more ops: test_crosscheck_map_function_ops.py).
    ds = Dataset.range(2).map(lambda x: tf.py_function(lambda v: tf.fill([3], v), [x], tf.int64) + 1)
    assert repr(ds.element_spec) == "TensorSpec(shape=<unknown>, dtype=tf.int64, name=None)"
    assert [v.numpy().tolist() for v in ds] == [[1, 1, 1], [2, 2, 2]]
    total = Dataset.range(2).map(lambda x: tf.reduce_sum(tf.py_function(lambda v: tf.fill([3], v), [x], tf.int64)))
    assert total.element_spec.shape.as_list() == []


def test_py_function_can_return_strings():
    out = tf.py_function(lambda x: str(int(x)) * 2, [tf.constant(7)], tf.string)
    assert out.dtype == tf.string and out.numpy() == b"77"
    ds = Dataset.range(2).map(lambda x: tf.py_function(lambda v: np.array([b"a"] * (int(v) + 1), object), [x],
                                                       tf.string))
    assert repr(ds.element_spec) == "TensorSpec(shape=<unknown>, dtype=tf.string, name=None)"
    assert [v.numpy().tolist() for v in ds] == [[b"a"], [b"a", b"a"]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot be converted to tf.string"):
        tf.py_function(lambda: 1.5, [], tf.string)


def test_set_shape_checks_compatibility_with_tf_wording():
    t = tf.constant([[1.0, 2.0, 3.0]])
    t.set_shape([None, 3])
    t.set_shape(None)
    assert t.shape == (1, 3)
    with pytest.raises(ValueError, match=r"^Tensor's shape \(1, 3\) is not compatible with supplied shape \(3,\)\.$"):
        t.set_shape([3])
    s = tf.constant([b"a", b"b"])
    s.set_shape([2])
    with pytest.raises(ValueError, match="supplied shape"):
        s.set_shape([3])


def test_ensure_shape_returns_its_input_or_raises_tf_invalid_argument():
    x = tf.constant([[1, 2, 3], [4, 5, 6]])
    assert tf.ensure_shape(x, [None, 3]) is x
    assert tf.ensure_shape([1.0, 2.0], (2,)).numpy().tolist() == [1.0, 2.0]
    assert tf.ensure_shape(x, tf.TensorShape(None)) is x
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Shape of tensor input \[2,3\] is not compatible with expected shape \[\?,2\]\.$"):
        tf.ensure_shape(x, [None, 2])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"input \[\] is not compatible with expected shape \[3\]\.$"):
        tf.ensure_shape(tf.constant(1), [3])


# ---- something that should be a dataset ----

def test_a_non_dataset_is_a_type_error_and_tf_attribute_error():
    strategy = tf.distribute.MirroredStrategy(["CPU:0"])
    for call in (lambda: strategy.experimental_distribute_dataset([1, 2]),
                 lambda: strategy.distribute_datasets_from_function(lambda ctx: np.arange(3)),
                 lambda: list(Dataset.range(2).flat_map(lambda x: x))):
        with pytest.raises(TypeError, match="must be a `tf.data.Dataset`, got (list|ndarray|Tensor)") as info:
            call()
        assert isinstance(info.value, AttributeError)  # what TF 2.21 raises there
