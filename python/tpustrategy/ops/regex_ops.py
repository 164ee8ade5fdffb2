"""``tf.strings.regex_replace`` and ``regex_full_match``: TF's RE2 syntax, run with Python's ``re``.

Patterns match UTF-8 text by character, as RE2 does in TF. The common subset of the two syntaxes behaves the same;
where they differ we follow RE2:
* ``\\d \\w \\s \\b`` are ASCII-only (re.ASCII). Differences that stay: ``(?i)`` folds only ASCII letters here,
  all Unicode letters in RE2; ``\\s`` also matches ``\\v`` here (not in RE2); ``[[:^alpha:]]`` is not translated.
* RE2 rejects backreferences (``\\1`` in a pattern) and lookaround (``(?=``, ``(?!``, ``(?<=``, ``(?<!``), and has
  no atomic groups (``(?>``): InvalidArgumentError, as TF raises.
* ``\\z`` (end of text) works; ``[[:alpha:]]``-style POSIX classes are translated to ASCII ranges.
* ``\\p{..}`` / ``\\P{..}`` Unicode classes and ``\\C`` are RE2 features ``re`` lacks: InvalidArgumentError saying so.
* The rewrite is RE2's: ``\\0`` … ``\\9`` insert groups, ``\\\\`` a backslash; ``$1`` is literal text. A global
  replace skips an empty match right after the previous match (RE2's GlobalReplace).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from tpustrategy import _core, errors
from tpustrategy.framework import static_shape
from tpustrategy.framework.string_tensor import StringTensor, to_bytes_array
from tpustrategy.ops._args import TensorLike, mentions_ragged

_POSIX_CLASSES = {"alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ",
                  "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~",
                  "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\v\\f\\r ", "upper": "A-Z", "word": "0-9A-Za-z_",
                  "xdigit": "0-9A-Fa-f"}
# Groups Python's re accepts and RE2 rejects (lookaround, atomic groups), as they open at an unescaped "(" outside a
# character class: RE2's parse error names the operator.
_RE2_REJECTED_GROUPS = ("(?<=", "(?<!", "(?=", "(?!", "(?>")


def _invalid(pattern: str, why: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, f"Invalid pattern: {pattern}, error: {why}")


def _translate(pattern: str) -> str:
    """RE2 `pattern` as a Python re pattern; InvalidArgumentError for what RE2 rejects or re cannot do."""
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "(" and not in_class:
            rejected = next((group for group in _RE2_REJECTED_GROUPS if pattern.startswith(group, i)), None)
            if rejected is not None:
                raise _invalid(pattern, f"invalid perl operator: {rejected}")
        if char == "\\" and i + 1 < len(pattern):
            escaped = pattern[i + 1]
            if escaped.isdigit() and escaped != "0":
                raise _invalid(pattern, f"invalid escape sequence: \\{escaped}")
            if escaped in "pPC":
                raise _invalid(pattern, f"\\{escaped} (a Unicode class or byte escape) is RE2 syntax Python's re "
                                        "lacks; not supported here")
            if escaped == "Z":
                raise _invalid(pattern, "invalid escape sequence: \\Z")
            out.append("\\Z" if escaped == "z" else pattern[i:i + 2])
            i += 2
            continue
        if pattern.startswith("[:", i):
            end = pattern.find(":]", i + 2)
            name = pattern[i + 2:end] if end > 0 else ""
            if name in _POSIX_CLASSES:
                out.append(_POSIX_CLASSES[name])
                i = end + 2
                continue
        if char == "[" and not in_class:  # a class's first "]" (or after "^") is a literal, as in RE2
            in_class = True
            out.append(char)
            i += 1
            for literal in ("^]", "]", "^"):
                if pattern.startswith(literal, i):
                    out.append(literal)
                    i += len(literal)
                    break
            continue
        in_class = in_class and char != "]"
        out.append(char)
        i += 1
    return "".join(out)


def _compile(pattern: Any) -> re.Pattern[str]:
    text = _text(pattern)
    try:
        return re.compile(_translate(text), re.ASCII)
    except re.error as e:
        raise _invalid(text, str(e)) from None


def _text(value: Any) -> str:
    array = to_bytes_array(value)
    if array.ndim != 0:
        raise errors.InvalidArgumentError(None, None, f"Pattern must be scalar, but received {list(array.shape)}")
    return bytes(array.item()).decode("utf-8", errors="surrogateescape")


def _rewriter(rewrite: str, groups: int) -> Any:
    """RE2's rewrite string as a function of a match: \\0 … \\9 the groups, \\\\ a backslash, the rest literal."""
    parts: list[str | int] = []
    i = 0
    while i < len(rewrite):
        if rewrite[i] == "\\":
            following = rewrite[i + 1:i + 2]
            if following.isdigit():
                if int(following) > groups:
                    raise errors.InvalidArgumentError(None, None, f"Invalid rewrite pattern: {rewrite}: \\{following} "
                                                      f"names a group the pattern does not have ({groups})")
                parts.append(int(following))
            elif following == "\\":
                parts.append("\\")
            else:
                raise errors.InvalidArgumentError(None, None, f"Invalid rewrite pattern: {rewrite}: invalid "
                                                  "rewrite escape; use \\\\ for a backslash")
            i += 2
            continue
        parts.append(rewrite[i])
        i += 1
    return lambda m: "".join(p if isinstance(p, str) else (m.group(p) or "") for p in parts)


def _replace(compiled: re.Pattern[str], rewrite: Any, text: str, replace_global: bool) -> str:
    out: list[str] = []
    position = 0
    previous_end = -1
    for match in compiled.finditer(text):
        if match.start() == match.end() == previous_end:  # RE2: no empty match at the end of the last one
            continue
        out.append(text[position:match.start()])
        out.append(rewrite(match))
        position = previous_end = match.end()
        if not replace_global:
            break
    out.append(text[position:])
    return "".join(out)


def _each(input: TensorLike, fn: Any, otype: Any) -> np.ndarray:  # noqa: A002
    array = to_bytes_array(input)
    results: np.ndarray = np.vectorize(lambda b: fn(bytes(b).decode("utf-8", errors="surrogateescape")),
                                       otypes=[otype])(array)
    return results


def regex_replace(input: TensorLike, pattern: Any, rewrite: Any, replace_global: bool = True,  # noqa: A002
                  name: str | None = None) -> Any:
    """Each string with the matches of `pattern` (RE2 syntax, see the module docstring) replaced by `rewrite`
    (``\\1`` inserts group 1): every match, or the first with ``replace_global=False``. A RaggedTensor keeps its rows.

    Raises:
      InvalidArgumentError: `pattern` does not parse, uses RE2-invalid syntax or syntax not supported here,
        or `rewrite` names a missing group.
    """
    if mentions_ragged(input):  # elementwise: the flat values, as TF's ragged dispatch
        return input.with_flat_values(regex_replace(input.flat_values, pattern, rewrite, replace_global))
    compiled = _compile(pattern)
    rewriter = _rewriter(_text(rewrite), compiled.groups)
    replaced = _each(input, lambda s: _replace(compiled, rewriter, s, replace_global).encode(
        "utf-8", errors="surrogateescape"), object)
    result = StringTensor(replaced)
    static_shape.note_like(result, input)
    return result


def regex_full_match(input: TensorLike, pattern: Any, name: str | None = None) -> Any:  # noqa: A002
    """Whether each string matches `pattern` (RE2 syntax, see the module docstring) as a whole: a bool tensor.

    Raises:
      InvalidArgumentError: `pattern` does not parse, uses RE2-invalid syntax or syntax not supported here.
    """
    if mentions_ragged(input):
        return input.with_flat_values(regex_full_match(input.flat_values, pattern))
    compiled = _compile(pattern)
    matched = _each(input, lambda s: compiled.fullmatch(s) is not None, bool)
    result = _core.tensor.constant(np.asarray(matched, dtype=bool), _core.tensor.bool)
    static_shape.note_like(result, input)
    return result
