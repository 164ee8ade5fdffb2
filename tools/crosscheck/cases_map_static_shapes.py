"""Static shapes TF keeps through einsum, segment reductions, string ops and ragged ops inside Dataset.map
(#14): each check is the element_spec of one small map, as TF's shape functions give it. Inputs depend on the
element (so nothing folds to a constant), except where a check is about a constant argument (segment ids,
num_segments).

Measured but left out until built (TF 2.21 → ours): the row_lengths / flat_values / to_tensor of a strings.split
result keep their real sizes where TF's are unknown. (einsum traces, unsorted_segment_sqrt_n, regex ops and the
ragged ops in map are checked in cases_fidelity_gaps.py.)"""

from __future__ import annotations

import numpy as np

from crosscheck.describe import error_of
from crosscheck.registry import case


def _spec(tf, fn):
    spec = tf.data.Dataset.range(2).map(fn).element_spec
    out = []
    for s in tf.nest.flatten(spec, expand_composites=False):
        shape = None if s.shape.rank is None else s.shape.as_list()
        kind = "RaggedTensorSpec" if isinstance(s, tf.RaggedTensorSpec) else (
            "TensorSpec" if isinstance(s, tf.TensorSpec) else type(s).__name__)  # ours: StringSpec is a TensorSpec
        out.append([kind, shape, s.dtype.name])
    return out


def _each(tf, checks: dict) -> dict:
    return {name: error_of(lambda fn=fn: _spec(tf, fn)) for name, fn in checks.items()}


def _matrix(tf, x, rows, cols):
    return tf.fill([rows, cols], tf.cast(x, tf.float32))


def _partial(tf, x, cols):  # static [None, cols]; [3, cols] when it runs
    out = tf.numpy_function(lambda v: np.full((3, cols), v, np.float32), [x], tf.float32)
    out.set_shape([None, cols])
    return out


@case()
def map_static_shapes_einsum(tf):
    return _each(tf, {
        "matmul": lambda x: tf.einsum("ij,jk->ik", _matrix(tf, x, 2, 3), _matrix(tf, x, 3, 4)),
        "batch_matmul": lambda x: tf.einsum("bij,bjk->bik", tf.ones([5, 2, 3]) * tf.cast(x, tf.float32),
                                            tf.ones([5, 3, 4])),
        "outer": lambda x: tf.einsum("i,j->ij", tf.ones([2]) * tf.cast(x, tf.float32), tf.ones([3])),
        "partial_matmul": lambda x: tf.einsum("ij,jk->ik", _partial(tf, x, 3), tf.ones([3, 4])),
        "partial_transpose": lambda x: tf.einsum("ij->ji", _partial(tf, x, 3)),
        "partial_sum_rows": lambda x: tf.einsum("ij->j", _partial(tf, x, 3)),
        "ellipsis": lambda x: tf.einsum("...j,jk->...k", _partial(tf, x, 3), tf.ones([3, 4])),
    })


@case()
def map_static_shapes_segments(tf):
    ids = [0, 0, 2]
    return _each(tf, {
        "segment_sum": lambda x: tf.math.segment_sum(_matrix(tf, x, 3, 2), ids),
        "segment_mean": lambda x: tf.math.segment_mean(_matrix(tf, x, 3, 2), tf.constant(ids)),
        "segment_max": lambda x: tf.math.segment_max(_matrix(tf, x, 3, 2), ids),
        "segment_sum_vector": lambda x: tf.math.segment_sum(tf.ones([3]) * tf.cast(x, tf.float32), ids),
        "segment_sum_ids_of_x": lambda x: tf.math.segment_sum(_matrix(tf, x, 3, 2), tf.cast(tf.fill([3], x), tf.int32)),
        "segment_sum_partial": lambda x: tf.math.segment_sum(_partial(tf, x, 2), ids),
        "unsorted_sum": lambda x: tf.math.unsorted_segment_sum(_matrix(tf, x, 3, 2), ids, 4),
        "unsorted_mean": lambda x: tf.math.unsorted_segment_mean(_matrix(tf, x, 3, 2), ids, 4),
        "unsorted_max": lambda x: tf.math.unsorted_segment_max(_matrix(tf, x, 3, 2), ids, 4),
        "unsorted_partial": lambda x: tf.math.unsorted_segment_sum(_partial(tf, x, 2), [0, 1, 1], 4),
        "unsorted_num_of_x": lambda x: tf.math.unsorted_segment_sum(_matrix(tf, x, 3, 2), ids,
                                                                     tf.cast(x, tf.int32) + 3),
    })


@case()
def map_static_shapes_strings(tf):
    def words(x):  # a [2] string vector that depends on the element
        return tf.strings.join([tf.strings.as_string(x), tf.constant(["a b", "c d e"])], separator=" ")

    return _each(tf, {
        "split": lambda x: tf.strings.split(words(x)),
        "split_scalar": lambda x: tf.strings.split(tf.strings.as_string(x)),
        "split_sep": lambda x: tf.strings.split(words(x), sep=" "),
        "length": lambda x: tf.strings.length(words(x)),
        "length_utf8": lambda x: tf.strings.length(words(x), unit="UTF8_CHAR"),
        "substr": lambda x: tf.strings.substr(words(x), 0, 2),
        "join": lambda x: tf.strings.join([words(x), words(x)]),
        "join_scalar": lambda x: tf.strings.join([tf.strings.as_string(x), "z"]),
        "reduce_join": lambda x: tf.strings.reduce_join(words(x)),
        "reduce_join_axis": lambda x: tf.strings.reduce_join(tf.reshape(words(x), [1, 2]), axis=1),
        "upper": lambda x: tf.strings.upper(words(x)),
        "to_number": lambda x: tf.strings.to_number(tf.strings.as_string(tf.fill([3], x))),
        "as_string": lambda x: tf.strings.as_string(tf.fill([2, 3], x)),
        "bytes_split": lambda x: tf.strings.bytes_split(words(x)),
    })


@case()
def map_static_shapes_ragged(tf):
    def ragged(x):
        values = tf.range(tf.cast(x, tf.int32) + 4)
        return tf.RaggedTensor.from_row_lengths(values, [1, 3 + tf.cast(x, tf.int64)])

    return _each(tf, {
        "from_row_lengths": ragged,
        "from_row_splits": lambda x: tf.RaggedTensor.from_row_splits(tf.range(4) + tf.cast(x, tf.int32), [0, 1, 4]),
        "from_value_rowids": lambda x: tf.RaggedTensor.from_value_rowids(tf.range(3) + tf.cast(x, tf.int32),
                                                                         [0, 0, 2], nrows=3),
        "to_tensor": lambda x: ragged(x).to_tensor(),
        "to_tensor_shape": lambda x: ragged(x).to_tensor(shape=[2, 5]),
        "row_lengths": lambda x: ragged(x).row_lengths(),
        "nrows": lambda x: ragged(x).nrows(),
        "plus_one": lambda x: ragged(x) + 1,
        "map_flat_values": lambda x: tf.ragged.map_flat_values(tf.cast, ragged(x), tf.float32),
        "ragged_range": lambda x: tf.ragged.range([1, 2] + tf.cast(x, tf.int32)),
        "from_tensor": lambda x: tf.RaggedTensor.from_tensor(tf.fill([2, 3], x)),
        "from_tensor_lengths": lambda x: tf.RaggedTensor.from_tensor(tf.fill([2, 3], x), lengths=[1, 2]),
        "row_slice": lambda x: ragged(x)[1:],
        "row_index": lambda x: ragged(x)[1],
    })
