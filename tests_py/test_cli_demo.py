"""The main job: ``python -m tpustrategy demo`` runs on the default slice and on a multi-host one."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest


def run_cli(*args: str, slice_env: str | None = None) -> str:
    env = dict(os.environ)
    env.pop("TPUSTRATEGY_SLICE", None)
    if slice_env:
        env["TPUSTRATEGY_SLICE"] = slice_env
    out = subprocess.run([sys.executable, "-m", "tpustrategy", *args], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.parametrize(("args", "replicas"), [((), 8), (("--slice", "v4-32"), 16)], ids=["v3-8", "v4-32"])
def test_demo_all_reduce_matches_numpy(args, replicas):
    text = run_cli("demo", *args)
    assert f"TPUStrategy: {replicas} replicas" in text
    total, expected = re.search(r"all_reduce\(SUM\) on every replica = (\S+) \(numpy: (\S+)\)", text).groups()
    assert total == expected
    assert len(re.findall(r"^  replica \d+ on /job:worker", text, flags=re.M)) == replicas


def test_slices_lists_every_preset():
    text = run_cli("slices")
    for name in ["v2-8", "v3-8", "v3-32", "v4-8", "v4-16", "v4-32", "v5e-8"]:
        assert re.search(rf"^{name}\s", text, flags=re.M), name


def test_bad_slice_is_a_clear_error():
    out = subprocess.run([sys.executable, "-m", "tpustrategy", "demo", "--slice", "v9-9"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode != 0 and "v3-8" in out.stderr
