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


def _ragged(tf, x):
    return tf.ragged.constant([[1, 2], [3]]) * tf.cast(x + 1, tf.int32)


def _ragged_ops(tf):
    r3 = tf.ragged.constant([[[1, 2], [3]], [[4]]])
    return {
        "concat 0": lambda x: tf.concat([_ragged(tf, x), _ragged(tf, x)], axis=0),
        "concat 1": lambda x: tf.concat([_ragged(tf, x), _ragged(tf, x)], axis=-1),
        "concat dense": lambda x: tf.concat([_ragged(tf, x), tf.fill([1, 2], tf.cast(x, tf.int32))], 0),
        "gather": lambda x: tf.gather(_ragged(tf, x), [1, 0, 1]),
        "gather nested": lambda x: tf.gather(_ragged(tf, x), [[1], [0]]),
        "expand_dims 0": lambda x: tf.expand_dims(_ragged(tf, x), 0),
        "expand_dims 1": lambda x: tf.expand_dims(_ragged(tf, x), 1),
        "expand_dims -1": lambda x: tf.expand_dims(_ragged(tf, x), -1),
        "reduce_sum": lambda x: tf.reduce_sum(_ragged(tf, x)),
        "reduce_sum 1": lambda x: tf.reduce_sum(_ragged(tf, x), axis=1),
        "reduce_sum 0": lambda x: tf.reduce_sum(_ragged(tf, x), axis=0),
        "reduce_sum keepdims": lambda x: tf.math.reduce_sum(_ragged(tf, x), 1, keepdims=True),
        "reduce_max empty row": lambda x: tf.reduce_max(tf.concat([_ragged(tf, x), tf.ragged.constant([[]], tf.int32)],
                                                                 0), 1),
        "reduce_mean int": lambda x: tf.reduce_mean(_ragged(tf, x), 1),
        "reduce_prod 0": lambda x: tf.reduce_prod(_ragged(tf, x), 0),
        "rank 3 sum 0": lambda x: tf.reduce_sum(r3 * tf.cast(x, tf.int32), 0),
        "rank 3 sum 1": lambda x: tf.reduce_sum(r3 * tf.cast(x, tf.int32), 1),
        "rank 3 mean 2": lambda x: tf.reduce_mean(tf.cast(r3, tf.float32) * tf.cast(x, tf.float32), 2),
        "boolean_mask": lambda x: tf.ragged.boolean_mask(_ragged(tf, x), _ragged(tf, x) > 2),
        "boolean_mask rows": lambda x: tf.ragged.boolean_mask(_ragged(tf, x), tf.constant([False, True])),
        "boolean_mask dense": lambda x: tf.ragged.boolean_mask(
            tf.fill([2, 3], x), tf.constant([[True, False, True], [False, False, True]])),
        "boolean_mask rank 3": lambda x: tf.ragged.boolean_mask(r3 * tf.cast(x, tf.int32),
                                                                tf.ragged.constant([[True, False], [True]])),
        "stack": lambda x: tf.ragged.stack([_ragged(tf, x), _ragged(tf, x)]),
        "stack 1": lambda x: tf.ragged.stack([_ragged(tf, x), _ragged(tf, x)], axis=1),
        "stack 2": lambda x: tf.ragged.stack([_ragged(tf, x), _ragged(tf, x)], axis=2),
    }


def _spec(tf, fn):
    spec = tf.data.Dataset.range(2).map(fn).element_spec
    kind = "RaggedTensorSpec" if isinstance(spec, tf.RaggedTensorSpec) else (
        "TensorSpec" if isinstance(spec, tf.TensorSpec) else type(spec).__name__)  # ours: StringSpec is a TensorSpec
    return [kind, None if spec.shape.rank is None else spec.shape.as_list(), spec.dtype.name,
            getattr(spec, "ragged_rank", None)]


def _value(result):
    if hasattr(result, "to_list"):
        return {"ragged": result.to_list(), "shape": result.shape.as_list(), "dtype": result.dtype.name}
    return result


@case()
def ragged_ops_eager(tf):
    return {name: error_of(lambda fn=fn: _value(fn(tf.constant(1, tf.int64)))) for name, fn in _ragged_ops(tf).items()}


@case()
def ragged_ops_in_map(tf):
    return {name: error_of(lambda fn=fn: _spec(tf, fn)) for name, fn in _ragged_ops(tf).items()}


@case()
def ragged_op_errors(tf):
    rt = tf.ragged.constant([[1, 2], [], [3]])
    return {"concat axis 2": error_of(lambda: tf.concat([rt, rt], 2)),
            "concat rows differ": error_of(lambda: tf.concat([rt, tf.ragged.constant([[1]])], 1)),
            "gather out of range": error_of(lambda: tf.gather(rt, [3])),
            "expand_dims axis 3": error_of(lambda: tf.expand_dims(rt, 3)),
            "reduce axis 2": error_of(lambda: tf.reduce_sum(rt, 2)),
            "mask not bool": error_of(lambda: tf.ragged.boolean_mask(rt, tf.ragged.constant([[1, 0], [], [1]]))),
            "mask scalar": error_of(lambda: tf.ragged.boolean_mask(rt, True)),
            "mask rows differ": error_of(lambda: tf.ragged.boolean_mask(rt, tf.ragged.constant([[True], [True]]))),
            "stack rows differ": error_of(lambda: tf.ragged.stack([rt, tf.ragged.constant([[1]])], axis=1))}


@case()
def ragged_row_lengths_and_bounds(tf):
    r3 = tf.ragged.constant([[[1, 2], [3]], [[4]], []])
    dense_inner = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    out = {f"row_lengths {axis}": error_of(lambda axis=axis: _value(r3.row_lengths(axis=axis)))
           for axis in (0, 1, 2, -1, -3, 3)}
    out.update({f"dense inner row_lengths {axis}": error_of(lambda axis=axis: _value(dense_inner.row_lengths(axis)))
                for axis in (1, 2)})
    out.update({"bounding int32": r3.bounding_shape(out_type=tf.int32),
                "bounding axis int32": r3.bounding_shape(axis=1, out_type=tf.int32),
                "bounding default": r3.bounding_shape(), "bounding axis": r3.bounding_shape(2)})
    return out


@case()
def unicode_case_mapping(tf):
    words = tf.constant(["héllo ÉCOLE ß ǅ İ", "straße", "ΟΔΟΣ", "ABC"])
    return {"upper utf-8": tf.strings.upper(words, encoding="utf-8"),
            "lower utf-8": tf.strings.lower(words, encoding="utf-8"),
            "upper ascii": tf.strings.upper(words), "lower ascii": tf.strings.lower(words),
            "invalid bytes": tf.strings.upper(tf.constant([b"\xff\xfea"]), encoding="utf-8"),
            "other encoding": error_of(lambda: tf.strings.upper(words, encoding="latin1"))}


@case()
def regex_ops(tf):
    words = tf.constant(["héllo ÉCOLE", "straße", "ABC", "a1b22 c"])
    rr = tf.strings.regex_replace
    return {"vowels": rr(words, "[aeiou]", "_"), "first only": rr(words, "l+", "L", replace_global=False),
            "groups": rr(words, r"(\w)(\w)", r"\2\1"), "group 0": rr(["abc"], "b", r"[\0]"),
            "dollar literal": rr(["abc"], "b", "$1"), "empty pattern": rr(["abc"], "", "-"),
            "empty after match": rr(["abxd", "xx"], "x*", "-"), "backslash": rr(["a.b"], r"\.", r"\\"),
            "dot is a character": rr(["héllo"], ".", "x"), "digits": rr(words, r"\d+", "#"),
            "unicode not a word char": rr(["é_a"], r"\w", "w"), "posix class": rr(["a1-B"], "[[:alpha:]]", "L"),
            "end of text": rr(["ab\nab"], r"b\z", "X"), "no dotall": rr(["a\nb"], "a.b", "X"),
            "multiline flag": rr(["ab\nab"], "(?m)^a", "X"), "rank 2": rr([["ab"], ["cd"]], "[bd]", "X"),
            "full match": tf.strings.regex_full_match(words, "[a-zß]+"),
            "full match prefix": tf.strings.regex_full_match(["abc", "ab"], "ab"),
            "full match scalar": tf.strings.regex_full_match("abc", "a.c"),
            "named group": tf.strings.regex_full_match(["ab"], "(?P<x>a)b"),
            "bad pattern": error_of(lambda: rr(words, "(", "_")),
            "backreference": error_of(lambda: rr(["aa"], r"(a)\1", "x")),
            "lookahead": error_of(lambda: rr(["ab"], "a(?=b)", "x")),
            "full match bad pattern": error_of(lambda: tf.strings.regex_full_match(["a"], "[")),
            "ragged": _value(rr(tf.strings.split(["a b", "c"]), "[ac]", "X")),
            "ragged full match": _value(tf.strings.regex_full_match(tf.strings.split(["a b", "c"]), "[ac]")),
            "ragged upper": _value(tf.strings.upper(tf.strings.split(["é b", "c"]), encoding="utf-8"))}


@case()
def strings_in_map(tf):
    def words(x):
        return tf.strings.as_string(tf.fill([2], x))

    checks = {"regex_replace": lambda x: tf.strings.regex_replace(words(x), "1", "one"),
              "regex_full_match": lambda x: tf.strings.regex_full_match(words(x), "[0-9]"),
              "upper utf-8": lambda x: tf.strings.upper(words(x), encoding="utf-8")}
    return {name: error_of(lambda fn=fn: _spec(tf, fn)) for name, fn in checks.items()}


@case()
def einsum_repeated_labels(tf):
    x = tf.reshape(tf.range(9.0), [3, 3])
    y = tf.reshape(tf.range(18.0), [3, 3, 2])
    v = tf.constant([1.0, 2.0, 3.0])
    xv = tf.Variable(x)
    with tf.GradientTape() as tape:
        diagonal = tf.einsum("ii->i", xv) * v
    return {"trace": tf.einsum("ii", x), "trace explicit": tf.einsum("ii->", x), "diagonal": tf.einsum("ii->i", x),
            "iij->j": tf.einsum("iij->j", y), "iij->ij": tf.einsum("iij->ij", y), "ii,i->i": tf.einsum("ii,i->i", x, v),
            "ij,jj->i": tf.einsum("ij,jj->i", x, x), "int trace": tf.einsum("ii", tf.constant([[1, 2], [3, 4]])),
            "batched diagonal": tf.einsum("...ii->...i", tf.reshape(y, [2, 3, 3])),
            "diagonal gradient": tape.gradient(diagonal, xv),
            "sizes differ": error_of(lambda: tf.einsum("ii", tf.zeros([2, 3]))),
            "in map": error_of(lambda: _spec(tf, lambda s: tf.einsum("ii->i", tf.fill([3, 3], tf.cast(s, "float32")))))}


@case()
def unsorted_segment_sqrt_n(tf):
    data = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    f = tf.math.unsorted_segment_sqrt_n
    return {"rows": f(data, [0, 1, 0, -1], 3), "2-D ids": f(tf.constant([[1.0, 2.0], [3.0, 4.0]]), [[0, 1], [1, 1]], 2),
            "float64": f(tf.constant([1.0, 2.0], tf.float64), [0, 0], 1),
            "int data": error_of(lambda: f(tf.constant([1, 2]), [0, 0], 1)),
            "id out of range": error_of(lambda: f(tf.constant([1.0, 2.0]), [0, 3], 2))}
