"""Static shapes downstream of tf.py_function / tf.numpy_function inside Dataset.map, as TF's shape inference
gives them: the common ops a map function applies to an output of unknown shape, and to one that set_shape made
[None, 2]. Each check is the element_spec's shape of one small map (None for an unknown rank). Also tf.string
inputs to py_function / numpy_function (a decoder's file names)."""

from __future__ import annotations

import numpy as np

from crosscheck.describe import Repr, error_of
from crosscheck.registry import case


def _shapes(tf, fn):
    spec = tf.data.Dataset.range(2).map(fn).element_spec
    return [None if s.shape.rank is None else s.shape.as_list() for s in tf.nest.flatten(spec)]


def _each(tf, checks: dict) -> dict:
    return {name: error_of(lambda fn=fn: _shapes(tf, fn)) for name, fn in checks.items()}


@case()
def py_function_unknown_shape_through_ops(tf):
    def out(x):  # unknown static shape; [3] when it runs
        return tf.py_function(lambda v: tf.fill([3], v), [x], tf.int64)

    return _each(tf, {
        "add_scalar": lambda x: out(x) + 1, "add_vector": lambda x: out(x) + tf.ones([3], tf.int64),
        "cast": lambda x: tf.cast(out(x), tf.float32), "negate": lambda x: -out(x),
        "equal": lambda x: tf.equal(out(x), 1), "identity": lambda x: tf.identity(out(x)),
        "zeros_like": lambda x: tf.zeros_like(out(x)), "reduce_all_axes": lambda x: tf.reduce_sum(out(x)),
        "reduce_axis_0": lambda x: tf.reduce_sum(out(x), axis=0),
        "reduce_keepdims": lambda x: tf.reduce_sum(out(x), keepdims=True),
        "reshape_minus_one": lambda x: tf.reshape(out(x), [-1]), "reshape_known": lambda x: tf.reshape(out(x), [3, 1]),
        "reshape_minus_one_by_1": lambda x: tf.reshape(out(x), [-1, 1]),
        "expand_dims": lambda x: tf.expand_dims(out(x), 0), "shape": lambda x: tf.shape(out(x)),
        "size": lambda x: tf.size(out(x)), "index": lambda x: out(x)[0], "slice": lambda x: out(x)[1:],
        "stack": lambda x: tf.stack([out(x), out(x)]), "concat": lambda x: tf.concat([out(x), out(x)], 0),
        "one_hot": lambda x: tf.one_hot(out(x), 4), "where_indices": lambda x: tf.where(out(x) > 0),
        "argmax": lambda x: tf.argmax(out(x)), "transpose": lambda x: tf.transpose(out(x)),
        "squeeze": lambda x: tf.squeeze(out(x)), "pair_with_input": lambda x: (out(x) * 2, x),
    })


@case()
def py_function_partial_shape_through_ops(tf):
    def out(x):  # static [None, 2]; [4, 2] when it runs
        image = tf.numpy_function(lambda v: np.full((4, 2), v, np.float32), [x], tf.float32)
        image.set_shape([None, 2])
        return image

    return _each(tf, {
        "add": lambda x: out(x) + 1.0, "multiply_row": lambda x: out(x) * tf.ones([2]),
        "cast": lambda x: tf.cast(out(x), tf.int32), "mean_axis_1": lambda x: tf.reduce_mean(out(x), axis=1),
        "mean_axis_0": lambda x: tf.reduce_mean(out(x), axis=0), "max_all": lambda x: tf.reduce_max(out(x)),
        "sum_keepdims": lambda x: tf.reduce_sum(out(x), axis=1, keepdims=True),
        "sum_of_squares": lambda x: tf.reduce_sum(tf.square(out(x)), -1),
        "reshape_minus_one": lambda x: tf.reshape(out(x), [-1]),
        "reshape_minus_one_by_4": lambda x: tf.reshape(out(x), [-1, 4]),
        "transpose": lambda x: tf.transpose(out(x)), "expand_dims": lambda x: tf.expand_dims(out(x), -1),
        "row": lambda x: out(x)[0], "column": lambda x: out(x)[:, 0], "rows": lambda x: out(x)[1:3],
        "matmul": lambda x: tf.matmul(out(x), tf.ones([2, 5])), "concat_0": lambda x: tf.concat([out(x), out(x)], 0),
        "concat_1": lambda x: tf.concat([out(x), out(x)], 1), "stack_1": lambda x: tf.stack([out(x), out(x)], 1),
        "shape": lambda x: tf.shape(out(x)), "squeeze": lambda x: tf.squeeze(out(x)),
        "argmax_1": lambda x: tf.argmax(out(x), axis=1), "where": lambda x: tf.where(out(x) > 0, out(x), 0.0),
        "gather": lambda x: tf.gather(out(x), [0, 1, 1]), "gather_axis_1": lambda x: tf.gather(out(x), [1], axis=1),
        "tile": lambda x: tf.tile(out(x), [2, 3]), "pad": lambda x: tf.pad(out(x), [[1, 1], [0, 2]]),
        "unstack_1": lambda x: tf.unstack(out(x), axis=1)[0], "split_1": lambda x: tf.split(out(x), 2, axis=1)[0],
        "softmax": lambda x: tf.nn.softmax(out(x)), "one_hot": lambda x: tf.one_hot(tf.cast(out(x), tf.int32), 3),
        "sort": lambda x: tf.sort(out(x)), "argsort": lambda x: tf.argsort(out(x), axis=0),
        "top_k": lambda x: tf.math.top_k(out(x), 1), "cumsum": lambda x: tf.cumsum(out(x), axis=0),
        "reverse": lambda x: tf.reverse(out(x), [0]),
        "flip_left_right": lambda x: tf.image.flip_left_right(tf.expand_dims(out(x), -1)),
        "boolean_mask": lambda x: tf.boolean_mask(out(x), out(x)[:, 0] > 0),
    })


@case()
def data_dependent_sizes_in_map(tf):
    # Sizes that depend on values are unknown to TF's shape inference even when every input shape is known.
    def row(x):
        return tf.cast(tf.range(4), tf.int64) - x

    return _each(tf, {
        "boolean_mask": lambda x: tf.boolean_mask(row(x), row(x) > 0),
        "boolean_mask_2d": lambda x: tf.boolean_mask(tf.reshape(tf.range(6), [2, 3]), [True, False]),
        "unique": lambda x: tf.unique(row(x) % 2), "where_indices": lambda x: tf.where(row(x) > 0),
        "where_select": lambda x: tf.where(row(x) > 0, row(x), 0),
    })


@case()
def py_function_string_inputs(tf):
    # A pipeline of file names or records hands tf.string tensors to Python code (a decoder).
    names = tf.data.Dataset.from_tensor_slices([b"a", b"bb"])
    echoed = names.map(lambda s: (s, tf.py_function(lambda v: v, [s], tf.string)))
    lengths = names.map(lambda s: tf.py_function(lambda v: tf.strings.length(v), [s], tf.int32))
    numpy_types = names.map(lambda s: tf.numpy_function(lambda v: type(v).__name__.encode(), [s], tf.string))
    return {"spec": Repr(repr(echoed.element_spec)), "echoed": list(echoed.as_numpy_iterator()),
            "lengths": list(lengths.as_numpy_iterator()), "numpy_types": list(numpy_types.as_numpy_iterator()),
            "eager": error_of(lambda: tf.py_function(lambda v: v + b"!", ["x"], tf.string))}
