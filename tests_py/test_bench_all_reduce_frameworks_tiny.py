"""benchmarks/bench_all_reduce_frameworks.py runs once, tiny (tpustrategy sides only), so that it never rots."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def test_all_reduce_frameworks_benchmark_tiny():
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(root / "python"))
    out = subprocess.run([sys.executable, str(root / "benchmarks" / "bench_all_reduce_frameworks.py"), "--tiny"],
                         capture_output=True, text=True, env=env, timeout=120, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["benchmark"] == "all_reduce_frameworks" and result["replicas"] == 8
    assert set(result["median_s"]) == {"tps_run", "tps_core"}
    assert result["median_s"]["tps_core"]["4096"] > 0
    assert result["ratio_vs_tps_run"]["tps_run"]["4096"] == 1.0
