"""The README's "What runs / what does not (yet)" table stays true: every **runs** row's example executes (and
asserts something), every **not yet** row's API is absent. The table is the data: flipping a row in the README
is all a landed feature needs."""

from __future__ import annotations

import logging
import pathlib
import re

import numpy as np
import pytest

import tpustrategy as tf

README = pathlib.Path(__file__).parent.parent / "README.md"


def support_rows() -> list[tuple[str, str, str, str]]:
    """(area, feature, status, check) per row of the table under the "What runs" heading."""
    text = README.read_text()
    section = text[text.index("## What runs / what does not (yet)") :]
    section = section[: section.index("\n## ", 4)]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if len(cells) != 4 or cells[0] in ("area", "---"):
            continue
        check = re.fullmatch(r"`(.+)`", cells[3])
        assert check, f"the 'checked by' cell must be one code span: {line}"
        rows.append((cells[0], cells[1], cells[2], check.group(1)))
    return rows


ROWS = support_rows()


def _row_id(row) -> str:
    area, feature, status, _ = row
    words = re.sub(r"[^\w]+", "-", re.sub(r"`", "", feature)).strip("-").lower()
    return f"{status.replace(' ', '-')}:{area}:{words[:40]}"


def test_the_table_has_both_kinds_of_rows():
    statuses = [status for _, _, status, _ in ROWS]
    assert set(statuses) == {"runs", "not yet"}, statuses
    assert statuses.count("runs") >= 10 and statuses.count("not yet") >= 5


@pytest.fixture
def strategy():
    logging.getLogger("tpustrategy").setLevel(logging.ERROR)  # re-initializing the default slice warns
    resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu="")
    tf.config.experimental_connect_to_cluster(resolver)
    tf.tpu.experimental.initialize_tpu_system(resolver)
    yield tf.distribute.TPUStrategy(resolver)
    logging.getLogger("tpustrategy").setLevel(logging.NOTSET)


@pytest.mark.parametrize("row", [r for r in ROWS if r[2] == "runs"], ids=_row_id)
def test_runs_row_example_executes(row, strategy):
    *_, check = row
    assert "assert " in check, "a runs row's example must assert what it shows"
    exec(compile(check, f"README row: {row[1]}", "exec"), {"tf": tf, "np": np, "strategy": strategy})


def _resolves(path: str) -> bool:
    """Whether a dotted ``tf.a.b`` path (or ``tf.f(args).attr``) resolves."""
    try:
        eval(compile(path, "README row", "eval"), {"tf": tf, "np": np})
    except AttributeError:
        return False
    return True


@pytest.mark.parametrize("row", [r for r in ROWS if r[2] == "not yet"], ids=_row_id)
def test_not_yet_row_api_is_absent(row):
    *_, check = row
    assert check.startswith("tf."), "a not-yet row names the tf API that is missing"
    assert not _resolves(check), f"{check} exists now: flip the README row '{row[1]}' to runs (with an example)"
