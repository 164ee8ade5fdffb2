"""Docstrings on the public facade (#17), so that help() and Jupyter's `?` say something: every public class and
function a user reaches from ``import tpustrategy as tf`` (public_api_walk.py) has a docstring. A method may take
its docstring from the member it overrides (any base class, TF's or Keras' shape of it included), and ``__init__``
from its class's docstring, where Google style documents the constructor's arguments. The modules not yet
documented are listed in data/undocumented_modules.txt; the list may only shrink."""

from __future__ import annotations

import collections
import pathlib
import types

from public_api_walk import public_members

NOT_YET = pathlib.Path(__file__).parent / "data" / "undocumented_modules.txt"


def _not_yet() -> set[str]:
    lines = (line.split("#")[0].strip() for line in NOT_YET.read_text().splitlines())
    return {line for line in lines if line}


def _has_doc(value: object) -> bool:
    return bool((getattr(value, "__doc__", None) or "").strip())


def documented(dotted: str, value: types.FunctionType | type, owner: type | None) -> bool:
    """Whether `value`, reached as `dotted` (through class `owner` for a method), carries a docstring."""
    if isinstance(value, type):
        return _has_doc(vars(value).get("__doc__"))  # its own, not one inherited from a base class
    if _has_doc(value) or owner is None:
        return _has_doc(value)
    name = dotted.rsplit(".", 1)[1]
    if name == "__init__":
        return _has_doc(vars(owner).get("__doc__"))
    return any(_has_doc(vars(base).get(name)) for base in owner.__mro__ if name in vars(base))


def _undocumented() -> dict[str, list[str]]:
    """module -> the public classes and functions it defines without a docstring (sorted, each once)."""
    found: dict[str, set[str]] = collections.defaultdict(set)
    for dotted, value, owner in public_members():
        if not documented(dotted, value, owner):
            found[value.__module__].add(value.__qualname__)
    return {module: sorted(names) for module, names in found.items()}


def test_public_classes_and_functions_are_documented() -> None:
    not_yet = _not_yet()
    offenders = {module: names for module, names in _undocumented().items() if module not in not_yet}
    assert not offenders, f"public names without a docstring: {offenders}"


def test_not_yet_list_only_names_undocumented_modules() -> None:
    done = _not_yet() - set(_undocumented())
    assert not done, f"documented now: remove {sorted(done)} from {NOT_YET.name}"


def test_walk_finds_classes_and_an_inherited_docstring_counts() -> None:
    import tpustrategy as tf

    reached = {value for _, value, _ in public_members()}
    assert {tf.distribute.TPUStrategy, tf.data.Dataset, tf.reduce_sum} <= reached

    class Base:
        """A base."""

        def step(self) -> None:
            """Does a step."""

    class Derived(Base):
        def step(self) -> None:
            pass

        def other(self) -> None:
            pass

    assert documented("m.Derived.step", Derived.step, Derived)
    assert not documented("m.Derived.other", Derived.other, Derived)
    assert not documented("m.Derived", Derived, None)

    # A constructor without a docstring of its own takes its class's (Google style documents Args there).
    class Built:
        """Built from nothing."""

        def __init__(self) -> None:
            pass

    class Undocumented:
        def __init__(self) -> None:
            pass

    assert documented("m.Built.__init__", Built.__init__, Built)
    assert not documented("m.Undocumented.__init__", Undocumented.__init__, Undocumented)
