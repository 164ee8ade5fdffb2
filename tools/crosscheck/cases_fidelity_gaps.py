"""TF-fidelity gaps reviewers found in pipelines (#14, fidelity3): linspace / meshgrid dtypes, ragged ops eager and
inside Dataset.map, RaggedTensor.row_lengths(axis) / bounding_shape(out_type), Unicode upper / lower, regex ops,
einsum with a repeated label, unsorted_segment_sqrt_n. Each check is TF 2.21's value, dtype and shape, or error type."""

from __future__ import annotations

from crosscheck.describe import error_of
from crosscheck.registry import case


@case()
def linspace_dtypes(tf):
    return {"python ints": tf.linspace(0, 10, 5), "int64": tf.linspace(tf.constant(0, tf.int64), 10, 5),
            "int16": tf.linspace(tf.constant(0, tf.int16), 3, 5), "uint8": tf.linspace(tf.constant(0, tf.uint8), 4, 5),
            "python floats": tf.linspace(0.0, 1.0, 5), "float16": tf.linspace(tf.constant(0.0, tf.float16), 1.0, 5),
            "int vectors": tf.linspace(tf.constant([0, 1]), tf.constant([4, 5]), 5),
            "int axis 1": tf.linspace(tf.constant([0, 1]), tf.constant([4, 5]), 3, axis=1),
            "float stop for int start": error_of(lambda: tf.linspace(0, 1.5, 3))}


@case()
def meshgrid_dtypes(tf):
    return {"ints": tf.meshgrid([1, 2], [3, 4, 5]), "floats ij": tf.meshgrid([1.0, 2.0], [3.0], indexing="ij"),
            "int then float": error_of(lambda: tf.meshgrid(tf.constant([1, 2]), tf.constant([1.0, 2.0]))),
            "float then int": error_of(lambda: tf.meshgrid([1.0, 2.0], [1, 2])),
            "int32 then int64": error_of(lambda: tf.meshgrid(tf.constant([1]), tf.constant([1], tf.int64)))}
