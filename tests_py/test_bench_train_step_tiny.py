"""Runs benchmarks/bench_train_step.py once with --tiny so the benchmark never rots."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_bench_train_step_tiny_prints_json_results():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "python"), env.get("PYTHONPATH")]))
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_train_step.py"), "--tiny"],
                         capture_output=True, text=True, env=env, timeout=300, check=True).stdout
    result = [json.loads(line) for line in out.splitlines() if line.startswith("{")][-1]
    assert result["bench"] == "train_step" and result["replicas"] == 8
    for key in ("numpy_ms", "tpustrategy_ms", "tpustrategy_one_device_ms", "ratio_vs_numpy"):
        assert result[key] > 0
    summary = [line for line in out.splitlines() if line.startswith("train_step tps ")]
    assert len(summary) == 1 and "numpy" in summary[0] and "target <= 1.50" in summary[0]
    assert "tf_function skipped" in summary[0] and "| load " in summary[0]  # --tiny never runs the references
