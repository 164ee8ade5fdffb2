"""Error messages of the #14 fidelity3 fixes, as TF 2.21 words them (the crosscheck references keep only the error
types; these strings were measured in the reference venv)."""

from __future__ import annotations

import pytest

import tpustrategy as tf


def test_meshgrid_of_mixed_dtypes_names_both():
    with pytest.raises(tf.errors.InvalidArgumentError) as raised:
        tf.meshgrid(tf.constant([1, 2]), tf.constant([1.0, 2.0]))
    assert raised.value.message == ("cannot compute Mul as input #1(zero-based) was expected to be a float tensor "
                                    "but is a int32 tensor [Op:Mul] name: ")


def test_regex_errors_name_the_pattern_as_re2_does():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Invalid pattern: \(a\)\\1, error: invalid escape "
                                                             r"sequence: \\1"):
        tf.strings.regex_replace(["aa"], r"(a)\1", "x")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"invalid perl operator: \(\?<!"):
        tf.strings.regex_full_match(["ab"], "(?<!a)b")


def test_lookaround_text_escaped_or_in_a_class_is_literal_as_in_re2():
    # Only a group opening at an unescaped "(" outside a character class is lookaround; RE2 takes the rest as text.
    assert tf.strings.regex_full_match(["(=", "a"], r"\(?=").numpy().tolist() == [True, False]
    assert tf.strings.regex_full_match(["(", "?", "="], "[(?=]").numpy().tolist() == [True, True, True]
    assert tf.strings.regex_replace(["a(?>b]"], r"[]a](\(\?>)?", "_").numpy().tolist() == [b"_b_"]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"invalid perl operator: \(\?="):
        tf.strings.regex_full_match(["ab"], "[a](?=b)")


def test_regex_unicode_classes_are_refused_not_misread():
    # RE2 knows \pL (TF gives b"LL1" for "aé1"); Python's re does not: a typed error instead of a wrong answer.
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\\p .*not supported here"):
        tf.strings.regex_replace(["aé1"], r"\pL", "L")


def test_case_mapping_refuses_other_encodings():
    with pytest.raises(tf.errors.InvalidArgumentError) as raised:
        tf.strings.lower(["A"], encoding="latin1")
    assert raised.value.message == "only utf-8 or '' (no encoding) is supported, received latin1"
