"""Runs benchmarks/bench_profiler_overhead.py once with --tiny so the benchmark never rots."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bench_profiler_overhead_tiny():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "python"), env.get("PYTHONPATH")]))
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_profiler_overhead.py"), "--tiny"],
                         capture_output=True, text=True, env=env, timeout=120, check=True).stdout
    (result,) = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert result["off_us"] > 0 and result["on_us"] > 0
    # Every step records ops and one all-reduce: at least 8 replicas x 4 ops + 1 collective.
    assert result["events_per_step"] >= 33
