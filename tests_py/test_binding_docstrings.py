"""help() and Jupyter's `?` are useful on the extension: every bound function, method and class of the _core
submodules has a docstring, Google style (an Args section when it takes arguments), and options are keyword-only.
"""

from __future__ import annotations

import inspect
import re
import types

import numpy as np
import pytest

from tpustrategy import _core

SUBMODULES = sorted(n for n in dir(_core) if isinstance(getattr(_core, n), types.ModuleType))


def user_doc(fn, name: str) -> tuple[str, str]:
    """(the signature line, the docstring after it) of a pybind11 function."""
    doc = fn.__doc__ or ""
    signature, _, rest = doc.partition("\n")
    assert signature.startswith(f"{name}("), f"{name}: unexpected docstring layout {doc[:80]!r}"
    return signature, rest.strip()


def takes_arguments(signature: str) -> bool:
    params = signature[signature.index("(") + 1 : signature.rindex(") ->")]
    params = re.sub(r"^self: [^,]*(, )?", "", params)
    return params.strip() not in ("", "*")


def bound_callables(module: types.ModuleType):
    """(qualified name, function, name) of each function of `module` and each method of its classes."""
    for name, obj in sorted(vars(module).items()):
        if name.startswith("__") or name.startswith("_pybind11"):
            continue
        if isinstance(obj, type):
            if issubclass(obj, int) or hasattr(obj, "__members__"):  # py::enum_: values only
                continue
            for attr, member in sorted(vars(obj).items()):
                if attr.startswith("_") and attr != "__init__":  # private, pybind11's own, operators
                    continue
                member = member.__func__ if isinstance(member, staticmethod) else member
                if isinstance(member, property) or not callable(member) or not hasattr(member, "__doc__"):
                    continue
                if type(member).__name__ not in ("instancemethod", "builtin_function_or_method"):
                    continue
                yield f"{module.__name__}.{name}.{attr}", member, attr
        elif callable(obj):
            yield f"{module.__name__}.{name}", obj, name


CALLABLES = [c for sub in SUBMODULES for c in bound_callables(getattr(_core, sub))]
CLASSES = [
    (f"_core.{sub}.{n}", obj)
    for sub in SUBMODULES
    for n, obj in sorted(vars(getattr(_core, sub)).items())
    if isinstance(obj, type) and not n.startswith("_")
]


def test_the_check_sees_the_bindings():
    names = {q for q, _, _ in CALLABLES}
    assert len(names) > 200
    assert "tpustrategy._core.ops.reduce_sum" in names and "tpustrategy._core.topology.DeviceAssignment.build" in names
    assert "tpustrategy._core.data.RowBuffer.pop" in names and "tpustrategy._core.data.TFRecordReader.__init__" in names


def docstring_problem(signature: str, doc: str) -> str | None:
    """What is missing from a bound function's docstring, or None."""
    if not doc:
        return "no docstring (add one in cpp/bindings/)"
    if takes_arguments(signature):
        if not re.search(r"^Args:$", doc, re.M):
            return "arguments but no Args section"
        if not re.search(r"^  \w", doc[doc.index("Args:") :], re.M):
            return "an Args section that lists nothing"
    return None


@pytest.mark.parametrize(
    "qualname, fn, name", CALLABLES, ids=[q.removeprefix("tpustrategy._core.") for q, _, _ in CALLABLES]
)
def test_bound_function_has_a_google_style_docstring(qualname, fn, name):
    problem = docstring_problem(*user_doc(fn, name))
    assert problem is None, f"{qualname}: {problem}"


@pytest.mark.parametrize("qualname, cls", CLASSES, ids=[q.removeprefix("_core.") for q, _ in CLASSES])
def test_bound_class_has_a_docstring(qualname, cls):
    assert (cls.__doc__ or "").strip(), f"{qualname} has no docstring"


def test_the_docstring_check_can_fail():
    assert docstring_problem("f(x: int) -> int", "") == "no docstring (add one in cpp/bindings/)"
    assert docstring_problem("f(x: int) -> int", "Does things.") == "arguments but no Args section"
    assert docstring_problem("f(x: int) -> int", "Does things.\n\nArgs:\n") == "an Args section that lists nothing"
    assert docstring_problem("f(x: int) -> int", "Does things.\n\nArgs:\n  x: a number.") is None
    assert docstring_problem("f(self: X) -> None", "Does things.") is None
    assert not takes_arguments("f() -> None") and takes_arguments("f(*, name: str = '') -> None")


def test_help_shows_the_args():
    text = inspect.getdoc(_core.collectives.all_reduce)
    assert "Args:" in text and "devices:" in text and "Raises:" in text


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda x: _core.ops.reduce_sum(x, None, True), id="reduce_sum-keepdims"),
        pytest.param(lambda x: _core.ops.matmul(x, x, True), id="matmul-transpose_a"),
        pytest.param(lambda x: _core.ops.argmax(x, 0, _core.tensor.int32), id="argmax-output_type"),
        pytest.param(lambda x: _core.ops.exp(x, "name"), id="exp-name"),
        pytest.param(lambda x: _core.collectives.all_reduce([x], "SUM", None), id="all_reduce-devices"),
        pytest.param(lambda x: _core.data.stack_batch([x], 0), id="stack_batch-component"),
    ],
)
def test_options_are_keyword_only(call):
    x = _core.tensor.constant(np.ones((2, 2), np.float32))
    with pytest.raises(TypeError, match="incompatible function arguments"):
        call(x)


def test_options_by_keyword_work():
    x = _core.tensor.constant(np.ones((2, 2), np.float32))
    assert _core.ops.reduce_sum(x, None, keepdims=True)._shape_tuple == (1, 1)
    assert float(_core.ops.matmul(x, x, transpose_a=True).numpy()[0, 0]) == 2.0
    assert _core.ops.argmax(x, 0, output_type=_core.tensor.int32).dtype == _core.tensor.int32
