"""tpustrategy.nest keeps tf.nest's semantics: orders, container types, None, and TF's errors."""

from __future__ import annotations

import collections
import re

import attr
import pytest

from tpustrategy import nest

Point = collections.namedtuple("Point", ["y", "x"])  # field order, not alphabetical


def test_dict_leaves_follow_sorted_keys_and_packing_keeps_the_template_order():
    structure = {"b": 1, "a": 2, "c": {"z": 3, "y": 4}}
    assert nest.flatten(structure) == [2, 1, 4, 3]
    packed = nest.pack_sequence_as(structure, ["A", "B", "Y", "Z"])
    assert packed == {"b": "B", "a": "A", "c": {"z": "Z", "y": "Y"}}
    assert list(packed) == ["b", "a", "c"] and list(packed["c"]) == ["z", "y"]


def test_ordered_dict_is_sorted_too_and_rebuilt_as_an_ordered_dict_in_its_own_order():
    ordered = collections.OrderedDict([("b", 1), ("a", 2)])
    assert nest.flatten(ordered) == [2, 1]
    packed = nest.map_structure(lambda v: v * 10, ordered)
    assert type(packed) is collections.OrderedDict
    assert list(packed.items()) == [("b", 10), ("a", 20)]
    # A dict and an OrderedDict with the same keys pack into each other (TF's documented convention).
    assert nest.pack_sequence_as({"a": 0, "b": 0}, nest.flatten(ordered)) == {"a": 2, "b": 1}


def test_defaultdict_keeps_its_factory():
    counts = collections.defaultdict(int, {"b": 1, "a": 2})
    packed = nest.map_structure(lambda v: v + 1, counts)
    assert type(packed) is collections.defaultdict and packed.default_factory is int
    assert dict(packed) == {"b": 2, "a": 3} and packed["missing"] == 0


def test_namedtuple_in_field_order_and_rebuilt_with_its_type():
    point = Point(y=1, x=[2, 3])
    assert nest.flatten(point) == [1, 2, 3]
    doubled = nest.map_structure(lambda v: v * 2, point)
    assert type(doubled) is Point and doubled == Point(y=2, x=[4, 6])


def test_attrs_class_is_a_structure():
    @attr.s
    class Pair:
        second = attr.ib()
        first = attr.ib()

    pair = Pair(1, (2, 3))
    assert nest.flatten(pair) == [1, 2, 3]
    assert nest.map_structure(str, pair) == Pair("1", ("2", "3"))


def test_none_is_a_leaf():
    assert nest.flatten(None) == [None]
    assert nest.flatten([None, (None, {"a": None})]) == [None, None, None]
    seen = []
    assert nest.map_structure(lambda v: seen.append(v) or "x", {"a": None}) == {"a": "x"}
    assert seen == [None]
    assert nest.pack_sequence_as(None, [5]) == 5


def test_strings_bytes_and_arrays_are_leaves_and_sequences_are_structures():
    assert nest.flatten(["ab", b"cd"]) == ["ab", b"cd"]
    assert nest.flatten(range(3)) == [0, 1, 2]
    assert not nest.is_nested("abc") and nest.is_nested((1,)) and nest.is_nested({}) and not nest.is_nested(None)


def test_different_lengths_raise_value_error_with_tf_message():
    with pytest.raises(ValueError) as error:
        nest.assert_same_structure([1, 2], [1])
    message = str(error.value)
    assert message.startswith("The two structures don't have the same nested structure.")
    assert "The two structures don't have the same number of elements." in message
    assert "Entire first structure:\n[., .]\nEntire second structure:\n[.]" in message


def test_sequence_against_leaf_raises_value_error_even_without_type_checks():
    with pytest.raises(ValueError, match='Substructure "type=list str=\\[2\\]" is a sequence, while substructure '
                                         '"type=int str=2" is not'):
        nest.assert_same_structure([1, [2]], [1, 2], check_types=False)


def test_check_types_list_tuple_and_namedtuple():
    with pytest.raises(TypeError, match="don't have the same sequence type"):
        nest.assert_same_structure([1, 2], (1, 2))
    nest.assert_same_structure([1, 2], (1, 2), check_types=False)
    with pytest.raises(TypeError, match="has type Point, while second structure .* has type tuple"):
        nest.assert_same_structure(Point(1, 2), (1, 2))
    nest.assert_same_structure(Point(1, 2), (1, 2), check_types=False)
    # Two namedtuple classes with the same name and fields count as the same type (TF's rule).
    other_point = collections.namedtuple("Point", ["y", "x"])
    nest.assert_same_structure(Point(1, 2), other_point(3, 4))
    # dict and OrderedDict are both mappings: the same type for check_types.
    nest.assert_same_structure({"a": 1}, collections.OrderedDict(a=2))


def test_dict_keys_are_compared_only_with_check_types():
    with pytest.raises(ValueError, match="The two dictionaries don't have the same set of keys"):
        nest.assert_same_structure({"a": 1}, {"b": 1})
    nest.assert_same_structure({"a": 1}, {"b": 1}, check_types=False)


def test_map_structure_errors():
    with pytest.raises(ValueError, match="same number of elements"):
        nest.map_structure(lambda a, b: a, [1], [1, 2])
    with pytest.raises(TypeError, match="same sequence type"):
        nest.map_structure(lambda a, b: a, [1], (1,))
    assert nest.map_structure(lambda a, b: a + b, [1], (2,), check_types=False) == [3]
    with pytest.raises(ValueError, match="Must provide at least one structure"):
        nest.map_structure(lambda: 0)
    with pytest.raises(TypeError, match="func must be callable, got: 3"):
        nest.map_structure(3, [1])
    with pytest.raises(ValueError, match=re.escape("Only valid keyword arguments are `check_types` and "
                                                   "`expand_composites`, not: `strict`")):
        nest.map_structure(lambda a: a, [1], strict=True)


def test_map_structure_applies_func_in_flatten_order():
    order = []
    nest.map_structure(order.append, {"b": 1, "a": (2, 3)})
    assert order == [2, 3, 1]


def test_pack_sequence_as_errors():
    with pytest.raises(ValueError, match=re.escape("Could not pack sequence. Structure had 2 atoms, but "
                                                   "flat_sequence had 1 items.")):
        nest.pack_sequence_as([1, 2], [1])
    with pytest.raises(ValueError, match="Structure had 1 atoms, but flat_sequence had 3 items"):
        nest.pack_sequence_as([0], [1, 2, 3])
    with pytest.raises(TypeError, match="Attempted to pack value:\n  5\ninto a structure, but found incompatible "
                                        "type `<class 'int'>` instead."):
        nest.pack_sequence_as([0], 5)
    with pytest.raises(ValueError, match="nest cannot guarantee that it is safe to map one to the other"):
        nest.pack_sequence_as(0, [1, 2])


def test_unsortable_dict_keys():
    with pytest.raises(TypeError, match="not supported between instances"):
        nest.flatten({1: "a", "b": 2})
    with pytest.raises(TypeError, match="nest only supports dicts with sortable keys."):
        nest.pack_sequence_as({1: "a", "b": 2}, [1, 2])


def test_expand_composites_without_composites_is_the_plain_behaviour():
    assert nest.flatten([1, (2,)], expand_composites=True) == [1, 2]
    assert nest.map_structure(abs, [-1], expand_composites=True) == [1]
    assert nest.pack_sequence_as([1], [5], expand_composites=True) == [5]
    nest.assert_same_structure([1], [2], expand_composites=True)


def test_round_trip_of_a_typical_run_argument():
    structure = (({"image": 1, "mask": 2}, 3, Point(4, None)), {})
    flat = nest.flatten(structure)
    assert flat == [1, 2, 3, 4, None]
    assert nest.pack_sequence_as(structure, flat) == structure
    assert nest.map_structure(lambda v: v, structure) == structure


def test_callers_that_ignore_types_still_require_the_same_dict_keys():
    import tpustrategy as tf

    nest._assert_same_mapping_keys({"a": [1, {"x": 2}]}, {"a": (3, {"x": 4})})
    with pytest.raises(ValueError, match="don't have the same set of keys"):
        nest._assert_same_mapping_keys({"a": [1, {"x": 2}]}, {"a": (3, {"y": 4})})

    strategy = tf.distribute.MirroredStrategy(["GPU:0", "GPU:1"])

    def keyed_by_replica():
        replica = tf.distribute.get_replica_context().replica_id_in_sync_group
        return {"a" if int(replica) == 0 else "b": tf.constant(1.0)}

    with pytest.raises(AssertionError, match="keys"):  # TF's regroup asserts
        strategy.run(keyed_by_replica)

    @tf.function(input_signature=[{"a": tf.TensorSpec(shape=[], dtype=tf.float32)}])
    def identity(batch):
        return batch

    assert float(identity({"a": 1.0})["a"]) == 1.0
    with pytest.raises(TypeError, match="does not have the structure of input_signature"):
        identity({"b": 1.0})


def test_dm_tree_loads_on_first_use_not_with_the_package():
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys, tpustrategy as tf\n"
            "assert 'tree' not in sys.modules\n"
            "assert tf.nest.flatten({'b': 1, 'a': [2, None]}) == [2, None, 1]\n"
            "assert 'tree' in sys.modules and tf.nest.is_nested([]) and not tf.nest.is_nested(3)\n")
    python = str(Path(__file__).resolve().parents[1] / "python")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [python, os.environ.get("PYTHONPATH")])))
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=120)
