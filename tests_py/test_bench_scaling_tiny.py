"""benchmarks/bench_scaling.py runs once, tiny (8 and 32 replicas), so that it never rots."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def test_scaling_benchmark_tiny():
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(root / "python"))
    out = subprocess.run([sys.executable, str(root / "benchmarks" / "bench_scaling.py"), "--tiny"],
                         capture_output=True, text=True, env=env, timeout=300, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["benchmark"] == "scaling"
    expected = {(kind, n) for kind in ("tpu", "mirrored", "greenlet") for n in (8, 32)}
    assert {(r["kind"], r["replicas"]) for r in result["rows"]} == expected
    for row in result["rows"]:
        assert row["per_replica_us"] > 0 and row["peak_rss_mib"] > 0
    assert result["ratio_vs_smallest"]["tpu"]["8"] == 1.0
    # The bare-greenlet baseline runs the same sampling, and its line says what it is.
    assert result["ratio_vs_smallest"]["greenlet"]["8"] == 1.0
    assert any(line.startswith("baseline greenlet ") for line in out.stdout.splitlines())
    # Python's work per replica is flat or falls (the step's fixed work spreads over more replicas): it grows only if
    # a replica does work proportional to the replica count (issue #11).
    for kind in ("tpu", "mirrored", "greenlet"):
        work = {r["replicas"]: r["py_bytecodes_per_replica"] for r in result["rows"] if r["kind"] == kind}
        assert 0 < work[32] <= work[8], (kind, work)
