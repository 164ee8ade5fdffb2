"""Type hints on every public function (#17): each Python function a user reaches from ``import tpustrategy as
tf`` (public_api_walk.py) annotates every parameter and its return. The modules not yet annotated are listed in
data/unannotated_modules.txt; the list may only shrink (a listed module that becomes complete must leave it)."""

from __future__ import annotations

import collections
import pathlib

from public_api_walk import missing_annotations, public_functions

NOT_YET = pathlib.Path(__file__).parent / "data" / "unannotated_modules.txt"


def _not_yet() -> set[str]:
    lines = (line.split("#")[0].strip() for line in NOT_YET.read_text().splitlines())
    return {line for line in lines if line}


def _unannotated() -> dict[str, list[str]]:
    """module -> the public functions it defines that lack an annotation (with the parameters that do)."""
    found: dict[str, list[str]] = collections.defaultdict(list)
    for name, function in public_functions():
        missing = missing_annotations(function)
        if missing:
            found[function.__module__].append(f"{name}({', '.join(missing)})")
    return found


def test_public_functions_are_annotated() -> None:
    not_yet = _not_yet()
    offenders = {module: names for module, names in _unannotated().items() if module not in not_yet}
    assert not offenders, f"public functions without type hints: {offenders}"


def test_not_yet_list_only_names_unannotated_modules() -> None:
    done = _not_yet() - set(_unannotated())
    assert not done, f"fully annotated now: remove {sorted(done)} from {NOT_YET.name}"


def test_walk_finds_the_facade_and_reports_a_missing_hint() -> None:
    import tpustrategy as tf

    walked = {function for _, function in public_functions()}
    assert {tf.distribute.TPUStrategy.run, tf.data.Dataset.map, tf.reduce_sum} <= walked

    def untyped(x, y: int):
        return x

    assert missing_annotations(untyped) == ["x", "return"]
