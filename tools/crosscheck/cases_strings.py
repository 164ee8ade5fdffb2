"""tf.string tensors, RaggedTensors from pipelines (strings.split, ragged_batch, batch of ragged elements)."""

from __future__ import annotations

from crosscheck.describe import Repr, error_of
from crosscheck.registry import case


def _ragged(r):
    return {"spec_shape": Repr(str(r.shape)), "ragged_rank": r.ragged_rank, "dtype": Repr(repr(r.dtype)),
            "list": Repr(repr(r.to_list()))}


@case()
def string_tensors(tf):
    t = tf.constant(["a", "bc"])
    return {"repr": Repr(repr(t)), "scalar": Repr(repr(tf.constant(b"x"))), "str": Repr(str(t)),
            "numpy": Repr(repr(t.numpy())), "eq": Repr(repr(t == "a")), "index": Repr(repr(t[1])),
            "dtype": Repr(str(t.dtype)), "concat": Repr(repr(tf.constant("a") + tf.constant("b"))),
            "reshape": Repr(repr(tf.reshape(t, [2, 1]))), "spec": Repr(repr(tf.TensorSpec([], tf.string))),
            "numeric op": error_of(lambda: tf.reduce_sum(t)), "add int": error_of(lambda: t + 1),
            "cast": error_of(lambda: tf.cast(t, tf.int32))}


@case()
def string_datasets(tf):
    ds = tf.data.Dataset.from_tensor_slices(["a", "b", "c"]).batch(2)
    return {"spec": Repr(repr(ds.element_spec)), "elements": [Repr(repr(x)) for x in ds],
            "numpy": Repr(repr(list(ds.as_numpy_iterator()))),
            "upper": [Repr(repr(x)) for x in ds.map(tf.strings.upper)]}


@case()
def ragged_tensors(tf):
    r = tf.ragged.constant([[1, 2], [3]])
    return {"constant": _ragged(r), "repr": Repr(repr(r)), "row_splits": r.row_splits, "values": r.values,
            "to_tensor": r.to_tensor(), "to_tensor shaped": r.to_tensor(default_value=9, shape=[3, 3]),
            "map_flat_values": _ragged(tf.ragged.map_flat_values(tf.multiply, r, 2)),
            "value_rowids": _ragged(tf.RaggedTensor.from_value_rowids([1, 2, 3, 4], [0, 0, 2, 2], nrows=4)),
            "row_lengths": _ragged(tf.RaggedTensor.from_row_lengths([1, 2, 3], [0, 3])),
            "uniform inner": _ragged(tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)),
            "split rank 1": _ragged(tf.strings.split(tf.constant(["a b", "c"]))),
            "split rank 2": _ragged(tf.strings.split(tf.constant([["a b", "c"], ["d", "e f g"]]))),
            "bad splits": error_of(lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [1, 3]))}


@case()
def ragged_datasets(tf):
    ranges = tf.data.Dataset.range(5).map(lambda x: tf.range(x)).ragged_batch(2)
    words = tf.data.Dataset.from_tensor_slices(["a b", "c", "d e f"]).map(tf.strings.split).ragged_batch(2)
    nested = tf.data.Dataset.from_tensors(tf.ragged.constant([[1, 2], [3]])).repeat(3).batch(2)
    return {"ragged_batch spec": Repr(repr(ranges.element_spec)), "ragged_batch": [_ragged(r) for r in ranges],
            "words spec": Repr(repr(words.element_spec)), "words": [_ragged(r) for r in words],
            "batch of ragged spec": Repr(repr(nested.element_spec)), "batch of ragged": [_ragged(r) for r in nested],
            "unbatch spec": Repr(repr(nested.unbatch().element_spec))}


@case()
def sequence_examples(tf):
    def feature(kind, values):
        if kind == "int":
            return tf.train.Feature(int64_list=tf.train.Int64List(value=values))
        return tf.train.Feature(float_list=tf.train.FloatList(value=values))

    def sequence(length, tokens, vectors):
        lists = {"tok": tf.train.FeatureList(feature=[feature("int", t) for t in tokens]),
                 "vec": tf.train.FeatureList(feature=[feature("float", v) for v in vectors])}
        return tf.train.SequenceExample(context=tf.train.Features(feature={"len": feature("int", [length])}),
                                        feature_lists=tf.train.FeatureLists(feature_list=lists)).SerializeToString()

    def sparse(sp):
        return Repr(repr((sp.indices.numpy().tolist(), sp.values.numpy().tolist(), sp.dense_shape.numpy().tolist())))

    batch = [sequence(2, [[1], [2, 3]], [[1.0, 2.0], [3.0, 4.0]]), sequence(1, [[4]], [[5.0, 6.0]])]
    context_spec = {"len": tf.io.FixedLenFeature([], tf.int64)}
    sequence_spec = {"tok": tf.io.VarLenFeature(tf.int64), "vec": tf.io.FixedLenSequenceFeature([2], tf.float32)}
    context, lists = tf.io.parse_single_sequence_example(batch[0], context_spec, sequence_spec)
    b_context, b_lists, lengths = tf.io.parse_sequence_example(batch, context_spec, sequence_spec)
    return {"context": context["len"], "vec": lists["vec"], "tok": sparse(lists["tok"]),
            "batched context": b_context["len"], "batched vec": b_lists["vec"], "batched tok": sparse(b_lists["tok"]),
            "lengths": lengths["vec"],
            "missing list": error_of(lambda: tf.io.parse_single_sequence_example(
                batch[0], None, {"nope": tf.io.FixedLenSequenceFeature([], tf.int64)})),
            "bad stride": error_of(lambda: tf.io.parse_single_sequence_example(
                batch[0], None, {"vec": tf.io.FixedLenSequenceFeature([3], tf.float32)}))}
